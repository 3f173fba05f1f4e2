local device = require("harmony.device")
local device_tests = require("harmony.device_tests")

return {
  name = "device_test",
  description = "Build, install and run the project's on-device tests; returns counts, then "
    .. "each failure with its .ets place.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = device_tests.params(),
  run = function(args)
    local plan = device_tests.plan(args)
    local target = device.named(device.pick(args.target, args.server))
    device_tests.build(plan, args.build_timeout_ms)
    local packages = device_tests.sign(plan)
    local installed = device_tests.install(target, packages)
    local result = device_tests.run(plan, target, args)
    result.packages = packages
    result.installed_from = installed
    return result
  end,
}
