local project = require("harmony.project")

return {
  name = "project_info",
  description = "The project: bundle name, version, modules and abilities, products, signing "
    .. "configs.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {},
  run = function()
    return project.read()
  end,
}
