local signer = require("harmony.signer")

return {
  name = "hap_sign",
  description = "Sign a HAP or HSP with hap-sign-tool and a signingConfig of build-profile.json5 "
    .. "(passwords from the environment, never through scripts); else SIGN_FAILED or "
    .. "SIGNING_NOT_CONFIGURED with a remedy.",
  annotations = { read_only = false, destructive = true, idempotent = true, open_world = false },
  params = {
    hap = { type = "string", description = "The unsigned .hap or .hsp" },
    out = { type = "string", optional = true, description = "Output path (default: *-signed.hap)" },
    signing_config = { type = "string", default = "default", description = "signingConfig name" },
    cert = { type = "string", optional = true, description = "Overrides material.certpath" },
    profile = { type = "string", optional = true, description = "Overrides material.profile" },
    sign_alg = { type = "string", optional = true, description = "Overrides material.signAlg" },
  },
  run = function(args)
    return signer.sign_app(args)
  end,
}
