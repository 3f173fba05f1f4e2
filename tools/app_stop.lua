local hdc = require("harmony.hdc")
local device = require("harmony.device")
local project = require("harmony.project")

return {
  name = "app_stop",
  description = "Force-stop an app on a device; STOP_FAILED unless the device confirms it.",
  annotations = { read_only = false, destructive = true, idempotent = true, open_world = true },
  params = {
    bundle = {
      type = "string",
      optional = true,
      description = "Bundle name (default: the project's)",
    },
    target = device.target_param(),
    server = device.server_param(),
  },
  run = function(args)
    local bundle = project.bundle(args.bundle)
    local text = device.run_checked(
      device.pick(args.target, args.server),
      { "shell", "aa", "force-stop", bundle }
    )
    local result = hdc.parse_force_stop(text)
    if not result.ok then
      device.fail("STOP_FAILED", "force-stop", result, text)
    end
    return { ok = true, bundle = bundle }
  end,
}
