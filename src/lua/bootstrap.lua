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

load = function(chunk, name, mode, env)
  if mode ~= nil and mode ~= "t" then
    error('load accepts text chunks only (mode "t"); binary chunks are refused', 2)
  end
  if env == nil then
    return raw_load(chunk, name, "t")
  end
  return raw_load(chunk, name, "t", env)
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

return helpers
