-- Running hdc against one device, with hdc's [Fail] lines turned into structured errors
-- (hdc always exits 0: only its text says what happened).
local hdc_parse = require("harmony.hdc")

local M = {}

--- hdc [-t target] args...; returns stdout and stderr joined.
function M.run(target, args, opts)
  local argv = {}
  if target then
    argv = { "-t", target }
  end
  for _, arg in ipairs(args) do
    table.insert(argv, arg)
  end
  local result = rein.proc.run("hdc", argv, opts)
  local text = result.stdout
  if result.stderr ~= "" then
    text = text .. result.stderr
  end
  return text, result
end

--- Raises DEVICE_UNAVAILABLE when the output is one of hdc's [Fail] lines.
function M.check(text)
  local fail = hdc_parse.fail_line(text)
  if fail then
    rein.error("DEVICE_UNAVAILABLE", fail.message .. ". " .. fail.remedy, fail)
  end
end

--- Raises `code` for a parsed hdc/aa/bm result that is not ok: "<what> failed <code>:
--- <message>. <remedy>", with the parsed result as details.
function M.fail(code, what, result, text)
  local number = result.code and (" " .. result.code) or ""
  local message = what .. " failed" .. number .. ": " .. (result.message or text)
  if result.remedy then
    message = message .. ". " .. result.remedy
  end
  rein.error(code, message, result)
end

--- Runs and checks in one step.
function M.run_checked(target, args, opts)
  local text, result = M.run(target, args, opts)
  M.check(text)
  return text, result
end

return M
