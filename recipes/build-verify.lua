local config = require("harmony.config")

return {
  name = "build-verify",
  description = "Check the project's configuration (config_check), build its HAPs with hvigorw "
    .. "and prove it: BUILD SUCCESSFUL and at least one .hap. On ArkTS errors the failure carries the structured error list.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = {
    module = { type = "string", optional = true, description = "Build only this module" },
    product = { type = "string", default = "default" },
    build_mode = { type = "string", default = "debug", enum = { "debug", "release" } },
  },
  budget = { time_s = 3600, spawns = 4 },
  steps = {
    {
      name = "build",
      run = function(ctx)
        -- The configuration first: a broken one fails here in a second, at its file:line:column.
        config.preflight()
        return ctx:tool("hvigor_build", {
          module = ctx.args.module,
          product = ctx.args.product,
          build_mode = ctx.args.build_mode,
        })
      end,
      verify = function(_, out)
        if out.ok and #out.haps > 0 then
          return true, "BUILD SUCCESSFUL: " .. out.haps[1].path
        end
        return false, "the build made no .hap"
      end,
    },
  },
}
