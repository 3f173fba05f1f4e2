-- sign-install-launch on several devices at once: one preflight, one build and signature, then
-- install, a proven launch and its screen on every device concurrently; a row per device, one
-- report.
local config = require("harmony.config")
local deploy = require("harmony.deploy")
local device = require("harmony.device")
local device_tests = require("harmony.device_tests")
local evidence = require("harmony.evidence")
local flows = require("harmony.ui_flow")

-- One device's install, launch and screen (kept under the device's `label`), as a row of the
-- result, then the flow (when asked) and with `test_hap` its on-device tests (VERIFY_FAILED or
-- TESTS_FAILED fails the row). Evidence that cannot be taken is named in the row; it does not
-- undo the launch.
local function deploy_to(ctx, d, label, slot, test_hap)
  local plan, target, server = ctx.outputs.preflight, d.key, deploy.server_of(d)
  local installed, launched, kept, flowed
  deploy.with_screen_on(ctx, target, server, function()
    installed =
      deploy.install(ctx, ctx.outputs.sign, target, plan.bundle, ctx.args.reinstall, server)
    launched = deploy.launch(ctx, plan, target, server)
    kept = evidence.capture(ctx, target, server, nil, label)
    -- The same flow on every device, its screens kept apart (`screen-<label>-step-<n>.jpeg`).
    if plan.flow then
      flowed = flows.run(ctx, plan, target, server, plan.flow, flows.prefix(label, slot))
    end
  end)
  if flowed and flowed.failed then
    rein.error(
      "VERIFY_FAILED",
      "the flow: " .. flowed.failed,
      { flow_steps = flowed.flow_steps, label = label }
    )
  end
  local tests
  if test_hap then
    tests = device_tests.run_after_launch(
      ctx.args,
      device.pick(target, server),
      ctx.outputs.sign.packages,
      test_hap
    )
  end
  return {
    device_tests = tests,
    target = target,
    server = d.server,
    ok = true,
    pid = launched.pid,
    evidence = launched.evidence,
    lines = launched.lines,
    installed = installed.evidence,
    reinstalled = installed.reinstalled == true,
    label = label,
    screen = evidence.summary(kept),
    screenshot = kept.screenshot,
    ui_tree = kept.ui_tree,
    ui_text = kept.ui_text,
    flow = flowed and flowed.lines or nil,
    flow_steps = flowed and flowed.flow_steps or nil,
  }
end

local function failed_row(d, err)
  local details = type(err) == "table" and err.details or {}
  return {
    target = d.key,
    server = d.server,
    ok = false,
    code = type(err) == "table" and err.code or "LUA_ERROR",
    message = type(err) == "table" and err.message or tostring(err),
    remedy = details.remedy,
    detail_code = details.code,
    crash = details.crash,
    device_tests = type(err) == "table" and err.code == "TESTS_FAILED" and details or nil,
    flow_steps = details.flow_steps,
  }
end

return {
  name = "device-matrix",
  description = "sign-install-launch on every connected device: one build, a proven launch each.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = device_tests.after_launch_params({
    targets = {
      type = "array",
      items = { type = "string" },
      optional = true,
      description = "Devices (default: all connected)",
    },
    module = {
      type = "string",
      optional = true,
    },
    product = { type = "string", default = "default" },
    expect_log = {
      type = "string",
      optional = true,
      description = "Text a log line of each launch must show",
    },
    reinstall = { type = "boolean", default = false },
    wait_ms = { type = "integer", default = 10000 },
    flow = {
      type = "string",
      optional = true,
      description = "A UI flow (JSON file) to run on each device after its launch",
    },
  }),
  budget = { time_s = 3600, spawns = 600 },
  steps = {
    {
      name = "preflight",
      description = "Before any build: the product has a signing path, and at least one of the "
        .. "devices is connected and authorized (every named target must be connected); the configuration passes config_check.",
      run = function(ctx)
        -- The signing path first (its own code and remedy), then the whole configuration.
        local plan = deploy.project_and_signing(ctx.args)
        config.preflight()
        plan.flow = ctx.args.flow and flows.read(ctx.args.flow) or nil
        plan.devices = deploy.matrix_devices(deploy.devices(ctx), ctx.args.targets)
        return deploy.settle_signing(plan, plan.devices)
      end,
      verify = function(_, out)
        local keys = {}
        for _, d in ipairs(out.devices) do
          keys[#keys + 1] = d.key .. (d.usable and "" or (" (" .. d.status .. ")"))
        end
        return true, "devices " .. table.concat(keys, ", ") .. "; signed by " .. out.signing.path
      end,
    },
    deploy.build_step(),
    deploy.sign_step(),
    {
      name = "devices",
      approvals = {
        "hdc install",
        "hdc shell aa start",
        "hdc shell snapshot_display (each device)",
        "hdc uninstall (reinstall=true)",
        "hdc shell aa test (device_tests=true)",
        "hdc shell uitest uiInput (flow; unasked while the project's app is in front)",
      },
      run = function(ctx)
        -- The devices the preflight found, as they are now (one may have gone meanwhile).
        local keys = {}
        for _, d in ipairs(ctx.outputs.preflight.devices) do
          keys[#keys + 1] = d.key
        end
        local now = deploy.matrix_devices(deploy.devices(ctx), keys)
        local now_keys = {}
        for i, d in ipairs(now) do
          now_keys[i] = d.key
        end
        local labels = evidence.labels(now_keys)
        -- Built and signed once, before the devices run at once (one hvigorw at a time).
        local test_hap = device_tests.test_package_after_launch(ctx.args)
        local rows, jobs, slots = rein.json.array({}), {}, {}
        for i, d in ipairs(now) do
          if d.usable then
            jobs[#jobs + 1] = function()
              return deploy_to(ctx, d, labels[i], i, test_hap)
            end
            slots[#jobs] = i
          else
            rows[i] = failed_row(d, {
              code = "DEVICE_UNAVAILABLE",
              message = "device " .. d.key .. " is " .. d.status,
              details = { remedy = d.remedy, code = d.status:upper() },
            })
          end
        end
        for j, result in ipairs(rein.parallel(jobs)) do
          rows[slots[j]] = result.ok and result.value or failed_row(now[slots[j]], result.error)
        end
        local failed = {}
        for _, row in ipairs(rows) do
          if not row.ok then
            failed[#failed + 1] = row
          end
        end
        if #failed > 0 then
          local first = failed[1]
          rein.error(
            "DEVICE_MATRIX_FAILED",
            string.format(
              "%d of %d devices failed; first %s: %s %s",
              #failed,
              #rows,
              first.target,
              first.code,
              first.message
            ),
            { rows = rows, passed = #rows - #failed, failed = #failed, remedy = first.remedy }
          )
        end
        return { rows = rows, passed = #rows, failed = 0 }
      end,
      verify = function(ctx, out)
        for _, row in ipairs(out.rows) do
          ctx:evidence(row.target .. ": " .. row.evidence)
          for _, line in ipairs(row.lines) do
            ctx:evidence(row.target .. ": " .. line)
          end
          ctx:evidence(row.target .. ": " .. row.screen)
          for _, line in ipairs(row.flow or {}) do
            ctx:evidence(row.target .. ": " .. line)
          end
          if row.device_tests then
            ctx:evidence(row.target .. ": " .. row.device_tests.message)
          end
        end
        return out.failed == 0 and #out.rows > 0, #out.rows .. " devices launched"
      end,
    },
  },
}
