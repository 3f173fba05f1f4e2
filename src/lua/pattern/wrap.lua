-- Puts the budgeted pattern functions (pattern/mod.rs) into the string table. The natives
-- return `true, results...` or `false, error[, as_is]`; the error is raised here as C Lua raises it,
-- at the caller's position (the wrappers tail-call `checked`, so level 2 is the caller).
local natives, strings = ...
local error = error

local function checked(ok, ...)
  if ok then
    return ...
  end
  -- What a replacement function raised travels as it is.
  local err, as_is = ...
  error(err, as_is and 0 or 2)
end

strings.find = function(...)
  return checked(natives.find(...))
end
strings.match = function(...)
  return checked(natives.match(...))
end
strings.gsub = function(...)
  return checked(natives.gsub(...))
end
strings.gmatch = function(...)
  local next_match = checked(natives.gmatch(...))
  return function()
    return checked(next_match())
  end
end
