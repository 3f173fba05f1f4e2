local project = require("harmony.project")
local launch = require("harmony.launch")
local device = require("harmony.device")
local readiness = require("harmony.readiness")

--- Bundle, ability and module: the arguments, else the project's (the module's main ability).
local function resolve(args)
  if args.bundle and args.ability then
    return args.bundle, args.ability, args.module
  end
  local info = project.read()
  local module = project.module_named(info, args.module) or project.entry_module(info) or {}
  return args.bundle or info.bundle_name,
    args.ability or module.main_element,
    args.module or module.name
end

return {
  name = "app_launch",
  description = "Start an ability (hdc shell aa start [-W] -a ABILITY -b BUNDLE [-m MODULE]; "
    .. "defaults from the project) and prove that this launch runs: a new pid from pidof, the "
    .. "ability in the foreground (aa start -W, else aa dump -l), and after settle_ms more the "
    .. "process alive with no fault log and no crash or freeze event for it; with expect_log a "
    .. "line of that pid showing the text. A running instance is force-stopped first. Returns "
    .. "pid, launched_at (device clock), foreground and the log lines as evidence; fails with "
    .. "LAUNCH_FAILED (aa code and remedy; no process; never in the foreground: details.state), "
    .. "APP_CRASHED (details.crash: the fault log's first lines; details.event), APP_FROZEN (an "
    .. "APP_FREEZE names it) or VERIFY_FAILED (marker not seen; a <private> near-miss says so).",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = {
    bundle = {
      type = "string",
      optional = true,
      description = "Bundle name (default: AppScope/app.json5)",
    },
    ability = {
      type = "string",
      optional = true,
      description = "Ability (default: the module's mainElement)",
    },
    module = {
      type = "string",
      optional = true,
      description = "Module name (default: the entry module)",
    },
    target = device.target_param(),
    server = device.server_param(),
    expect_log = {
      type = "string",
      optional = true,
      description = "Text a log line of the launched process must show (default: none needed)",
    },
    wait_ms = {
      type = "integer",
      default = 10000,
      description = "How long to wait for the process, its foreground and the log text",
    },
    settle_ms = {
      type = "integer",
      default = 3000,
      description = "How long after the foreground the process must stay alive with no crash or "
        .. "freeze on record (the first page's life)",
    },
  },
  run = function(args)
    local bundle, ability, module = resolve(args)
    if not bundle or not ability then
      rein.error("INVALID_ARGS", "no bundle or ability given and none found in the project")
    end
    local target = device.pick(args.target, args.server)
    local ready = readiness.ensure(target)
    local proof = launch.start_and_prove({
      target = target,
      bundle = bundle,
      ability = ability,
      module = module,
      expect_log = args.expect_log,
      wait_ms = args.wait_ms,
      settle_ms = args.settle_ms,
    })
    proof.ok = true
    proof.ready = ready.evidence
    proof.bundle, proof.ability, proof.module = bundle, ability, module
    return proof
  end,
}
