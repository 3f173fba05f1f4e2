local project = require("harmony.project")
local sign = require("harmony.sign")

local function signed_name(hap)
  local stem = hap:gsub("%-unsigned%.hap$", ""):gsub("%.hap$", "")
  return stem .. "-signed.hap"
end

return {
  name = "hap_sign",
  description = "Sign a HAP with hap-sign-tool sign-app, using the signing material of a "
    .. "signingConfig in build-profile.json5 or the given files. Succeeds only on exit 0 and "
    .. "'sign-app success'; otherwise SIGN_FAILED with the tool's error codes and a remedy.",
  params = {
    hap = { type = "string", description = "The unsigned .hap" },
    out = { type = "string", optional = true, description = "Output path (default: *-signed.hap)" },
    signing_config = { type = "string", default = "default", description = "signingConfig name" },
    keystore = { type = "string", optional = true, description = "Overrides material.storeFile" },
    key_alias = { type = "string", optional = true, description = "Overrides material.keyAlias" },
    key_password = {
      type = "string",
      optional = true,
      secret = true,
      description = "Overrides material.keyPassword",
    },
    keystore_password = {
      type = "string",
      optional = true,
      secret = true,
      description = "Overrides material.storePassword",
    },
    cert = { type = "string", optional = true, description = "Overrides material.certpath" },
    profile = { type = "string", optional = true, description = "Overrides material.profile" },
    sign_alg = { type = "string", optional = true, description = "Overrides material.signAlg" },
  },
  run = function(args)
    local m = project.signing_material(args.signing_config) or {}
    local out = args.out or signed_name(args.hap)
    local argv = {
      "sign-app",
      "-mode",
      "localSign",
      "-keyAlias",
      args.key_alias or m.keyAlias or "",
      "-signAlg",
      args.sign_alg or m.signAlg or "SHA256withECDSA",
      "-appCertFile",
      args.cert or m.certpath or "",
      "-profileFile",
      args.profile or m.profile or "",
      "-inFile",
      args.hap,
      "-keystoreFile",
      args.keystore or m.storeFile or "",
      "-outFile",
      out,
      "-keyPwd",
      args.key_password or m.keyPassword or "",
      "-keystorePwd",
      args.keystore_password or m.storePassword or "",
      "-signCode",
      "1",
    }
    local run = rein.proc.run("hap-sign-tool", argv)
    local result = sign.parse_sign(run.stdout, run.stderr, run.code)
    if not result.ok then
      local first = result.errors[1] or {}
      rein.error(
        "SIGN_FAILED",
        "signing failed: "
          .. (first.description or "see errors")
          .. ". "
          .. (result.remedy or first.remedy or ""),
        { errors = rein.json.array(result.errors), exit_code = run.code }
      )
    end
    return { ok = true, hap = out }
  end,
}
