-- A flow written as data in the workspace (a JSON list of steps), run on the app after a proven
-- launch: each step an action on the screen (tap, type, swipe, key: proven as the ui_* tools
-- prove them, harmony/ui_act.lua), a wait, an expectation, a screenshot or a launch. After every
-- step the screen (screenshot, UI tree and its text) is kept in the run's folder as
-- `screen-step-<n>.jpeg`, `layout-step-<n>.json|txt`, and a line of evidence says what the step
-- did and what changed. A failed step names the step, what was expected and what the screen
-- showed. docs/src/ui.md.
local deploy = require("harmony.deploy")
local flows = require("harmony.ui_flow")

return {
  name = "ui-flow",
  description = "A proven launch, then the workspace's flow file step by step, each step's "
    .. "screen kept.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = {
    flow = { type = "string", description = "The flow: a JSON file in the workspace" },
    target = { type = "string", optional = true },
    server = { type = "string", optional = true },
    module = { type = "string", optional = true },
    product = { type = "string", default = "default" },
    reinstall = { type = "boolean", default = false },
    wait_ms = { type = "integer", default = 10000 },
  },
  budget = { time_s = 3600, spawns = 2000 },
  steps = {
    {
      name = "preflight",
      description = "Before any build: the flow file reads as a flow, the product has a signing "
        .. "path and a device is connected and authorized.",
      run = function(ctx)
        local flow = flows.read(ctx.args.flow)
        local plan = deploy.project_and_signing(ctx.args)
        local key, d = deploy.one_device(deploy.devices(ctx, ctx.args.server), ctx.args.target)
        plan.target, plan.server, plan.flow = key, deploy.server_of(d), flow
        return plan
      end,
      verify = function(_, out)
        return true, "device " .. out.target .. " ready; a flow of " .. #out.flow .. " steps"
      end,
    },
    deploy.build_step(),
    deploy.sign_step(),
    deploy.install_step({ "hdc install" }),
    deploy.launch_step({ "hdc shell aa start" }),
    {
      name = "flow",
      description = "The flow's steps, each proven on the screen; after each the screen is kept "
        .. "(screen-step-<n>.jpeg, layout-step-<n>.json and .txt).",
      approvals = { "hdc shell uitest uiInput (unasked while the project's app is in front)" },
      run = function(ctx)
        local plan = ctx.outputs.preflight
        return flows.run(ctx, plan, plan.target, plan.server, plan.flow)
      end,
      verify = function(ctx, out)
        for _, line in ipairs(out.lines) do
          ctx:evidence(line)
        end
        if out.failed then
          return false, out.failed
        end
        return true, out.count .. " flow steps passed"
      end,
    },
  },
}
