local project = require("harmony.project")

return {
  name = "project_info",
  description = "Read the HarmonyOS project: bundleName, versionCode/versionName (AppScope/app.json5), "
    .. "modules with their main ability and abilities (module.json5), products and signing "
    .. "configs (build-profile.json5).",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {},
  run = function()
    return project.read()
  end,
}
