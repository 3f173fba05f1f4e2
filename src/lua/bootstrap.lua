-- Runs once in every Lua state, before any tool. It closes the holes a plain Lua state has and
-- returns the helpers the host builds the `rein` namespace with. The raw functions it wraps
-- stay in upvalues here, out of every script's reach.
local natives = ...

local raw_pcall, raw_xpcall, raw_load = pcall, xpcall, load
local co_resume, co_close = coroutine.resume, coroutine.close
local error, type, tostring, rawget = error, type, tostring, rawget
local raw_setmetatable = setmetatable
local budget_tripped = natives.budget_tripped

local error_mt = {
  __name = "rein.error",
  __tostring = function(e)
    return tostring(e.code) .. ": " .. tostring(e.message)
  end,
}

-- A tripped budget must not be swallowed: whoever catches it raises it again.
local function rethrow_if_tripped(ok, ...)
  if not ok and budget_tripped((...)) then
    error((...), 0)
  end
  return ok, ...
end

pcall = function(f, ...)
  return rethrow_if_tripped(raw_pcall(f, ...))
end
-- Lua runs a message handler with hooks still off when the error came from a hook, so a
-- handler that loops would never be stopped: once the budget is tripped, skip the handler.
xpcall = function(f, handler, ...)
  local function guarded(e)
    if budget_tripped(e) then
      return e
    end
    return handler(e)
  end
  return rethrow_if_tripped(raw_xpcall(f, guarded, ...))
end
coroutine.resume = function(co, ...)
  return rethrow_if_tripped(co_resume(co, ...))
end
coroutine.close = function(co)
  return rethrow_if_tripped(co_close(co))
end

-- Finalizers run with hooks off, so no budget could stop one that loops: scripts get none.
setmetatable = function(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("__gc metamethods are not available to scripts", 2)
  end
  return raw_setmetatable(t, mt)
end

local raw_collectgarbage = collectgarbage
local allowed_gc = { count = true, collect = true, step = true }
collectgarbage = function(opt, ...)
  opt = opt or "collect"
  if not allowed_gc[opt] then
    error('collectgarbage("' .. tostring(opt) .. '") is not available to scripts', 2)
  end
  return raw_collectgarbage(opt, ...)
end

dofile, loadfile, string.dump = nil, nil, nil

-- The budget hook does not run inside C, so the library functions that build big strings
-- charge the bytes they build (one instruction a byte) before they build them; the memory
-- ceiling bounds any one of them.
local charge = natives.charge
local raw_rep, raw_concat = string.rep, table.concat
string.rep = function(s, n, sep)
  local count = tonumber(n)
  if count and count > 0 then
    charge(#tostring(s) * count + (sep ~= nil and #tostring(sep) * (count - 1) or 0))
  end
  return raw_rep(s, n, sep)
end
table.concat = function(list, sep, i, j)
  local joined = raw_concat(list, sep, i, j)
  charge(#joined)
  return joined
end
-- `..`, string.format, upper, lower and reverse are not charged: each builds at most the memory
-- ceiling (the allocator refuses more before anything is copied), a loop of them is stopped by
-- the instruction count, the clock or a cancel at the next hook, and wrapping them here would
-- make their error messages name this file instead of the script's line.

-- Read-only views. Nothing one script does may change what another sees: the globals, the
-- standard library tables and `rein` are seen through proxies that refuse writes, whose
-- metatables cannot be read or replaced, and that `rawset` refuses. (Modules are loaded for
-- each file that requires them; see chunk.rs.)
local raw_rawset, next = rawset, next
local read_only = setmetatable({}, { __mode = "k" }) -- proxy -> true

local function refuse(_, key)
  error("this table is read-only to scripts (cannot set " .. tostring(key) .. ")", 2)
end

local function proxy(inner)
  local view = raw_setmetatable({}, {
    __index = inner,
    __newindex = refuse,
    __metatable = "read-only",
    -- The iterator walks `inner` itself; handing `inner` out as the loop's state would let
    -- a script write to it.
    __pairs = function(view)
      return function(_, key)
        return next(inner, key)
      end, view, nil
    end,
    __len = function()
      return #inner
    end,
  })
  read_only[view] = true
  return view
end

-- A fixed read-only copy of `t`, its tables copied the same way (for what never changes after
-- start: the globals, the standard library, `rein`), read at table speed.
local function sealed_copy(t, seen)
  if seen[t] then
    return seen[t]
  end
  local inner = {}
  local view = proxy(inner)
  seen[t] = view
  for key, value in next, t do
    raw_rawset(inner, key, type(value) == "table" and sealed_copy(value, seen) or value)
  end
  return view
end

rawset = function(t, ...)
  if read_only[t] then
    error("this table is read-only to scripts", 2)
  end
  return raw_rawset(t, ...)
end

-- A chunk loaded without an environment gets one of its own, like every file rein loads.
local globals = _G
load = function(chunk, name, mode, env)
  if mode ~= nil and mode ~= "t" then
    error('load accepts text chunks only (mode "t"); binary chunks are refused', 2)
  end
  if env == nil then
    env = raw_setmetatable({}, { __index = globals })
  end
  return raw_load(chunk, name, "t", env)
end

-- The helpers the host builds the `rein` namespace with (api/mod.rs); the namespace itself
-- is declared in Rust, in one place.
local helpers = {}

-- Wraps a native that returns `true, value` or `false, failure` into a function that returns
-- the value or raises the failure as a structured error `{code, message, details}`.
function helpers.raising(native)
  return function(...)
    local ok, value = native(...)
    if ok then
      return value
    end
    error(raw_setmetatable(value, error_mt), 2)
  end
end

local function to_failure(e)
  if type(e) == "string" then
    return raw_setmetatable({ code = "LUA_ERROR", message = e }, error_mt)
  end
  return e
end

-- How the host calls a tool's run or a step's function: `true, results...` or
-- `false, failure`, never a Lua error.
function helpers.run(f, ...)
  return raw_xpcall(f, to_failure, ...)
end

-- Makes the globals read-only, once `rein`, `require` and `print` are in: their entries move
-- into a sealed copy the globals table only reads through. The string metatable stays the
-- engine's own (methods on strings keep working) but scripts can no longer reach it.
function helpers.seal_globals()
  local entries = {}
  for key, value in next, globals do
    entries[key] = value
  end
  entries._G = entries
  local copy = sealed_copy(entries, {})
  for key in next, entries do
    raw_rawset(globals, key, nil)
  end
  raw_setmetatable(globals, { __index = copy, __newindex = refuse, __metatable = "read-only" })
  read_only[globals] = true
  getmetatable("").__metatable = "read-only"
  globals = copy
  return copy
end

return helpers
