-- The recipe "__NAME__". Edit it, then `rein check`; see its steps with
-- `rein recipe __NAME__ --explain` and run it with `rein recipe __NAME__`. A step counts only
-- when its verify returns true; a failed step's file changes are rolled back.

---@type rein.Recipe
local recipe = {
  name = "__NAME__",
  description = "Build the app and prove a HAP came out.",
  params = {
    module = { type = "string", optional = true, description = "Module to build (default: all)" },
  },
  steps = {
    {
      name = "build",
      run = function(ctx)
        return ctx:tool("hvigor_build", { module = ctx.args.module })
      end,
      verify = function(_, out)
        if #out.haps == 0 then
          return false, "the build made no .hap"
        end
        return true, "built " .. out.haps[1].path
      end,
      timeout_s = 900,
    },
  },
}

return recipe
