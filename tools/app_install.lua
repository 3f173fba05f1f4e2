local hdc = require("harmony.hdc")
local device = require("harmony.device")
local readiness = require("harmony.readiness")

return {
  name = "app_install",
  description = "Install a HAP on a device (hdc install -r). hdc exits 0 even on failure, so "
    .. "success is read from 'install bundle successfully.'; a failure is INSTALL_FAILED with "
    .. "the bm error code (e.g. 9568332), its message and the remedy.",
  annotations = { read_only = false, destructive = true, idempotent = true, open_world = true },
  params = {
    hap = { type = "string", description = "Path of the signed .hap, relative to the workspace" },
    target = { type = "string", optional = true, description = "Device connect key (hdc -t)" },
    server = {
      type = "string",
      optional = true,
      description = "The hdc server the device is on: device_list's `server` (local, or a lab's name)",
    },
    replace = {
      type = "boolean",
      default = true,
      description = "Replace an installed version (-r)",
    },
  },
  run = function(args)
    if not rein.fs.exists(args.hap) then
      rein.error(
        "FILE_NOT_FOUND",
        args.hap .. " does not exist; build (and sign) first",
        { path = args.hap }
      )
    end
    local argv = { "install" }
    if args.replace then
      table.insert(argv, "-r")
    end
    table.insert(argv, args.hap)
    local target = device.pick(args.target, args.server)
    local ready = readiness.ensure(target)
    local text = device.run_checked(target, argv)
    local result = hdc.parse_install(text)
    if not result.ok then
      device.fail("INSTALL_FAILED", "install", result, text)
    end
    return {
      ok = true,
      hap = args.hap,
      ready = ready.evidence,
      evidence = "install bundle successfully.",
    }
  end,
}
