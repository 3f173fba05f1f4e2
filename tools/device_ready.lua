local device = require("harmony.device")
local readiness = require("harmony.readiness")

return {
  name = "device_ready",
  description = "Make sure a device can take an install or a launch: its boot is complete (param "
    .. "get bootevent.boot.completed), its screen woken (power-shell wakeup) and its lock screen "
    .. "not up (hidumper -s ScreenlockService -a -all). With keep_screen_on_ms it only keeps the "
    .. "screen on that long (power-shell timeout -o); with restore_screen_timeout it only brings "
    .. "the device's own timeout back (power-shell timeout -r). Fails with "
    .. "DEVICE_NOT_READY (still booting) or DEVICE_LOCKED (unlock it: rein cannot).",
  annotations = { read_only = false, destructive = false, idempotent = true, open_world = true },
  params = {
    target = device.target_param(),
    server = device.server_param(),
    keep_screen_on_ms = {
      type = "integer",
      optional = true,
      description = "Keep the screen on this long (power-shell timeout -o)",
    },
    restore_screen_timeout = {
      type = "boolean",
      default = false,
      description = "Only restore the device's screen-off timeout (power-shell timeout -r)",
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
