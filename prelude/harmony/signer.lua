-- Signing a package with hap-sign-tool sign-app (the hap_sign tool, and device_test for the
-- packages hvigor did not sign): the material of a signingConfig, the passwords given by the
-- kernel from the variables home config.toml names, never through the script.
local project = require("harmony.project")
local sign = require("harmony.sign")
local signing = require("harmony.signing")

local M = {}

-- `x-unsigned.hap` → `x-signed.hap`, `x.hsp` → `x-signed.hsp` (hvigor's names for both kinds).
local function signed_name(hap)
  local stem, ext = hap:match("^(.-)%-unsigned(%.h[as]p)$")
  if not stem then
    stem, ext = hap:match("^(.-)(%.h[as]p)$")
  end
  return (stem or hap) .. "-signed" .. (ext or ".hap")
end

-- The remedy for a failed signing, naming the variables a person configured.
local function remedy_for(result, config)
  local first = result.errors[1] or {}
  local status = rein.proc.signing_status(config)
  local env = {
    ["11014003"] = status.keystore_password and status.keystore_password.env,
    ["11014007"] = status.key_password and status.key_password.env,
  }
  if env[first.code] then
    return "give the plaintext password through "
      .. env[first.code]
      .. " ([signing."
      .. config
      .. "] in home config.toml): the one it holds does not open "
      .. (first.code == "11014003" and "the keystore" or "the key")
  end
  return result.remedy or first.remedy or ""
end

-- Signs `args.hap` (hap_sign's arguments: hap, out?, signing_config, cert?, profile?,
-- sign_alg?); `{ ok, hap = the signed package, signing_config }`, or SIGN_FAILED.
function M.sign_app(args)
  local name = args.signing_config
  local material = project.signing_material(name)
  local m = material or {}
  -- The kernel fills in the passwords only with the keystore and alias the config names.
  local status = rein.proc.signing_status(name)
  local files = {
    keyAlias = status.key_alias or m.keyAlias,
    certpath = args.cert or m.certpath,
    profile = args.profile or m.profile,
    storeFile = status.keystore or m.storeFile,
  }
  for key, value in pairs(files) do
    if not value or value == "" then
      rein.error(
        "INVALID_ARGS",
        "signingConfig '" .. name .. "' gives no " .. key .. " (build-profile.json5); pass it",
        { signing_config = name, missing = key }
      )
    end
  end
  local problem = signing.hap_sign_tool_problem(name, material)
  if problem then
    signing.fail(problem)
  end
  local out = args.out or signed_name(args.hap)
  local argv = {
    "sign-app",
    "-mode",
    "localSign",
    "-keyAlias",
    files.keyAlias,
    "-signAlg",
    args.sign_alg or m.signAlg or "SHA256withECDSA",
    "-appCertFile",
    files.certpath,
    "-profileFile",
    files.profile,
    "-inFile",
    args.hap,
    "-keystoreFile",
    files.storeFile,
    "-outFile",
    out,
    "-signCode",
    "1",
  }
  local run = rein.proc.run("hap-sign-tool", argv, { signing = name })
  local result = sign.parse_sign(run.stdout, run.stderr, run.code)
  if not result.ok then
    local first = result.errors[1] or {}
    local remedy = remedy_for(result, name)
    rein.error(
      "SIGN_FAILED",
      "signing failed: " .. (first.description or "see errors") .. ". " .. remedy,
      {
        errors = rein.json.array(result.errors),
        exit_code = run.code,
        remedy = remedy,
        code = first.code,
      }
    )
  end
  return { ok = true, hap = out, signing_config = name }
end

return M
