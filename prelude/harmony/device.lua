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
  if result.code ~= 0 then
    -- The client always ends in _exit(0) (developtools_hdc src/host/main.cpp): any other end
    -- means hdc itself did not run, and its output is not hdc's to read as devices or results.
    local why = result.code and ("exited " .. result.code) or "was killed"
    local first = (
      result.stderr:match("[^\n]*%S[^\n]*")
      or result.stdout:match("[^\n]*%S[^\n]*")
      or ""
    )
    rein.error(
      "DEVICE_UNAVAILABLE",
      "hdc " .. why .. ", which hdc never does when it runs (it always exits 0): " .. first,
      {
        exit_code = result.code,
        signal = result.signal,
        remedy = "check the hdc rein found with `rein doctor`",
      }
    )
  end
  local text = result.stdout
  if result.stderr ~= "" then
    text = text .. result.stderr
  end
  return text, result
end

--- "<message>. <remedy>", without a second full stop when the message has one (bm's messages
--- end with "." already: `install sign info inconsistent.`).
local function with_remedy(message, remedy)
  if message:match("[.!?]$") then
    return message .. " " .. remedy
  end
  return message .. ". " .. remedy
end

--- Raises DEVICE_UNAVAILABLE when the output is one of hdc's [Fail] lines.
function M.check(text)
  local fail = hdc_parse.fail_line(text)
  if fail then
    rein.error("DEVICE_UNAVAILABLE", with_remedy(fail.message, fail.remedy), fail)
  end
end

--- Raises `code` for a parsed hdc/aa/bm result that is not ok: "<what> failed <code>:
--- <message>. <remedy>", with the parsed result as details.
function M.fail(code, what, result, text)
  local number = result.code and (" " .. result.code) or ""
  local message = what .. " failed" .. number .. ": " .. (result.message or text)
  if result.remedy then
    message = with_remedy(message, result.remedy)
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
