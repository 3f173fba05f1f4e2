-- Preflight, build, sign (when hvigor did not), install, and prove that this launch runs: a new
-- process that stays alive with no fault log, and the caller's log text on one of its lines.
local config = require("harmony.config")
local deploy = require("harmony.deploy")
local device = require("harmony.device")
local device_tests = require("harmony.device_tests")
local evidence = require("harmony.evidence")

return {
  name = "sign-install-launch",
  description = "Preflight, build, sign, install and a proven launch; the screen kept "
    .. "(expect_text checks it).",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = device_tests.after_launch_params({
    target = { type = "string", optional = true },
    server = {
      type = "string",
      optional = true,
      description = "Only devices of this hdc server (device_list's server)",
    },
    module = {
      type = "string",
      optional = true,
    },
    product = { type = "string", default = "default" },
    expect_log = {
      type = "string",
      optional = true,
      description = "Text a log line of the new process must show",
    },
    expect_text = {
      type = "string",
      optional = true,
    },
    reinstall = { type = "boolean", default = false },
    wait_ms = {
      type = "integer",
      default = 10000,
    },
  }),
  budget = { time_s = 3600, spawns = 200 },
  steps = {
    {
      name = "preflight",
      description = "Before any build: the product has a signing path (hvigor signs with the "
        .. "signingConfig it names, or hap-sign-tool with passwords from the variables home "
        .. "config.toml names; unsigned when the project has none and the device is an "
        .. "emulator), a device is connected and authorized (or target names one that is), and "
        .. "the configuration passes config_check.",
      run = function(ctx)
        -- The signing path first (its own code and remedy), then the whole configuration.
        local plan = deploy.project_and_signing(ctx.args)
        config.preflight()
        local key, d = deploy.one_device(deploy.devices(ctx, ctx.args.server), ctx.args.target)
        plan.target, plan.server = key, deploy.server_of(d)
        return deploy.settle_signing(plan, { d })
      end,
      verify = function(_, out)
        local how = out.signing.path == "unsigned" and ("unsigned: " .. out.signing.why)
          or string.format(
            "signed by %s (signingConfig %s)",
            out.signing.path,
            out.signing.signing_config
          )
        return true, string.format("device %s ready; %s %s", out.target, out.bundle, how)
      end,
    },
    deploy.build_step(),
    deploy.sign_step(),
    deploy.install_step({ "hdc install", "hdc uninstall (reinstall=true)" }),
    deploy.launch_step({
      "hdc shell aa start",
      "hdc shell aa force-stop (when the app already runs)",
    }),
    {
      name = "screen",
      description = "The launched app's screen into the run's folder: screenshot "
        .. "(snapshot_display), UI tree (uitest dumpLayout) and its text, each received and "
        .. "removed from the device; with expect_text the text must be on screen. What could not "
        .. "be taken is named in the report, and fails the step only when expect_text needs it.",
      approvals = { "hdc shell snapshot_display" },
      run = function(ctx)
        local plan = ctx.outputs.preflight
        return deploy.with_screen_on(ctx, plan.target, plan.server, function()
          return evidence.capture(ctx, plan.target, plan.server, ctx.args.expect_text)
        end)
      end,
      verify = function(ctx, out)
        return evidence.verify(ctx, out, ctx.args.expect_text)
      end,
    },
    {
      name = "tests",
      description = "With device_tests=true, after the proven launch: the test HAP built and "
        .. "signed, installed with the app's packages, and the on-device tests run (the verdict "
        .. "from the per-test codes); otherwise nothing runs and the step says so.",
      approvals = { "hdc install (with device_tests)", "hdc shell aa test (with device_tests)" },
      run = function(ctx)
        local test_hap = device_tests.test_package_after_launch(ctx.args)
        if not test_hap then
          return { asked = false }
        end
        local plan = ctx.outputs.preflight
        local target = device.pick(plan.target, plan.server)
        local result =
          device_tests.run_after_launch(ctx.args, target, ctx.outputs.sign.packages, test_hap)
        result.asked = true
        return result
      end,
      verify = function(_, out)
        if not out.asked then
          return true, "device tests not asked for (device_tests = false): nothing ran"
        end
        return out.ok == true and out.verdict == "passed", out.message
      end,
    },
  },
}
