local signer = require("harmony.signer")

return {
  name = "hap_sign",
  description = "Sign a HAP with hap-sign-tool sign-app, using the material of a signingConfig in "
    .. "build-profile.json5 (or the given certificate and profile). The passwords never pass "
    .. "through scripts: the kernel reads them from the environment variables home config.toml "
    .. "[signing.<config>] names, and gives them only with the keystore and key alias that config "
    .. "names. DevEco's ciphertext passwords are refused before java starts "
    .. "(SIGNING_NOT_CONFIGURED, with what to configure). Succeeds only on exit 0 and 'sign-app "
    .. "success'; otherwise SIGN_FAILED with the tool's error codes and a remedy.",
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
