local config = require("harmony.config")

return {
  name = "edit-and-verify",
  description = "Apply exact edits to one file and prove them with config_check and a real build; if either "
    .. "fails, the edits are rolled back byte for byte and the ArkTS errors are reported.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = {
    path = { type = "string", description = "File to edit, relative to the workspace" },
    edits = {
      type = "array",
      description = "Edits applied in order, all or nothing",
      items = {
        type = "object",
        properties = {
          old_string = { type = "string" },
          new_string = { type = "string" },
          replace_all = { type = "boolean", default = false },
        },
      },
    },
    module = { type = "string", optional = true, description = "Build only this module" },
  },
  budget = { time_s = 3600, spawns = 4 },
  steps = {
    {
      -- One step, so that a failed build rolls the edits back with it.
      name = "edit-and-build",
      run = function(ctx)
        local edit = ctx:tool("multi_edit", { path = ctx.args.path, edits = ctx.args.edits })
        -- The configuration is checked before the build, the edit included (a failure rolls the
        -- edit back, as a failed build does).
        config.preflight()
        local build = ctx:tool("hvigor_build", { module = ctx.args.module })
        return { diff = edit.diff, sha256_after = edit.sha256_after, haps = build.haps }
      end,
      verify = function(_, out)
        if #out.haps > 0 then
          return true, "BUILD SUCCESSFUL after the edit: " .. out.haps[1].path
        end
        return false, "the build made no .hap"
      end,
    },
  },
}
