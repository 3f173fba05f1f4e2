-- Parser for `ohpm install` output. Success is "install completed" with no "ohpm ERROR" line
-- and a zero (or unknown) exit code.
local text = require("harmony.text")
local remedies = require("harmony.remedies")

local M = {}

local function kind_of(message)
  if message:find("NOTFOUND") or message:find("00617101") or message:find("not found from all") then
    return "not_found"
  elseif message:find("00618005") or message:find("Invalid Dependency") then
    return "invalid_dependency"
  elseif message:find("JSON5:") then
    return "json5"
  elseif
    message:find("ETIMEDOUT")
    or message:find("ECONNREFUSED")
    or message:find("ENOTFOUND")
    or message:find("getaddrinfo")
    or message:find("network")
  then
    return "network"
  end
  return "unknown"
end

-- Errors: each "ohpm ERROR:" line, with the "Error Message:" and NOTFOUND lines after it.
local function collect(lines)
  local errors, current = {}, nil
  for _, raw in ipairs(lines) do
    local line = text.trim(raw)
    local message = line:match("^ohpm ERROR:%s*(.*)$")
    if message then
      current = { message = message, code = message:match("Error:%s*(%d%d%d%d%d%d%d%d)") }
      errors[#errors + 1] = current
    elseif current and line ~= "" and not line:find("^ohpm %u+:") then
      current.message = current.message .. " " .. (line:gsub("^Error Message:%s*", ""))
    elseif line:find("^ohpm %u+:") then
      current = nil
    end
  end
  for _, e in ipairs(errors) do
    e.package = e.message:match("package '([^']+)' not found")
    e.kind = kind_of(e.message)
    e.remedy = remedies.ohpm[e.kind]
  end
  return errors
end

-- parse_install(stdout, stderr, exit_code) → `{ ok, duration?, duration_ms?, packages,
-- errors = { { message, code?, package?, kind, remedy } }, remedy? }`; `packages` lists the
-- "name" of each "fetch package done" line; kind: not_found, invalid_dependency, json5,
-- network, unknown.
function M.parse_install(stdout, stderr, exit_code)
  local all = (stdout or "") .. "\n" .. (stderr or "")
  local lines = text.lines(all)
  local errors = collect(lines)
  local packages = {}
  for name in all:gmatch("fetch package done%s+%d*%s*(%S+)") do
    packages[#packages + 1] = name
  end
  local duration = all:match("install completed in ([^\r\n]*)")
  local result = {
    ok = duration ~= nil and #errors == 0 and (exit_code == nil or exit_code == 0),
    packages = packages,
    errors = errors,
  }
  if duration then
    result.duration = text.trim(duration)
    result.duration_ms = text.duration_ms(duration)
  end
  if not result.ok then
    result.remedy = errors[1] and errors[1].remedy or remedies.ohpm.unknown
  end
  return result
end

-- `ohpm ping` → `{ ok, registry?, ms? }` from "ohpm INFO: PING <reg>" / "ohpm INFO: PONG 255ms".
function M.parse_ping(output)
  output = output or ""
  local ms = output:match("PONG%s+(%d+)%s*ms")
  return {
    ok = ms ~= nil,
    registry = output:match("PING%s+(%S+)"),
    ms = tonumber(ms),
  }
end

return M
