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

-- A coroutine's body runs inside a pcall of its own (Lua's, which can yield). An error the
-- budget hook raises leaves the thread it escapes from with hooks off (Lua turns them back on
-- only where a pcall catches it), and coroutine.wrap or coroutine.close would then run the
-- body's <close> handlers on that thread unmetered. Caught here, the handlers run with hooks on,
-- at once, and the error goes on (see lua/meter/hook.rs).
local co_create, co_wrap = coroutine.create, coroutine.wrap
local yieldable_pcall = natives.yieldable_pcall
local function passed_on(ok, ...)
  if ok then
    return ...
  end
  error((...), 0)
end
local function guarded(body)
  return function(...)
    return passed_on(yieldable_pcall(body, ...))
  end
end
coroutine.create = function(body)
  if type(body) ~= "function" then
    return co_create(body)
  end
  return co_create(guarded(body))
end
coroutine.wrap = function(body)
  if type(body) ~= "function" then
    return co_wrap(body)
  end
  return co_wrap(guarded(body))
end

-- Finalizers run with hooks off, so no budget could stop one that loops: scripts get none.
setmetatable = function(t, mt)
  if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
    error("__gc metamethods are not available to scripts", 2)
  end
  return raw_setmetatable(t, mt)
end

local charge, bytes_per_unit = natives.charge, natives.bytes_per_unit
local raw_collectgarbage = collectgarbage
local allowed_gc = { count = true, collect = true, step = true }
collectgarbage = function(opt, ...)
  opt = opt or "collect"
  if not allowed_gc[opt] then
    error('collectgarbage("' .. tostring(opt) .. '") is not available to scripts', 2)
  end
  if opt ~= "count" then
    -- A collection walks the whole heap in C: paid for by its size, like what C builds.
    charge(raw_collectgarbage("count") * 1024 / bytes_per_unit)
  end
  return raw_collectgarbage(opt, ...)
end

dofile, loadfile, string.dump = nil, nil, nil

-- The budget hook does not run inside C: what C builds is charged by the allocator, and the
-- library functions that loop in C without building anything are metered in C (lua/meter/).

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
  if type(chunk) == "string" then
    -- Compiling runs in C: paid for by the chunk's size.
    charge(#chunk / bytes_per_unit)
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

-- A plain Lua error as a failure, with the innermost line of `f`'s own file in its message
-- and the traceback beside it (failure.rs moves it into `details`). A tripped budget is left
-- as it is: the handler runs with hooks off.
local error_place = natives.error_place
local function to_failure(e, f)
  if type(e) == "string" and not budget_tripped(e) then
    local message, traceback = error_place(e, f)
    return raw_setmetatable(
      { code = "LUA_ERROR", message = message, traceback = traceback },
      error_mt
    )
  end
  return e
end

-- How the host calls a tool's run or a step's function: `true, results...` or
-- `false, failure`, never a Lua error.
function helpers.run(f, ...)
  return raw_xpcall(f, function(e)
    return to_failure(e, f)
  end, ...)
end

-- `rein.fs.read`'s result, the kernel's fields as a table: built here in one call, where each
-- field set from Rust was a protected call of its own (read_file is the call agents make most).
function helpers.read_output(path, content, total_lines, start_line, end_line, truncated, sha256)
  return {
    path = path,
    content = content,
    total_lines = total_lines,
    start_line = start_line,
    end_line = end_line,
    truncated = truncated,
    sha256 = sha256,
  }
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
