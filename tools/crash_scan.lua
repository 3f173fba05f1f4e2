local project = require("harmony.project")
local device = require("harmony.device")
local clock = require("harmony.clock")
local crashes = require("harmony.crashes")
local launch = require("harmony.launch")

local function listed(scan, kind)
  local out = rein.json.array({})
  for _, e in ipairs(scan.events) do
    if e.kind == kind then
      out[#out + 1] = crashes.event_evidence(e)
    end
  end
  return out
end

return {
  name = "crash_scan",
  description = "An app's crashes and freezes since a device time (app_launch's launched_at), and "
    .. "with pid whether it runs. Returns {clean, crashes, freezes, fault_logs, alive?, checked}.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = true },
  params = {
    since = {
      type = "string",
      description = "Device time YYYYMMDDHHMMSS (app_launch's launched_at)",
    },
    bundle = {
      type = "string",
      optional = true,
      description = "Bundle name (default: AppScope/app.json5)",
    },
    pid = {
      type = "integer",
      optional = true,
      description = "A process to check is alive (app_launch's pid)",
    },
    target = device.target_param(),
    server = device.server_param(),
  },
  run = function(args)
    local since = clock.parse_date(args.since)
    if not since then
      rein.error(
        "INVALID_ARGS",
        "since must be a device-clock time YYYYMMDDHHMMSS (app_launch's launched_at), not "
          .. args.since,
        { since = args.since }
      )
    end
    local bundle = args.bundle or project.read().bundle_name
    local target = device.pick(args.target, args.server)
    local scan = crashes.scan(target, bundle, since)
    local logs = rein.json.array({})
    for _, log in ipairs(scan.logs) do
      logs[#logs + 1] = crashes.log_evidence(log)
    end
    local result = {
      bundle = bundle,
      since = since.stamp,
      crashes = listed(scan, "crash"),
      freezes = listed(scan, "freeze"),
      fault_logs = logs,
      checked = scan.checked,
    }
    if args.pid then
      local alive = false
      for _, p in ipairs(launch.pids(target, bundle)) do
        alive = alive or p == args.pid
      end
      result.alive = alive
    end
    result.clean = #result.crashes == 0
      and #result.freezes == 0
      and #logs == 0
      and result.alive ~= false
    return result
  end,
}
