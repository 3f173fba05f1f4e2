local sdk = require("harmony.sdk")

return {
  name = "api_lookup",
  description = "An SDK API's declaration: signatures, @since, syscap, permission, throws, "
    .. "deprecation (@kit followed).",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {
    symbol = { type = "string", optional = true, description = "e.g. vibrator.startVibration" },
    module = { type = "string", optional = true, description = "e.g. @ohos.vibrator" },
    full = { type = "boolean", optional = true },
  },
  run = function(args)
    if not args.symbol and not args.module then
      rein.error(
        "INVALID_ARGS",
        "name a symbol (vibrator.startVibration) or a module (@ohos.vibrator)"
      )
    end
    local result = rein.sdk.lookup(args.module, args.symbol)
    sdk.refuse(result)
    if args.full then
      return result
    end
    return sdk.compact(result)
  end,
}
