local config = require("harmony.config")

return {
  name = "config_check",
  description = "Check the project's app.json5, module.json5, build-profile.json5, oh-package.json5 "
    .. "and hvigor-config.json5 before a build. Returns ok and each problem with file, line, column, "
    .. "severity and the fix.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {
    path = { type = "string", default = ".", description = "Project folder" },
  },
  run = function(args)
    return config.check(args.path)
  end,
}
