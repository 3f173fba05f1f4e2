-- The pieces sign-install-launch and device-matrix share: the preflight that fails in a second
-- instead of after a build, picking and signing the HAP, installing (with the reinstall
-- fallback) and a proven launch. Each takes the recipe step's `ctx`.
local project = require("harmony.project")
local signing = require("harmony.signing")
local remedies = require("harmony.remedies")

local M = {}

-- Codes `reinstall = true` answers by uninstalling and installing once more.
local REINSTALL_CODES = { ["9568332"] = true, ["9568263"] = true }
local USABLE = { Connected = true, Ready = true }

local function unavailable(code, message, remedy, extra)
  local details = { code = code, message = message, remedy = remedy }
  for k, v in pairs(extra or {}) do
    details[k] = v
  end
  rein.error("DEVICE_UNAVAILABLE", message .. ". " .. remedy, details)
end

local function keys_of(devices)
  local keys = {}
  for _, d in ipairs(devices) do
    keys[#keys + 1] = d.key .. " (" .. d.status .. ")"
  end
  return #keys > 0 and table.concat(keys, ", ") or "none"
end

local function find(devices, key)
  for _, d in ipairs(devices) do
    if d.key == key then
      return d
    end
  end
  return nil
end

-- The devices `hdc list targets -v` shows now, on every server that is the person's own (or
-- on `server` alone: `local` or a lab's name from device_list).
function M.devices(ctx, server)
  local all = ctx:tool("device_list", {}).devices
  if not server then
    return all
  end
  local on = {}
  for _, d in ipairs(all) do
    if d.server == server then
      on[#on + 1] = d
    end
  end
  return on
end

-- The server a tool is told about for device `d` (nil for this machine's).
function M.server_of(d)
  return d and d.server ~= "local" and d.server or nil
end

-- The one device to use: `target` when given (it must be listed and authorized), else the only
-- usable device; its key, and second the device as listed. Raises DEVICE_UNAVAILABLE with the
-- remedy.
function M.one_device(devices, target)
  if target then
    local d = find(devices, target)
    if not d then
      unavailable(
        "TARGET_NOT_FOUND",
        "no connected device has the connect key "
          .. target
          .. " (devices: "
          .. keys_of(devices)
          .. ")",
        remedies.hdc.TARGET_NOT_FOUND,
        { target = target }
      )
    end
    if not USABLE[d.status] then
      unavailable(
        d.status:upper(),
        "device " .. target .. " is " .. d.status,
        d.remedy or remedies.device.Unknown,
        { target = target }
      )
    end
    return target, d
  end
  local usable, others = {}, {}
  for _, d in ipairs(devices) do
    table.insert(USABLE[d.status] and usable or others, d)
  end
  if #usable == 1 and #others == 0 then
    return usable[1].key, usable[1]
  end
  if #devices == 0 then
    unavailable(
      "NO_DEVICE",
      "no device is connected (hdc list targets shows none)",
      "connect a device or start an emulator with USB debugging on, check it with device_list, then run again"
    )
  end
  if #usable == 0 and #others == 1 then
    local d = others[1]
    unavailable(
      d.status:upper(),
      "device " .. d.key .. " is " .. d.status,
      d.remedy or remedies.device.Unknown,
      { target = d.key }
    )
  end
  unavailable(
    "NEED_CONNECT_KEY",
    "several devices are connected (" .. keys_of(devices) .. ") and no target was given",
    "pass target (a connect key from device_list)"
  )
end

-- Every target to deploy to, each `{ key, server, usable, status, remedy? }`: `targets` when given
-- (each must be listed), else every listed device. Raises DEVICE_UNAVAILABLE when none is
-- usable.
function M.matrix_devices(devices, targets)
  local rows = {}
  for _, key in ipairs(targets or {}) do
    local d = find(devices, key)
    if not d then
      unavailable(
        "TARGET_NOT_FOUND",
        "no connected device has the connect key "
          .. key
          .. " (devices: "
          .. keys_of(devices)
          .. ")",
        remedies.hdc.TARGET_NOT_FOUND,
        { target = key }
      )
    end
    rows[#rows + 1] = d
  end
  if not targets then
    rows = devices
  end
  local out, usable = rein.json.array({}), 0
  for _, d in ipairs(rows) do
    out[#out + 1] = {
      key = d.key,
      server = d.server,
      emulator = d.emulator,
      status = d.status,
      usable = USABLE[d.status] == true,
      remedy = d.remedy,
    }
    usable = usable + (USABLE[d.status] and 1 or 0)
  end
  if usable == 0 then
    unavailable(
      #rows == 0 and "NO_DEVICE" or "NONE_USABLE",
      #rows == 0 and "no device is connected (hdc list targets shows none)"
        or ("no device is usable (" .. keys_of(rows) .. ")"),
      #rows == 0
          and "connect devices with USB debugging on, check them with device_list, then run again"
        or (rows[1].remedy or remedies.device.Unknown)
    )
  end
  return out
end

-- What every recipe checks before it builds: the project, the module to launch, every module
-- that makes a package (entry, feature, shared: all are installed together), and how the
-- product gets signed. `{ bundle, module, ability, product, packages, signing = { path,
-- signing_config } }`. A project with no signing config at all comes back with `signing` nil
-- and `unsigned_problem`: whether its packages may go unsigned depends on the devices
-- (M.settle_signing); every other signing problem raises SIGNING_NOT_CONFIGURED here, before
-- any device is asked.
function M.project_and_signing(args)
  local info = project.read()
  local module = project.module_or_refuse(info, args.module)
  local how, problem = signing.path_for(info, args.product)
  if not how and problem.problem ~= "no_config" then
    signing.fail(problem)
  end
  return {
    bundle = info.bundle_name,
    module = module.name,
    ability = module.main_element,
    product = args.product,
    packages = project.package_modules(info),
    signing = how,
    unsigned_problem = problem,
  }
end

-- Settles `plan.signing` once the target devices are known (each as device_list shows it):
-- unsigned when every one is an emulator (signing.unsigned_path), else SIGNING_NOT_CONFIGURED.
function M.settle_signing(plan, devices)
  if plan.signing then
    return plan
  end
  local problem = plan.unsigned_problem
  plan.signing = signing.unsigned_path(problem, devices)
  if not plan.signing then
    signing.fail(problem)
  end
  plan.unsigned_problem = nil
  return plan
end

-- The package of `module` the build made (`<module>-<target>-signed|unsigned.hap|hsp`): the
-- signed one when `signed`. Never the module's test HAP (the ohosTest target, device_test's),
-- which is `<module>-ohosTest-…` too.
function M.pick_hap(haps, module, signed)
  for _, hap in ipairs(haps) do
    local file = hap.path:match("[^/]+$")
    local test = hap.path:find("/outputs/ohosTest/", 1, true) ~= nil
    if hap.signed == signed and not test and file:sub(1, #module + 1) == module .. "-" then
      return hap.path
    end
  end
  return nil
end

-- The signed package of `module`: hvigor's when it signed, else hap-sign-tool's; the unsigned
-- one when the plan says unsigned (emulators only: M.settle_signing; app_install checks again).
local function signed_package(ctx, plan, haps, module)
  local signed = M.pick_hap(haps, module, true)
  if plan.signing.path == "hvigor" then
    if not signed then
      rein.error(
        "SIGN_FAILED",
        "hvigor was to sign module "
          .. module
          .. " with signingConfig '"
          .. plan.signing.signing_config
          .. "' but made no -signed package",
        {
          module = module,
          remedy = "read the build's SignHap output; check the signing material in build-profile.json5",
        }
      )
    end
    return signed
  end
  local unsigned = M.pick_hap(haps, module, false)
  if not unsigned then
    rein.error("BUILD_FAILED", "the build made no unsigned package of module " .. module, {
      module = module,
      remedy = "check the module's build output",
    })
  end
  if plan.signing.path == "unsigned" then
    return unsigned
  end
  return ctx:tool("hap_sign", { hap = unsigned, signing_config = plan.signing.signing_config }).hap
end

-- Every signed package of the app, the launched module's first: `{ hap, packages, signed_by }`
-- (`hap` is the launched module's).
function M.signed_hap(ctx, plan, haps)
  local modules = { plan.module }
  for _, name in ipairs(plan.packages or {}) do
    if name ~= plan.module then
      modules[#modules + 1] = name
    end
  end
  local packages = rein.json.array({})
  for _, name in ipairs(modules) do
    packages[#packages + 1] = signed_package(ctx, plan, haps, name)
  end
  local by = ({ hvigor = "hvigor", unsigned = "none" })[plan.signing.path] or "hap-sign-tool"
  return { hap = packages[1], packages = packages, signed_by = by }
end

-- The build step both recipes run: every module's package (the launched module alone is not
-- enough: it needs the app's other packages installed with it).
function M.build_step()
  return {
    name = "build",
    run = function(ctx)
      return ctx:tool("hvigor_build", { product = ctx.args.product })
    end,
    verify = function(_, out)
      if #out.haps == 0 then
        return false, "the build made no .hap"
      end
      return true, "BUILD SUCCESSFUL"
    end,
  }
end

-- The sign step both recipes run: every package signed, by hvigor or by hap-sign-tool.
function M.sign_step()
  return {
    name = "sign",
    run = function(ctx)
      return M.signed_hap(ctx, ctx.outputs.preflight, ctx.outputs.build.haps)
    end,
    verify = function(_, out)
      for _, path in ipairs(out.packages) do
        if not rein.fs.exists(path) then
          return false, path .. " is missing"
        end
      end
      local how = out.signed_by == "none" and "unsigned, for an emulator"
        or ("signed by " .. out.signed_by)
      return true, table.concat(out.packages, ", ") .. " (" .. how .. ")"
    end,
  }
end

-- The install step of the one-device recipes: the signed packages on the preflight's device.
---@param approvals string[]
function M.install_step(approvals)
  return {
    name = "install",
    approvals = approvals,
    run = function(ctx)
      local plan = ctx.outputs.preflight
      return M.with_screen_on(ctx, plan.target, plan.server, function()
        return M.install(
          ctx,
          ctx.outputs.sign,
          plan.target,
          plan.bundle,
          ctx.args.reinstall,
          plan.server
        )
      end)
    end,
    verify = function(_, out)
      return out.ok == true, out.evidence
    end,
  }
end

-- The launch step of the one-device recipes: a launch proven by the new process.
---@param approvals string[]
function M.launch_step(approvals)
  return {
    name = "launch",
    approvals = approvals,
    run = function(ctx)
      local plan = ctx.outputs.preflight
      return M.with_screen_on(ctx, plan.target, plan.server, function()
        return M.launch(ctx, plan, plan.target, plan.server)
      end)
    end,
    verify = function(ctx, out)
      for _, line in ipairs(out.lines) do
        ctx:evidence(line)
      end
      return out.ok == true and out.pid ~= nil, out.evidence
    end,
  }
end

-- Installs the signed packages (`signed`: the sign step's output) on `target`, together; with
-- `reinstall`, an install refused for another signature or a downgrade uninstalls `bundle` and
-- installs once more.
function M.install(ctx, signed, target, bundle, reinstall, server)
  local args = { target = target, server = server }
  if #signed.packages > 1 then
    args.packages = signed.packages
  else
    args.hap = signed.hap
  end
  local ok, result = pcall(ctx.tool, ctx, "app_install", args)
  if ok then
    return result
  end
  local code = type(result) == "table" and result.details and result.details.code
  if not (reinstall and REINSTALL_CODES[code]) then
    error(result, 0)
  end
  ctx:log(
    "install on "
      .. tostring(target)
      .. " refused with "
      .. code
      .. "; uninstalling and retrying once"
  )
  ctx:tool("app_uninstall", { bundle = bundle, target = target, server = server })
  local again = ctx:tool("app_install", args)
  again.reinstalled = true
  return again
end

-- How long a recipe's device step keeps the screen on (the device's own timeout comes back
-- when the step ends, however it ends).
M.SCREEN_ON_MS = 600000

-- Runs `fn()` with the screen of `target` kept on (the tools `fn` runs check the device is
-- booted, woken and not locked), then restores the device's screen-off timeout, also when `fn` failed.
function M.with_screen_on(ctx, target, server, fn)
  ctx:tool("device_ready", { target = target, server = server, keep_screen_on_ms = M.SCREEN_ON_MS })
  local ok, result = pcall(fn)
  ctx:tool("device_ready", { target = target, server = server, restore_screen_timeout = true })
  if not ok then
    error(result, 0)
  end
  return result
end

-- For a recipe that acts on the app after its launch: the launched process is still running
-- and no crash or freeze of the app is on record since the launch (crash_scan over
-- `proof.launched_at`), else APP_CRASHED / APP_FROZEN with what was found. `proof` is
-- app_launch's result; returns the scan.
function M.still_alive(ctx, proof, bundle, target, server)
  local scan = ctx:tool("crash_scan", {
    since = proof.launched_at,
    bundle = bundle,
    pid = proof.pid,
    target = target,
    server = server,
  })
  if scan.clean then
    return scan
  end
  local details = {
    bundle = bundle,
    pid = proof.pid,
    alive = scan.alive,
    crashes = scan.crashes,
    freezes = scan.freezes,
    fault_logs = scan.fault_logs,
  }
  if #scan.crashes == 0 and #scan.fault_logs == 0 and #scan.freezes > 0 then
    details.remedy = remedies.launch.frozen
    rein.error("APP_FROZEN", bundle .. " froze after its launch. " .. details.remedy, details)
  end
  details.remedy = remedies.launch.crashed
  local what = scan.alive == false and (" (pid " .. proof.pid .. " is gone)") or ""
  rein.error(
    "APP_CRASHED",
    bundle .. " crashed after its launch" .. what .. ". " .. details.remedy,
    details
  )
end

-- A proven launch (app_launch) with the recipe's arguments.
function M.launch(ctx, plan, target, server)
  return ctx:tool("app_launch", {
    bundle = plan.bundle,
    ability = plan.ability,
    module = plan.module,
    target = target,
    server = server,
    expect_log = ctx.args.expect_log,
    wait_ms = ctx.args.wait_ms,
  })
end

return M
