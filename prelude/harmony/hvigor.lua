-- Parser for `hvigorw … assembleHap` output. Success is "BUILD SUCCESSFUL" without
-- "COMPILE RESULT:FAIL", never the exit code alone (hvigor's exit code is not reliable).
local text = require("harmony.text")
local remedies = require("harmony.remedies")

local M = {}

-- Drops "\r", the "> hvigor " prefix and trailing spaces.
local function clean(line)
  line = line:gsub("\r", ""):gsub("^> hvigor ?", "")
  return (line:gsub("%s+$", ""))
end

local SEVERITY = { ERROR = "error", WARN = "warning", WARNING = "warning" }

-- A line that starts a new block: no message continues past it.
local function is_header(line)
  return line == ""
    or line:find("^%d*%s*%u+:") ~= nil
    or line:find("^COMPILE RESULT") ~= nil
    or line:find("^%*") ~= nil
end

local function diagnostic(severity, code, message, where)
  local file, line, column = text.location(where)
  if not file then
    return nil
  end
  return {
    file = file,
    line = line,
    column = column,
    code = code,
    message = message,
    severity = severity,
    rule = message:match("%((arkts%-[%w%-]+)%)"),
  }
end

-- Current format: "1 ERROR: 10505001 ArkTS Compiler Error" then
-- "Error Message: ',' expected. At File: E:/…/x.ets:319:26" (possibly over more lines).
local function coded_block(lines, i)
  local word, code = lines[i]:match("^%d*%s*(%u+):%s*(%d%d%d%d%d%d%d%d)%s")
  if not (word and SEVERITY[word]) then
    return nil
  end
  local parts, j = {}, i + 1
  while lines[j] and not is_header(lines[j]) and #parts < 8 do
    parts[#parts + 1] = lines[j]
    if lines[j]:find("At File:", 1, true) then
      break
    end
    j = j + 1
  end
  local body = text.join(parts)
  local where = body:match("At File:%s*(.-)%s*$")
  if not where then
    return nil
  end
  local message = body:match("Message:%s*(.-)%s*At File:") or body:match("^(.-)%s*At File:")
  return diagnostic(SEVERITY[word], code, message, where)
end

-- Older format (and current warnings): "ERROR: ArkTS:ERROR File: D:/…/Index.ets:64:31" with
-- the message on the next line.
local function file_block(lines, i)
  local word, where = lines[i]:match("ArkTS:(%u+)%s+File:%s*(.-)%s*$")
  if not (word and SEVERITY[word]) then
    return nil
  end
  local nxt = lines[i + 1]
  local message = (nxt and not is_header(text.trim(nxt))) and text.trim(nxt) or ""
  return diagnostic(SEVERITY[word], nil, message, where)
end

-- Lines outside WARN blocks (a WARN line and the indented lines after it), so that warnings
-- such as "Will skip sign … configure the signingConfigs" never decide a failure class.
local function error_lines(lines)
  local kept, in_warn = {}, false
  for _, line in ipairs(lines) do
    in_warn = line:find("^%d*%s*WARN:") ~= nil or (in_warn and line:find("^%s") ~= nil)
    if not in_warn then
      kept[#kept + 1] = line
    end
  end
  return kept
end

-- Failure classes, checked in order against the lines outside WARN blocks.
local CLASSES = {
  { "daemon", { "uv_cwd", "[Dd]aemon[^\n]*[Ff]ailed", "ERROR:[^\n]*[Dd]aemon" } },
  {
    "sdk_home",
    {
      "DEVECO_SDK_HOME",
      "OHOS_BASE_SDK_HOME",
      "SDK component missing",
      "Unable to find the following components",
      "00303217",
      "00303168",
    },
  },
  {
    "java_missing",
    {
      "spawn java ENOENT",
      "java: command not found",
      "'java' is not recognized",
      "java: not found",
      "Unable to locate a Java Runtime",
      "JAVA_HOME is not set",
    },
  },
  {
    "signing",
    {
      "Unsupported state or unable to authenticate data",
      "Failed :%S*@Sign",
      "hap%-sign%-tool",
      "sign%-app failed",
      "signingConfig",
      "[Kk]eystore",
    },
  },
  {
    "dependency",
    {
      "ohpm ERROR",
      "NOTFOUND package",
      "00617101",
      "00618005",
      "Fetch Pkg Info Failed",
      "Invalid Dependency",
      "Cannot find module",
      "oh_modules",
    },
  },
  {
    "arkts",
    { "COMPILE RESULT:FAIL", "ArkTS Compiler Error", "ArkTS:ERROR", "@CompileArkTS", "arkts%-%l" },
  },
}

local function first_line(lines, pattern)
  for _, line in ipairs(lines) do
    if line:find(pattern) then
      return line
    end
  end
  return nil
end

-- The last ERROR line that says more than "BUILD FAILED" or which task failed.
local function last_error(lines)
  for i = #lines, 1, -1 do
    local line = lines[i]
    if
      line:find("ERROR")
      and not line:find("BUILD FAILED", 1, true)
      and not line:find("ERROR: Failed :", 1, true)
    then
      return line
    end
  end
  return nil
end

local function classify(lines, errors)
  local kept = error_lines(lines)
  local class, line = "unknown", nil
  for _, entry in ipairs(CLASSES) do
    for _, pattern in ipairs(entry[2]) do
      line = first_line(kept, pattern)
      if line then
        class = entry[1]
        break
      end
    end
    if line then
      break
    end
  end
  if class == "unknown" and #errors > 0 then
    class = "arkts"
  end
  local e = errors[1]
  local message = (class == "arkts" and e)
      and string.format("%s:%d:%d %s", e.file, e.line, e.column or 0, e.message)
    or line
    or last_error(kept)
  local code = message and message:match("%f[%d](%d%d%d%d%d%d%d%d)%f[%D]")
  return { class = class, remedy = remedies.build[class], message = message, code = code }
end

local function add(list, seen, d)
  local key = string.format("%s:%s:%s:%s", d.file, d.line, d.column or "", d.message)
  if not seen[key] then
    seen[key] = true
    list[#list + 1] = d
  end
end

-- parse_build(stdout, stderr, exit_code) → {
--   ok, exit_code, duration? ("32 s 860 ms"), duration_ms?, failed_task? ("entry:default@CompileArkTS"),
--   compile_result? { status = "FAIL"|"PASS", errors, warnings },
--   errors = { { file, line, column, code?, message, severity = "error", rule? } },
--   warnings = { same, severity = "warning" },
--   failure = { class, remedy, message?, code? } | nil,
-- }
-- class: sdk_home, java_missing, arkts, signing, dependency, daemon, unknown.
function M.parse_build(stdout, stderr, exit_code)
  local lines = {}
  for _, raw in ipairs(text.lines((stdout or "") .. "\n" .. (stderr or ""))) do
    lines[#lines + 1] = clean(raw)
  end
  local all = table.concat(lines, "\n")
  local result = { exit_code = exit_code, errors = {}, warnings = {} }
  local seen = {}
  for i = 1, #lines do
    local d = coded_block(lines, i) or file_block(lines, i)
    if d then
      add(d.severity == "error" and result.errors or result.warnings, seen, d)
    end
  end
  -- "COMPILE RESULT:FAIL {ERROR:45 WARN:22}", and without warnings "{ERROR:1}".
  local status, counts = all:match("COMPILE RESULT:(%u+)%s*(%b{})")
  if status then
    result.compile_result = {
      status = status,
      errors = tonumber(counts:match("ERROR:(%d+)")),
      warnings = tonumber(counts:match("WARN:(%d+)")) or 0,
    }
  end
  result.failed_task = all:match("ERROR: Failed :(%S-)%.*%s")
    or all:match("ERROR: Failed :(%S-)%.*$")
  local duration = all:match("BUILD %u+ in ([^\n]*)")
  if duration then
    result.duration = text.trim(duration)
    result.duration_ms = text.duration_ms(duration)
  end
  result.ok = text.has(all, "BUILD SUCCESSFUL")
    and not text.has(all, "COMPILE RESULT:FAIL")
    and not text.has(all, "BUILD FAILED")
  if not result.ok then
    result.failure = classify(lines, result.errors)
  end
  return result
end

--- Refuses with BUILD_FAILED for a build `parse_build` judged failed (`run`: what
--- rein.proc.run returned); `command`, when given, names what ran.
function M.refuse_failed(build, run, command)
  local failure = build.failure or { class = "unknown", remedy = "read the build output" }
  rein.error("BUILD_FAILED", "the build failed (" .. failure.class .. "): " .. failure.remedy, {
    class = failure.class,
    remedy = failure.remedy,
    errors = rein.json.array(build.errors),
    warnings = rein.json.array(build.warnings),
    exit_code = run.code,
    command = command,
    output_tail = run.stdout:sub(-4000),
  })
end

return M
