local hdc = require("harmony.hdc")
local device = require("harmony.device")
local project = require("harmony.project")

--- Bundle, ability and module: the arguments, else the project's entry module.
local function resolve(args)
  if args.bundle and args.ability then
    return args.bundle, args.ability, args.module
  end
  local info = project.read()
  local entry = project.entry_module(info) or {}
  return args.bundle or info.bundle_name,
    args.ability or entry.main_element,
    args.module or entry.name
end

return {
  name = "app_launch",
  description = "Start an ability (hdc shell aa start -a ABILITY -b BUNDLE [-m MODULE]); defaults "
    .. "come from the project's entry module. Succeeds only on 'start ability successfully.'; "
    .. "otherwise LAUNCH_FAILED with the aa error code and a remedy.",
  params = {
    bundle = {
      type = "string",
      optional = true,
      description = "Bundle name (default: AppScope/app.json5)",
    },
    ability = {
      type = "string",
      optional = true,
      description = "Ability (default: the entry module's mainElement)",
    },
    module = {
      type = "string",
      optional = true,
      description = "Module name (default: the entry module)",
    },
    target = { type = "string", optional = true, description = "Device connect key (hdc -t)" },
  },
  run = function(args)
    local bundle, ability, module = resolve(args)
    if not bundle or not ability then
      rein.error("INVALID_ARGS", "no bundle or ability given and none found in the project")
    end
    local argv = { "shell", "aa", "start", "-a", ability, "-b", bundle }
    if module then
      table.insert(argv, "-m")
      table.insert(argv, module)
    end
    local text = device.run_checked(args.target, argv)
    local result = hdc.parse_aa_start(text)
    if not result.ok then
      device.fail("LAUNCH_FAILED", "launch", result, text)
    end
    return {
      ok = true,
      bundle = bundle,
      ability = ability,
      module = module,
      evidence = "start ability successfully.",
    }
  end,
}
