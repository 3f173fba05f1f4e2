local hdc = require("harmony.hdc")
local device = require("harmony.device")
local readiness = require("harmony.readiness")

-- The packages to install: `packages`, else `hap` alone. Each must exist.
local function packages_of(args)
  local list = args.packages or (args.hap and { args.hap }) or {}
  if #list == 0 or (args.packages and args.hap) then
    rein.error(
      "INVALID_ARGS",
      "give either hap (one package) or packages (every .hap and .hsp of the app)",
      { hap = args.hap, packages = args.packages }
    )
  end
  for _, path in ipairs(list) do
    if not rein.fs.exists(path) then
      rein.error(
        "FILE_NOT_FOUND",
        path .. " does not exist; build (and sign) first",
        { path = path }
      )
    end
  end
  return list
end

-- The packages of `list` hvigor made unsigned (`<module>-<target>-unsigned.hap|hsp`).
local function unsigned_of(list)
  local found = {}
  for _, path in ipairs(list) do
    if path:match("%-unsigned%.h[as]p$") then
      found[#found + 1] = path
    end
  end
  return found
end

-- An unsigned package goes only to an emulator, as the device itself says
-- (device.is_emulator: its const.product.name), never on the caller's word: a phone would
-- refuse it (9568320) and rein does not send it one. A package renamed to hide that it is
-- unsigned still meets the phone's own check.
local function refuse_unsigned_on_a_phone(list, target)
  local unsigned = unsigned_of(list)
  if #unsigned == 0 then
    return
  end
  if target.key and device.is_emulator(target) then
    return
  end
  local what = target.key and ("device " .. target.key .. " is not an emulator")
    or "no target was named"
  rein.error(
    "UNSIGNED_HAP_REFUSED",
    table.concat(unsigned, ", ")
      .. " is unsigned and "
      .. what
      .. ": only an emulator installs an unsigned package (a phone refuses it: 9568320).",
    {
      packages = rein.json.array(unsigned),
      target = target.key,
      remedy = "sign it (hap_sign, or a signingConfig in build-profile.json5), or pass target: an emulator's connect key from device_list (emulator: true)",
    }
  )
end

-- What `hdc install` gets: one package's path; several are copied to a folder of rein's own,
-- which hdc sends whole and the device installs in one `bm install -p <folder>` (several paths
-- would be one bm install each, a HAP maybe before the HSP it needs: 9568305).
local function install_source(list)
  if #list == 1 then
    return list[1], nil
  end
  local staged = rein.fs.stage_packages(list)
  return staged.dir, staged
end

return {
  name = "app_install",
  description = "Install a signed HAP, or all HAPs and HSPs of the app together (unsigned: "
    .. "emulators only).",
  annotations = { read_only = false, destructive = true, idempotent = true, open_world = true },
  params = {
    hap = {
      type = "string",
      optional = true,
    },
    packages = {
      type = "array",
      items = { type = "string" },
      optional = true,
      description = "Every signed .hap and .hsp of the app (instead of hap)",
    },
    target = device.target_param(),
    server = device.server_param(),
    replace = {
      type = "boolean",
      default = true,
    },
  },
  run = function(args)
    local list = packages_of(args)
    local target = device.named(device.pick(args.target, args.server))
    refuse_unsigned_on_a_phone(list, target)
    local ready = readiness.ensure(target)
    local source, staged = install_source(list)
    local argv = { "install" }
    if args.replace then
      table.insert(argv, "-r")
    end
    table.insert(argv, source)
    local text = device.run_checked(target, argv)
    local result = hdc.parse_install(text)
    if not result.ok then
      device.fail("INSTALL_FAILED", "install", result, text)
    end
    return {
      ok = true,
      hap = args.hap,
      packages = rein.json.array(list),
      staged = staged and staged.dir or nil,
      ready = ready.evidence,
      evidence = #list == 1 and "install bundle successfully."
        or ("install bundle successfully. (" .. table.concat(list, ", ") .. ")"),
    }
  end,
}
