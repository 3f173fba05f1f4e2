-- Parsers for hdc output. hdc exits 0 even when it failed, so these decide success from the
-- text alone, and only on the exact success message. Every failure carries `code` (a string),
-- `message` and a one-line `remedy`.
local text = require("harmony.text")
local remedies = require("harmony.remedies")
local aa = require("harmony.aa")

local M = {}

-- hdc prints these without an E-code (or with one rein does not know); rein names them so a
-- caller can branch on `code`. First match wins.
local NAMED_FAILURES = {
  { "Not match target founded", "TARGET_NOT_FOUND" },
  { "need connect%-key", "NEED_CONNECT_KEY" },
  { "Not any installation package", "E006001" },
  { "Device not found or connected", "E001005" },
  { "device unauthorized", "E000002" },
  { "denied the access", "E000003" },
  { "communication channel is being established", "E000004" },
  { "IP address incorrect", "E001104" },
  { "Transfer Stop at", "TRANSFER_STOPPED" },
  { "Error opening file", "FILE_OPEN_FAILED" },
  { "Connect server failed", "SERVER_UNREACHABLE" },
  { "connect failed status", "SERVER_UNREACHABLE" },
  { "Connect failed", "CONNECT_FAILED" },
}

local function named_failure(message)
  for _, entry in ipairs(NAMED_FAILURES) do
    if message:find(entry[1]) then
      return entry[2]
    end
  end
  return nil
end

-- A line that cannot continue a multi-line [Fail] message.
local function ends_message(line)
  local t = text.trim(line)
  return t == "" or t:sub(1, 1) == "[" or t == "AppMod finish" or t:find("^FileTransfer finish")
end

local function failure_of(parts)
  local message = text.join(parts)
  local code = message:match("^%[(E%d+)%]")
  message = message:gsub("^%[E%d+%]%s*:?%s*", "")
  local named = named_failure(message)
  code = code or named or "HDC_FAIL"
  local remedy = remedies.hdc[code] or (named and remedies.hdc[named]) or remedies.hdc.HDC_FAIL
  return { ok = false, code = code, message = message, remedy = remedy }
end

-- The first line of any hdc output that starts with `[Fail]` (they can answer every
-- command), plus the hdc server being unreachable, as `{ ok = false, code, message, remedy }`; nil when there is none.
-- `code` is the bracketed E-code (E001005, E000002, E000003, E006001, …) or one of
-- TARGET_NOT_FOUND, NEED_CONNECT_KEY, TRANSFER_STOPPED, FILE_OPEN_FAILED, CONNECT_FAILED,
-- SERVER_UNREACHABLE, HDC_FAIL.
function M.fail_line(output)
  local lines = text.lines(output)
  for i, line in ipairs(lines) do
    -- hdc prints [Fail] at the start of its own line; the same text inside a line is someone
    -- else's (an app's log message in hilog output).
    if line:sub(1, 6) == "[Fail]" then
      local parts = { line:sub(7) }
      -- A message with "\r\n" inside (E000002, E000003) goes on over lines ending in "\r".
      local j = i
      while lines[j]:sub(-1) == "\r" and lines[j + 1] and not ends_message(lines[j + 1]) do
        j = j + 1
        parts[#parts + 1] = lines[j]
      end
      return failure_of(parts)
    end
    if line:find("^Connect server failed") or line:find("^connect failed status") then
      return failure_of({ line })
    end
  end
  return nil
end

local function unrecognised(output, what)
  return {
    ok = false,
    message = "hdc printed no " .. what .. " result: " .. text.tail(output, 400),
    remedy = "check the device with device_list and retry; the output is in message",
  }
end

local CONNECTIONS = { USB = true, TCP = true, UART = true, BT = true, UNKNOWN = true }

local function fields_of(line)
  local fields = {}
  for field in (line .. "\t"):gmatch("([^\t]*)\t") do
    fields[#fields + 1] = text.trim(field)
  end
  return fields
end

-- `<key>\t\tUSB\tConnected\t<name>\thdc`; empty fields keep their place.
local function verbose_target(fields)
  local target = { key = fields[1] }
  for i = 2, #fields do
    if CONNECTIONS[fields[i]:upper()] then
      target.conn = fields[i]
      local s = i + 1
      while fields[s] == "" do
        s = s + 1
      end
      target.status = fields[s]
      local name = fields[s + 1]
      if name and name ~= "" and not (s + 1 == #fields and name == "hdc") then
        target.name = name
      end
      return target
    end
  end
  return nil
end

-- A connect key as hdc prints one: a serial or `host:port` (letters, digits, `.`, `:`, `_`,
-- `-`; the kernel's ConnectKey), at most 64 characters. A line whose first field is anything
-- else (`'/…/python311.zip',` from a failing wrapper) is no device.
local function connect_key(key)
  return #key <= 64 and key:find("^[%w.:_%-]+$") ~= nil and key:sub(1, 1) ~= "-"
end

local function target_of(line, verbose)
  local fields = fields_of(line)
  local key = fields[1]
  if not connect_key(key) then
    return nil
  end
  local target
  if verbose ~= false then
    target = verbose_target(fields)
  end
  if not target then
    local status = fields[2]
    target = { key = key, status = (status and status ~= "") and status or "Connected" }
  end
  target.status = target.status or "Unknown"
  target.remedy = remedies.device[target.status]
  return target
end

-- `hdc list targets [-v]` → list of `{ key, conn?, status, name?, remedy? }` and, second, the
-- failure from `fail_line` if hdc could not list at all. "[Empty]" gives an empty list.
-- Without -v a listed key is "Connected" unless a status follows it (`key\tUnauthorized`).
-- `verbose` nil: detect the -v form from the line.
function M.parse_targets(output, verbose)
  local targets = {}
  local fail = M.fail_line(output)
  if fail then
    return targets, fail
  end
  for _, line in ipairs(text.lines(output)) do
    line = line:gsub("\r$", "")
    local t = text.trim(line)
    if t ~= "" and t:sub(1, 1) ~= "[" then
      local target = target_of(line, verbose)
      if not target then
        return {}, M.not_a_target(line, output)
      end
      targets[#targets + 1] = target
    end
  end
  return targets, nil
end

-- What a program printed, for a message: its last 400 characters, or that it printed nothing.
function M.printed(output)
  local t = text.trim(output or "")
  return t == "" and "nothing" or ("`" .. text.tail(t, 400) .. "`")
end

-- A `list targets` line that is no connect key: whatever printed it is not hdc's device list,
-- so no line of it is a device.
function M.not_a_target(line, output)
  return {
    ok = false,
    code = "NOT_A_TARGET",
    message = "`hdc list targets` printed a line that is not a connect key: `"
      .. text.trim(line)
      .. "` (all it printed: "
      .. M.printed(output)
      .. ")",
    remedy = remedies.hdc.NOT_HDC,
  }
end

-- "[Info]App install path:<path>[, queuesize:0], msg:…" → path (nil when empty).
local function app_path(output)
  local path = output:match("App %a+ path:([^\r\n]-),%s*queuesize:%d+,%s*msg:")
    or output:match("App %a+ path:([^\r\n]-)%s*msg:")
  path = path and text.trim(path)
  return path ~= "" and path or nil
end

-- `code:9568320 error: no signature file.`, on one line (hdc) or over several (bm).
local function bm_error(output)
  local code, after = output:match("code:%s*(%d+)()")
  if not code then
    return nil
  end
  local message = output:sub(after):match("^%s*error:%s*([^\r\n]*)")
  return code, message and text.trim(message) or nil
end

local function bm_result(output, success, kind)
  output = output or ""
  local fail = M.fail_line(output)
  if fail then
    return fail
  end
  local path = app_path(output)
  local code, message = bm_error(output)
  if code then
    return {
      ok = false,
      path = path,
      code = code,
      message = message,
      remedy = remedies.lookup(kind, code),
    }
  end
  if text.has(output, success) then
    return { ok = true, path = path }
  end
  local result = unrecognised(output, kind)
  result.path = path
  return result
end

-- `hdc install [-r] x.hap` → `{ ok, path?, code?, message?, remedy? }`; ok only on
-- "install bundle successfully." with no bm error code. Old (", queuesize:0, ") and new forms.
function M.parse_install(output)
  return bm_result(output, "install bundle successfully.", "install")
end

-- `hdc uninstall com.x` → `{ ok, code?, message?, remedy? }`.
function M.parse_uninstall(output)
  return bm_result(output, "uninstall bundle successfully.", "uninstall")
end

-- `hdc shell aa start …` → `{ ok, code?, message?, cause?, suggestions?, remedy? }`; ok only on
-- "start ability successfully.". See harmony.aa.
function M.parse_aa_start(output)
  return M.fail_line(output) or aa.parse_start(output)
end

-- `hdc shell aa force-stop com.x` → `{ ok, code?, message?, remedy? }`.
function M.parse_force_stop(output)
  return M.fail_line(output) or aa.parse_force_stop(output)
end

local function number_after(output, label)
  return tonumber(output:match(label .. "%s*=?%s*([%d%.]+)"))
end

-- `hdc file send|recv` → `{ ok, size?, files?, time_ms?, rate_kbps? }` from
-- "FileTransfer finish, Size:10, File count = 1, time:0ms rate:100kB/s", or a failure.
function M.parse_file_transfer(output)
  local fail = M.fail_line(output)
  if fail then
    return fail
  end
  local line = (output or ""):match("FileTransfer finish[^\r\n]*")
  if not line then
    return unrecognised(output or "", "file transfer")
  end
  return {
    ok = true,
    size = number_after(line, "Size:"),
    files = number_after(line, "File count"),
    time_ms = number_after(line, "time:"),
    rate_kbps = number_after(line, "rate:"),
  }
end

-- `hdc shell snapshot_display -f /data/local/tmp/x.jpeg` → `{ ok, path?, format?, width?,
-- height?, display? }` from "success: snapshot display 0 , write to <path> as jpeg, width: W,
-- height: H" (older builds: "width W, height H").
function M.parse_snapshot(output)
  output = output or ""
  local fail = M.fail_line(output)
  if fail then
    return fail
  end
  local line = output:match("success: snapshot[^\r\n]*")
  if not line then
    local err = output:match("error:?%s*([^\r\n]*)")
    return {
      ok = false,
      message = err and text.trim(err) or ("no snapshot was taken: " .. text.tail(output, 400)),
      remedy = "unlock the device screen and pass a path ending in .jpeg under /data/local/tmp",
    }
  end
  return {
    ok = true,
    display = tonumber(line:match("display%s+(%d+)")),
    path = line:match("write to%s+(.-)%s+as%s+%a+"),
    format = line:match("%s+as%s+(%a+)"),
    width = number_after(line, "width:?"),
    height = number_after(line, "height:?"),
  }
end

local function json_field(json, key)
  local s = json:match('"' .. key .. '"%s*:%s*"([^"]*)"')
  if s then
    return s
  end
  local v = json:match('"' .. key .. '"%s*:%s*([%w%.%-]+)')
  if v == "true" or v == "false" then
    return v == "true"
  end
  return tonumber(v)
end

-- `hdc shell bm dump -n com.x` → `{ ok, installed, bundle_name?, version_code?,
-- version_name?, app_provision_type?, main_element?, install_time?, update_time?, json? }`;
-- `json` is the dump's JSON text (decode it with rein.json.decode for other fields).
-- Not installed: `{ ok = false, installed = false, message, remedy }`.
function M.parse_bm_dump(output)
  output = output or ""
  local fail = M.fail_line(output)
  if fail then
    return fail
  end
  local json = output:match("%b{}")
  if not json then
    local err = output:match("error:%s*([^\r\n]*)")
    return {
      ok = false,
      installed = false,
      message = err and text.trim(err) or ("bm dump printed no bundle: " .. text.tail(output, 400)),
      remedy = "the app is not installed on this device: install it first (app_install) or "
        .. "check the bundleName",
    }
  end
  return {
    ok = true,
    installed = true,
    bundle_name = json_field(json, "bundleName") or output:match("^%s*([%w%._]+):"),
    version_code = json_field(json, "versionCode"),
    version_name = json_field(json, "versionName"),
    app_provision_type = json_field(json, "appProvisionType"),
    main_element = json_field(json, "mainElementName") or json_field(json, "mainAbility"),
    install_time = json_field(json, "installTime"),
    update_time = json_field(json, "updateTime"),
    json = json,
  }
end

-- `hdc shell bm get -u` → the device UDID ("udid of current device is :" then the UDID), or nil.
function M.parse_udid(output)
  return (output or ""):match("udid of current device is%s*:%s*(%w+)")
end

-- `hdc shell pidof <bundle>` (toybox pidof: the pids on one line, nothing when none runs) →
-- the pids as numbers, and second, any other text it printed (an error), else nil.
function M.parse_pidof(output)
  local pids, other = {}, {}
  for _, line in ipairs(text.lines(output or "")) do
    local t = text.trim(line)
    if t:find("^[%d%s]+$") then
      for pid in t:gmatch("%d+") do
        pids[#pids + 1] = tonumber(pid)
      end
    elseif t ~= "" then
      other[#other + 1] = t
    end
  end
  return pids, #other > 0 and table.concat(other, " ") or nil
end

-- `hdc -v` / `hdc version` → "3.2.0f" from "Ver: 3.2.0f", or nil.
function M.parse_version(output)
  return (output or ""):match("Ver:%s*(%S+)")
end

return M
