-- Parsers for the device's `aa` tool (run as `hdc shell aa …`). `aa` exits 0 even when it
-- failed, so success is its exact success message. Use harmony.hdc's parse_aa_start and
-- parse_force_stop, which first look for an hdc [Fail] line.
local text = require("harmony.text")
local remedies = require("harmony.remedies")

local M = {}

-- The lines after "Try the following:" that start with ">".
local function suggestions_of(output)
  local list, more_info = {}, nil
  local start = output:find("Try the following:", 1, true)
  if not start then
    return nil, nil
  end
  for _, line in ipairs(text.lines(output:sub(start))) do
    local item = line:match("^%s*>%s*(.-)%s*$")
    if item then
      local url = item:match("^MoreInfo:%s*(%S+)")
      if url then
        more_info = url
      else
        list[#list + 1] = item
      end
    end
  end
  return #list > 0 and list or nil, more_info
end

local function failure(output, kind)
  -- "Error Code:10104001  Error Message:The specified ability does not exist" (two spaces).
  local code = output:match("Error Code:%s*(%d+)")
  local message = output:match("Error Message:%s*([^\r\n]*)")
  local headline = output:match("error:%s*([^\r\n]*)")
  local suggestions, more_info = suggestions_of(output)
  message = message and text.trim(message)
  if not message or message == "" then
    message = headline and text.trim(headline)
      or ("aa printed no result: " .. text.tail(output, 400))
  end
  local cause = output:match("Error cause:%s*([^\r\n]*)")
  return {
    ok = false,
    code = code,
    message = message,
    cause = cause and text.trim(cause) or nil,
    suggestions = suggestions,
    more_info = more_info,
    remedy = remedies.lookup(kind, code),
  }
end

-- `aa start -a A -b B [-m M]` → `{ ok, code?, message?, cause?, suggestions?, more_info?,
-- remedy? }`; ok only on "start ability successfully.".
function M.parse_start(output)
  output = output or ""
  -- The code decides, not the words around it (AaToolErrorInfo: "Error Code:<n>  …").
  if output:find("Error Code:%s*%d+") then
    return failure(output, "aa")
  end
  if text.has(output, "start ability successfully.") then
    return { ok = true }
  end
  return failure(output, "aa")
end

-- `aa force-stop com.x` → `{ ok, code?, message?, remedy? }`; ok only on
-- "force stop process successfully.".
function M.parse_force_stop(output)
  output = output or ""
  if text.has(output, "force stop process successfully.") then
    return { ok = true }
  end
  local result = failure(output, "aa")
  if not result.code then
    result.remedy = "the app could not be stopped: check the bundleName and that the device "
      .. "is connected (device_list)"
  end
  return result
end

return M
