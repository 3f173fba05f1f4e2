-- How a product gets signed, checked before anything is built. hvigor signs during the build
-- when the product names a signingConfig (it decrypts DevEco's password ciphertext itself).
-- Otherwise rein signs with hap-sign-tool, which needs the plaintext passwords: the kernel takes
-- them from the environment variables a person names in home config.toml `[signing.<name>]`
-- (rein.proc.signing_status says whether they are usable; no script ever sees them).
local project = require("harmony.project")

local M = {}

-- DevEco's encrypted password form in build-profile.json5 ("0000001B" + 80 hex digits);
-- the kernel applies the same rule.
function M.is_ciphertext(value)
  return type(value) == "string"
    and #value >= 40
    and value:sub(1, 6) == "000000"
    and value:find("^%x+$") ~= nil
end

-- What a person adds to home config.toml for signing config `name`.
function M.config_snippet(name)
  local prefix = "REIN_SIGN_" .. name:upper():gsub("[^%w]", "_")
  return string.format(
    '[signing.%s]\nkeystore_password_env = "%s_STORE_PASSWORD"\nkey_password_env = "%s_KEY_PASSWORD"',
    name,
    prefix,
    prefix
  )
end

local function problem(kind, config, message, remedy)
  return { problem = kind, signing_config = config, message = message, remedy = remedy }
end

local function setup_remedy(name)
  return "put the plaintext keystore and key passwords in two environment variables of rein and "
    .. "have a person name them in home config.toml:\n"
    .. M.config_snippet(name)
    .. "\nor let hvigor sign: name the signingConfig in the product (build-profile.json5 products[].signingConfig)"
end

-- nil when hap-sign-tool can sign with signing config `name` (material from build-profile.json5,
-- or nil when the caller gives the files), else `{ problem, signing_config, message, remedy }`.
-- problem: ciphertext (DevEco's passwords and no variables named), no_secrets, env_unset,
-- env_ciphertext.
function M.hap_sign_tool_problem(name, material)
  local status = rein.proc.signing_status(name)
  if not status.configured then
    local m = material or {}
    if M.is_ciphertext(m.storePassword) or M.is_ciphertext(m.keyPassword) then
      return problem(
        "ciphertext",
        name,
        "the passwords of signingConfig '"
          .. name
          .. "' in build-profile.json5 are DevEco ciphertext (0000001B…), which only hvigor can "
          .. "decrypt; hap-sign-tool needs the plaintext, and home config.toml names no variables "
          .. "holding it ([signing."
          .. name
          .. "]).",
        setup_remedy(name)
      )
    end
    return problem(
      "no_secrets",
      name,
      "rein gives hap-sign-tool passwords only from environment variables named in home "
        .. "config.toml, and it has no [signing."
        .. name
        .. "] section.",
      setup_remedy(name)
    )
  end
  for _, field in ipairs({ "keystore_password", "key_password" }) do
    local secret = status[field]
    if not secret.set then
      return problem(
        "env_unset",
        name,
        "environment variable "
          .. secret.env
          .. " ([signing."
          .. name
          .. "] "
          .. field
          .. "_env) is not set for rein.",
        "export "
          .. secret.env
          .. " with the plaintext "
          .. field:gsub("_", " ")
          .. " before starting rein"
      )
    end
    if secret.ciphertext then
      return problem(
        "env_ciphertext",
        name,
        "environment variable "
          .. secret.env
          .. " holds DevEco's ciphertext, not the plaintext "
          .. field:gsub("_", " ")
          .. ".",
        "put the plaintext password in "
          .. secret.env
          .. " (the one you type in DevEco's signing dialog)"
      )
    end
  end
  return nil
end

local function missing_material(name, material)
  for _, key in ipairs({ "storeFile", "certpath", "profile" }) do
    local path = material[key]
    if not path or path == "" then
      return problem(
        "no_material",
        name,
        "signingConfig '" .. name .. "' has no " .. key .. ".",
        "complete its material in build-profile.json5, or sign again in DevEco Studio"
      )
    end
    -- Paths outside the project (DevEco keeps them under ~/.ohos/config) are hvigor's and
    -- hap-sign-tool's to open; rein checks the ones inside it, and looks nothing up outside
    -- (build-profile.json5 is the agent's to write: a lookup there would ask, and tell).
    if
      not path:find("^/")
      and not path:find("^%a:[/\\]")
      and not path:find("^~")
      and rein.fs.in_workspace(path)
      and not rein.fs.exists(path)
    then
      return problem(
        "no_material",
        name,
        "signingConfig '" .. name .. "' names " .. key .. " " .. path .. ", which does not exist.",
        "restore the file, fix the path in build-profile.json5, or sign again in DevEco Studio"
      )
    end
  end
  return nil
end

local function names_of(info)
  return #info.signing_configs > 0 and table.concat(info.signing_configs, ", ") or "none"
end

-- The config hap-sign-tool uses when the product names none: "default", else the only one.
local function fallback_config(info)
  for _, name in ipairs(info.signing_configs) do
    if name == "default" then
      return name
    end
  end
  return #info.signing_configs == 1 and info.signing_configs[1] or nil
end

-- How product `product` (a name) of project `info` (harmony.project.read) gets signed:
-- `{ path = "hvigor" | "hap-sign-tool", signing_config }`, or nil and a problem as
-- hap_sign_tool_problem returns it (more kinds: no_product, no_config, unknown_config,
-- no_material).
function M.path_for(info, product)
  local chosen
  for _, p in ipairs(info.products) do
    if p.name == product then
      chosen = p
    end
  end
  if not chosen then
    return nil,
      problem(
        "no_product",
        nil,
        "build-profile.json5 has no product '" .. product .. "'.",
        "pass one of its products"
      )
  end
  local name = chosen.signing_config
  if name then
    local material = project.signing_material(name)
    if not material then
      return nil,
        problem(
          "unknown_config",
          name,
          "product '"
            .. product
            .. "' names signingConfig '"
            .. name
            .. "', which build-profile.json5 does not define (it defines: "
            .. names_of(info)
            .. ").",
          "fix products[].signingConfig, or add that signingConfig (DevEco Studio: File > Project Structure > Signing Configs)"
        )
    end
    local missing = missing_material(name, material)
    if missing then
      return nil, missing
    end
    return { path = "hvigor", signing_config = name }
  end
  name = fallback_config(info)
  if not name then
    local what = #info.signing_configs == 0 and "and build-profile.json5 defines no signingConfigs"
      or ("and build-profile.json5 defines several (" .. names_of(info) .. ")")
    return nil,
      problem(
        "no_config",
        nil,
        "product '"
          .. product
          .. "' names no signingConfig "
          .. what
          .. ": the build would make only an unsigned HAP, which no device installs (9568320).",
        "sign the project once in DevEco Studio (File > Project Structure > Signing Configs > Automatically generate signature), or add a signingConfigs entry with your keystore, certificate and profile and name it in products[].signingConfig"
      )
  end
  local material = project.signing_material(name)
  local missing = missing_material(name, material) or M.hap_sign_tool_problem(name, material)
  if missing then
    return nil, missing
  end
  return { path = "hap-sign-tool", signing_config = name }
end

-- Emulators install unsigned HAPs, phones never do (shared/HARMONY-VERIFY.md §6 "Limits").
-- When the one problem is that the project has no signing config (`no_config`) and every device
-- of `devices` is an emulator as it says itself (device_list's `emulator`, read from the
-- device's const.product.name, never from an argument), the packages go unsigned:
-- `{ path = "unsigned", why }`. Else nil, and `found` gains why not (`phones`: the keys of
-- the devices that are not emulators).
function M.unsigned_path(found, devices)
  if found.problem ~= "no_config" then
    return nil
  end
  local phones = {}
  for _, d in ipairs(devices) do
    if d.emulator ~= true then
      phones[#phones + 1] = d.key
    end
  end
  if #devices > 0 and #phones == 0 then
    return {
      path = "unsigned",
      why = "no signing config, and an emulator installs an unsigned HAP; a phone would refuse it (9568320)",
    }
  end
  found.phones = rein.json.array(phones)
  found.message = found.message
    .. " An unsigned HAP goes only to an emulator, and "
    .. (#phones > 0 and table.concat(phones, ", ") or "no device")
    .. " is not one (its const.product.name says so)."
  return nil
end

-- Raises SIGNING_NOT_CONFIGURED for a problem from this module.
function M.fail(found)
  rein.error("SIGNING_NOT_CONFIGURED", found.message .. " " .. found.remedy, found)
end

return M
