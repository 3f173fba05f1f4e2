local sdk = require("harmony.sdk")

return {
  name = "api_check",
  description = "Check a file's @ohos/@kit/@hms uses against the SDK, its minimum level and "
    .. "permissions; returns findings.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {
    path = { type = "string" },
  },
  run = function(args)
    return sdk.check(args.path)
  end,
}
