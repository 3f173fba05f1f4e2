local device = require("harmony.device")
local readiness = require("harmony.readiness")

return {
  name = "device_ready",
  description = "Make a device ready to install or launch on: booted, screen awake, not locked. "
    .. "Fails with DEVICE_NOT_READY or DEVICE_LOCKED.",
  annotations = { read_only = false, destructive = false, idempotent = true, open_world = true },
  params = {
    target = device.target_param(),
    server = device.server_param(),
    keep_screen_on_ms = {
      type = "integer",
      optional = true,
      description = "Only keep the screen on this long",
    },
    restore_screen_timeout = {
      type = "boolean",
      default = false,
      description = "Only restore the screen-off timeout",
    },
  },
  run = function(args)
    local target = device.pick(args.target, args.server)
    if args.restore_screen_timeout then
      local ok, said = readiness.restore_screen_timeout(target)
      return { ok = ok, evidence = said }
    end
    if args.keep_screen_on_ms then
      local ok, said = readiness.keep_screen_on(target, args.keep_screen_on_ms)
      return { ok = ok, screen_kept_on = ok, evidence = said }
    end
    local ready = readiness.ensure(target)
    ready.ok = true
    return ready
  end,
}
