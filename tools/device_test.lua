local device = require("harmony.device")
local device_tests = require("harmony.device_tests")

return {
  name = "device_test",
  description = "Build, install and run the project's on-device tests. Returns the counts and "
    .. "each failing test with its message and .ets location.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = {
    module = {
      type = "string",
      optional = true,
      description = "Module (default: the entry module)",
    },
    product = { type = "string", default = "default" },
    class = {
      type = "string",
      optional = true,
      description = "Suite or Suite#test, comma-separated",
    },
    not_class = { type = "string", optional = true, description = "All but these suites or tests" },
    it_name = {
      type = "string",
      optional = true,
      description = "Only tests of these names",
    },
    level = { type = "integer", optional = true, description = "Only this level, 0-4" },
    size = { type = "string", optional = true, enum = { "small", "medium", "large" } },
    test_type = {
      type = "string",
      optional = true,
      enum = {
        "function",
        "performance",
        "power",
        "reliability",
        "security",
        "global",
        "compatibility",
        "user",
        "standard",
        "safety",
        "resilience",
      },
    },
    timeout_ms = {
      type = "integer",
      optional = true,
      description = "Each test's limit, ms",
    },
    deadline_s = {
      type = "integer",
      optional = true,
      description = "The whole run's limit, seconds",
    },
    runner = {
      type = "string",
      optional = true,
      description = "Test runner (default: the project's)",
    },
    list_first = {
      type = "boolean",
      default = true,
      description = "List the tests first, so a cut run names those not run",
    },
    build_timeout_ms = {
      type = "integer",
      optional = true,
      description = "Each build's deadline, " .. "ms",
    },
    target = device.target_param(),
    server = device.server_param(),
  },
  run = function(args)
    local plan = device_tests.plan(args)
    local target = device.pick(args.target, args.server)
    device_tests.build(plan, args.build_timeout_ms)
    local packages = device_tests.sign(plan)
    local installed = device_tests.install(target, packages)
    local result = device_tests.run(plan, target, args)
    result.packages = packages
    result.installed_from = installed
    return result
  end,
}
