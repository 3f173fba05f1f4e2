-- The project's on-device tests as a recipe: each phase a step of the report (preflight, build
-- of the app and its test HAP, signing both, one install of both, the run), the verdict from
-- the per-test codes and the Tests run line (harmony.hypium), every test in the report.
local deploy = require("harmony.deploy")
local device = require("harmony.device")
local device_tests = require("harmony.device_tests")

local function target_of(ctx)
  local pre = ctx.outputs.preflight
  return { key = pre.target, server = pre.server_address }
end

return {
  name = "test",
  description = "device_test as reported steps: preflight → build (app and test HAP) → sign → "
    .. "install together → tests; passes only when every test passed.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = device_tests.params(),
  budget = { time_s = 3600, spawns = 200 },
  steps = {
    {
      name = "preflight",
      description = "Before any build: the module has src/ohosTest, the product a signing "
        .. "path, and one device is connected and authorized (or target names one that is).",
      run = function(ctx)
        local plan = device_tests.plan(ctx.args)
        local key, d = deploy.one_device(deploy.devices(ctx, ctx.args.server), ctx.args.target)
        local picked = device.pick(key, deploy.server_of(d))
        return {
          target = key,
          server = deploy.server_of(d),
          server_address = picked.server,
          bundle = plan.bundle,
          module = plan.module.name,
          test_module = plan.test_module,
          runner = plan.runner,
          signing = plan.signing,
        }
      end,
      verify = function(_, out)
        return true,
          ("device %s ready; %s tests of %s (%s, runner %s), signed by %s"):format(
            out.target,
            out.test_module,
            out.bundle,
            out.module,
            out.runner,
            out.signing.path
          )
      end,
    },
    {
      name = "build",
      run = function(ctx)
        local plan = device_tests.plan(ctx.args)
        device_tests.build(plan, ctx.args.build_timeout_ms)
        return { module = plan.module.name }
      end,
      verify = function(_, out)
        return true, "BUILD SUCCESSFUL for the app and " .. out.module .. "@ohosTest"
      end,
    },
    {
      name = "sign",
      run = function(ctx)
        return { packages = device_tests.sign(device_tests.plan(ctx.args)) }
      end,
      verify = function(_, out)
        for _, path in ipairs(out.packages) do
          if not rein.fs.exists(path) then
            return false, path .. " is missing"
          end
        end
        return true, table.concat(out.packages, ", ")
      end,
    },
    {
      name = "install",
      approvals = { "hdc install (the app's packages and its test HAP, one transaction)" },
      run = function(ctx)
        local staged = device_tests.install(target_of(ctx), ctx.outputs.sign.packages)
        return { ok = true, staged = staged, packages = ctx.outputs.sign.packages }
      end,
      verify = function(_, out)
        return out.ok == true, #out.packages .. " packages installed together from " .. out.staged
      end,
    },
    {
      name = "tests",
      approvals = { "hdc shell aa test" },
      run = function(ctx)
        return device_tests.run(device_tests.plan(ctx.args), target_of(ctx), ctx.args)
      end,
      verify = function(_, out)
        -- The per-test codes and the Tests run line decided `verdict`; the end-of-run codes
        -- never do (harmony.hypium).
        return out.ok == true and out.verdict == "passed" and out.counts.total > 0, out.message
      end,
    },
  },
}
