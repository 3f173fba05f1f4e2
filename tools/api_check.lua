local sdk = require("harmony.sdk")

return {
  name = "api_check",
  description = "Checks a file's imports from @ohos/@kit/@hms and the members it uses against the SDK "
    .. "and the project's compatibleSdkVersion and permissions. Returns {findings, errors, warnings, hints}.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {
    path = { type = "string", description = "an .ets or .ts file" },
  },
  run = function(args)
    return sdk.check(args.path)
  end,
}
