local project = require("harmony.project")

return {
  name = "project_info",
  description = "The HarmonyOS project: bundle name, version, modules with their abilities, "
    .. "products and signing configs.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {},
  run = function()
    return project.read()
  end,
}
