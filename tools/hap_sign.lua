local signer = require("harmony.signer")

return {
  name = "hap_sign",
  description = "Sign a HAP or HSP with hap-sign-tool and a signingConfig (passwords never pass"
    .. " through scripts).",
  annotations = { read_only = false, destructive = true, idempotent = true, open_world = false },
  params = {
    hap = { type = "string" },
    out = { type = "string", optional = true },
    signing_config = { type = "string", default = "default" },
    cert = { type = "string", optional = true },
    profile = { type = "string", optional = true },
    sign_alg = { type = "string", optional = true },
  },
  run = function(args)
    return signer.sign_app(args)
  end,
}
