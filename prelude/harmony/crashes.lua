-- Crashes and freezes of an app over a window, from both of the device's records: the
-- faultlogger's logs (`hidumper -s 1201 -a "-p Faultlogger …"`, harmony.faultlog) and hiview's
-- RELIABILITY events (`hisysevent -l`, harmony.sysevent: JS_ERROR, CPP_CRASH, APP_FREEZE). A
-- launch's proof and the crash_scan tool both read them here.
local device = require("harmony.device")
local clock = require("harmony.clock")
local faultlog = require("harmony.faultlog")
local sysevent = require("harmony.sysevent")

local M = {}

-- At most this many fault logs are read per check (the newest).
local MAX_LOGS = 3

local function hidumper(target, args)
  return device.run_checked(target, { "shell", "hidumper", "-s", "1201", "-a", args })
end

-- The fault logs of `bundle` since `since` (a harmony.clock reading), newest last, each parsed
-- (harmony.faultlog) with its `name` and `type`; nil and the reason when the device does not say.
function M.fault_logs(target, bundle, since)
  local listed, problem =
    faultlog.parse_list(hidumper(target, faultlog.list_args(bundle, clock.second_before(since))))
  if not listed then
    return nil, problem
  end
  local logs = {}
  for i = math.max(1, #listed - MAX_LOGS + 1), #listed do
    local entry = listed[i]
    local log = faultlog.parse_log(hidumper(target, faultlog.show_args(entry.name)))
      or { stack = {} }
    log.name, log.type = entry.name, entry.type
    -- Each frame as the workspace's .ets line (the build's source map), or why not.
    log.source = rein.fs.map_stack(log.stack)
    logs[#logs + 1] = log
  end
  return logs
end

-- hiview's crash and freeze events of `bundle` since `since`; nil and what hisysevent printed
-- when it listed none and printed something else.
function M.events(target, bundle, since)
  local argv = { "shell" }
  for _, word in ipairs(sysevent.list_args(since)) do
    argv[#argv + 1] = word
  end
  local events, other = sysevent.parse(device.run_checked(target, argv))
  if other then
    return nil, "hisysevent printed no events: " .. other
  end
  return sysevent.of(events, bundle)
end

-- Both records of `bundle` since `since`: `{ logs, events, checked }`, where `checked` says in
-- words what could be read (a record that could not be read is named, and the other still counts).
function M.scan(target, bundle, since)
  local logs, log_problem = M.fault_logs(target, bundle, since)
  local events, event_problem = M.events(target, bundle, since)
  local checked = {}
  checked[#checked + 1] = logs and "fault logs read"
    or ("fault logs unreadable (" .. log_problem .. ")")
  checked[#checked + 1] = events and "crash and freeze events read"
    or ("events unreadable (" .. event_problem .. ")")
  return { logs = logs or {}, events = events or {}, checked = table.concat(checked, "; ") }
end

-- The newest fault log of `pid` (any pid when nil).
function M.log_of(scan, pid)
  for i = #scan.logs, 1, -1 do
    if pid == nil or scan.logs[i].pid == pid then
      return scan.logs[i]
    end
  end
  return nil
end

-- The newest event of `pid` (any pid when nil) of `kind` ("crash" or "freeze"; any when nil).
function M.event_of(scan, pid, kind)
  for i = #scan.events, 1, -1 do
    local e = scan.events[i]
    if (pid == nil or e.pid == pid) and (kind == nil or e.kind == kind) then
      return e
    end
  end
  return nil
end

-- A fault log as evidence.
function M.log_evidence(log)
  if not log then
    return nil
  end
  return {
    file = log.name,
    type = log.type,
    pid = log.pid,
    reason = log.reason,
    error_name = log.error_name,
    error_message = log.error_message,
    stack = rein.json.array(log.stack or {}),
    source = rein.json.array(log.source or {}),
    first_lines = rein.json.array(log.first_lines or {}),
  }
end

-- An event as evidence.
function M.event_evidence(event)
  if not event then
    return nil
  end
  return {
    event = event.name,
    pid = event.pid,
    reason = event.reason,
    summary = event.summary,
    log_path = event.log_path,
    time_ms = event.time_ms,
  }
end

return M
