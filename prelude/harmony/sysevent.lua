-- Crash and freeze events from hiview: `hisysevent -l -o RELIABILITY -S "YYYY-MM-DD HH:MM:SS"`
-- (hypium-mcp `plugins/collectors/core/stability_collector.py` reads the same domain for
-- JS_ERROR, CPP_CRASH and APP_FREEZE). Each event is one line of JSON whose strings hiview
-- writes without escaping (openharmony/hiviewdfx_hiview `base/event_raw/decoded/decoded_event.cpp`
-- `AsJsonStr`), so a stack or summary can break it: the fields rein needs are read one by one
-- from the line, never by decoding it whole. The fault's fields are those faultlogger writes
-- (`plugins/faultlogger/service/bdfr_base/fault_file/faultlog_database.cpp` `WriteEvent`:
-- `PID`, `UID`, `MODULE`, `REASON`, `SUMMARY`, `LOG_PATH`, `HAPPEN_TIME`); the options are
-- openharmony/hiviewdfx_hisysevent `frameworks/native/hisysevent_tool.cpp` (`-S` is read with
-- mktime: the device's local time, as `date` prints it).
local text = require("harmony.text")

local M = {}

-- The events a launch and a watch look for.
M.FAULTS = { JS_ERROR = "crash", CPP_CRASH = "crash", APP_FREEZE = "freeze" }

-- `hisysevent`'s words listing RELIABILITY events since `since` (a harmony.clock reading).
function M.list_args(since)
  local begin = string.format(
    "%04d-%02d-%02d %02d:%02d:%02d",
    since.year,
    since.month,
    since.day,
    since.hour,
    since.min,
    since.sec
  )
  return { "hisysevent", "-l", "-o", "RELIABILITY", "-S", begin }
end

local function string_field(line, key)
  return line:match('"' .. key .. '":"([^"]*)"')
end

local function number_field(line, key)
  return tonumber(line:match('"' .. key .. '":(%-?%d+)'))
end

-- hisysevent's output → the fault events (JS_ERROR, CPP_CRASH, APP_FREEZE), oldest first, each
-- `{ name, kind = "crash"|"freeze", pid, uid, bundle, reason, summary, log_path, time_ms }`;
-- second, what else it printed when that was not events (an old image, no permission).
function M.parse(output)
  local events, other = {}, nil
  for _, line in ipairs(text.lines(output or "")) do
    local name = string_field(line, "name_")
    if line:find('^%s*{"domain_":') and name then
      if M.FAULTS[name] then
        events[#events + 1] = {
          name = name,
          kind = M.FAULTS[name],
          pid = number_field(line, "PID"),
          uid = number_field(line, "UID"),
          bundle = string_field(line, "MODULE") or string_field(line, "PACKAGE_NAME"),
          reason = string_field(line, "REASON"),
          summary = string_field(line, "SUMMARY"),
          log_path = string_field(line, "LOG_PATH"),
          time_ms = number_field(line, "time_"),
        }
      end
    elseif text.trim(line) ~= "" and not other then
      other = text.trim(line)
    end
  end
  return events, (#events == 0) and other or nil
end

-- The events of `bundle` (and of `pid`, when given).
function M.of(events, bundle, pid)
  local found = {}
  for _, e in ipairs(events) do
    if e.bundle == bundle and (pid == nil or e.pid == pid) then
      found[#found + 1] = e
    end
  end
  return found
end

return M
