local device = require("harmony.device")
local device_tests = require("harmony.device_tests")

return {
  name = "device_test",
  description = "Run the project's on-device tests (src/ohosTest, Hypium): build, sign and "
    .. "install the app with its test HAP, run them, and return the counts first, then each test "
    .. "that did not pass with its message and .ets location",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = {
    module = {
      type = "string",
      optional = true,
      description = "Module whose src/ohosTest runs (default: the entry module)",
    },
    product = { type = "string", default = "default" },
    class = {
      type = "string",
      optional = true,
      description = "Only these suites or tests: Suite or Suite#test, comma-separated (-s class)",
    },
    not_class = { type = "string", optional = true, description = "All but these (-s notClass)" },
    it_name = {
      type = "string",
      optional = true,
      description = "Only tests of these names (-s itName)",
    },
    level = { type = "integer", optional = true, description = "Only this level, 0-4 (-s level)" },
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
      description = "Each test's limit in ms (-s timeout; Hypium's default 5000)",
    },
    deadline_s = {
      type = "integer",
      optional = true,
      description = "The whole run's limit in seconds (aa test -w)",
    },
    runner = {
      type = "string",
      optional = true,
      description = "Test runner (default: the file in src/ohosTest/ets/testrunner/)",
    },
    list_first = {
      type = "boolean",
      default = true,
      description = "List the tests with a dry run first, so a run cut short names those that never ran",
    },
    build_timeout_ms = { type = "integer", optional = true, description = "Each build's deadline" },
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
