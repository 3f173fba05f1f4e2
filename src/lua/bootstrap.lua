-- Runs once in every Lua state, before any tool. It receives the host's natives, builds the
-- `rein` namespace from them, and closes the holes a plain Lua state has. The raw functions it
-- wraps stay in upvalues here, out of every script's reach.
local natives = ...

local raw_pcall, raw_xpcall, raw_load = pcall, xpcall, load
local co_resume, co_close = coroutine.resume, coroutine.close
local error, type, tostring, select, rawget = error, type, tostring, select, rawget
local raw_setmetatable = setmetatable
local concat = table.concat
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
require = natives.require

local function describe(...)
  local parts = {}
  for i = 1, select("#", ...) do
    parts[i] = tostring((select(i, ...)))
  end
  return concat(parts, "\t")
end

-- Stdout belongs to the caller's JSON; print goes to the log like rein.log.info.
print = function(...)
  natives.log("info", describe(...))
end

local function raising(native)
  return function(...)
    local ok, value = native(...)
    if ok then
      return value
    end
    error(raw_setmetatable(value, error_mt), 2)
  end
end

local function logger(level)
  return function(message, fields)
    natives.log(level, tostring(message), fields)
  end
end

rein = {
  fs = {
    read = raising(natives.fs_read),
    read_text = raising(natives.fs_read_text),
    write = raising(natives.fs_write),
    edit = raising(natives.fs_edit),
    multi_edit = raising(natives.fs_multi_edit),
    list = raising(natives.fs_list),
    exists = raising(natives.fs_exists),
    mkdir = raising(natives.fs_mkdir),
  },
  json = {
    encode = raising(natives.json_encode),
    decode = raising(natives.json_decode),
    null = natives.json_null,
    -- Marks a table as an array, so that an empty one encodes as [] rather than {}.
    array = natives.json_array,
  },
  json5 = { decode = raising(natives.json5_decode), null = natives.json_null },
  log = {
    trace = logger("trace"),
    debug = logger("debug"),
    info = logger("info"),
    warn = logger("warn"),
    error = logger("error"),
  },
  proc = {
    run = raising(natives.proc_run),
  },
  tool = raising(natives.tool),
  -- Waits without spinning (at most 60 s a call).
  sleep = raising(natives.sleep),
  -- Runs functions at once; returns { {ok, value} | {ok = false, error}, ... } in order.
  parallel = raising(natives.parallel),
  -- Raise a structured failure: rein.error("MY_CODE", "what went wrong and what to do", {...})
  error = function(code, message, details)
    error(raw_setmetatable({ code = code, message = message, details = details }, error_mt), 2)
  end,
}

local function to_failure(e)
  if type(e) == "string" then
    return raw_setmetatable({ code = "LUA_ERROR", message = e }, error_mt)
  end
  return e
end

-- How the host calls a tool's run: failures come back as values, never as Lua errors.
return function(run, args, ctx)
  return raw_xpcall(run, to_failure, args, ctx)
end
