local hdc = require("harmony.hdc")
local device = require("harmony.device")
local project = require("harmony.project")

return {
  name = "app_uninstall",
  description = "Uninstall an app from a device, confirmed by the device.",
  annotations = { read_only = false, destructive = true, idempotent = true, open_world = true },
  params = {
    bundle = {
      type = "string",
      optional = true,
    },
    target = device.target_param(),
    server = device.server_param(),
  },
  run = function(args)
    local bundle = project.bundle(args.bundle)
    local text = device.run_checked(
      device.named(device.pick(args.target, args.server)),
      { "uninstall", bundle }
    )
    local result = hdc.parse_uninstall(text)
    if not result.ok then
      device.fail("UNINSTALL_FAILED", "uninstall", result, text)
    end
    return { ok = true, bundle = bundle }
  end,
}
