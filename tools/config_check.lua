local config = require("harmony.config")

return {
  name = "config_check",
  description = "Check the project's json5 configuration before a build; returns each problem "
    .. "with file:line:column and fix.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {
    path = { type = "string", default = "." },
  },
  run = function(args)
    return config.check(args.path)
  end,
}
