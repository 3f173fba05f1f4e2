local project = require("harmony.project")
local launch = require("harmony.launch")
local device = require("harmony.device")

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
  description = "Start an ability (hdc shell aa start -a ABILITY -b BUNDLE [-m MODULE]; defaults "
    .. "from the project) and prove that this launch runs: a new pid from pidof, alive after "
    .. "settle_ms, no fault log for it, and with expect_log a line of that pid showing the text. "
    .. "A running instance is force-stopped first. Returns pid, launched_at (device clock) and "
    .. "the log lines as evidence; fails with LAUNCH_FAILED (aa code and remedy), APP_CRASHED "
    .. "(details.crash: the fault log's first lines) or VERIFY_FAILED (marker not seen).",
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
    target = { type = "string", optional = true, description = "Device connect key (hdc -t)" },
    server = {
      type = "string",
      optional = true,
      description = "The hdc server the device is on: device_list's `server` (local, or a lab's name)",
    },
    expect_log = {
      type = "string",
      optional = true,
      description = "Text a log line of the launched process must show (default: none needed)",
    },
    wait_ms = {
      type = "integer",
      default = 10000,
      description = "How long to wait for the process and the log text",
    },
    settle_ms = {
      type = "integer",
      default = 1000,
      description = "How long the process must stay alive",
    },
  },
  run = function(args)
    local bundle, ability, module = resolve(args)
    if not bundle or not ability then
      rein.error("INVALID_ARGS", "no bundle or ability given and none found in the project")
    end
    local proof = launch.start_and_prove({
      target = device.pick(args.target, args.server),
      bundle = bundle,
      ability = ability,
      module = module,
      expect_log = args.expect_log,
      wait_ms = args.wait_ms,
      settle_ms = args.settle_ms,
    })
    proof.ok = true
    proof.bundle, proof.ability, proof.module = bundle, ability, module
    return proof
  end,
}
