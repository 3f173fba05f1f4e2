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
  description = "Start an ability and prove it: new pid, in front, still alive. Returns pid and"
    .. " evidence.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = {
    bundle = {
      type = "string",
      optional = true,
    },
    ability = {
      type = "string",
      optional = true,
    },
    module = {
      type = "string",
      optional = true,
    },
    target = device.target_param(),
    server = device.server_param(),
    expect_log = {
      type = "string",
      optional = true,
      description = "Text a log line of the new process must show",
    },
    wait_ms = {
      type = "integer",
      default = 10000,
    },
    settle_ms = {
      type = "integer",
      default = 3000,
      description = "How long it must then stay alive without a crash",
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
