local config = require("harmony.config")

return {
  name = "build-verify",
  description = "Check the configuration, build with hvigorw and prove at least one .hap was made.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = {
    module = { type = "string", optional = true },
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
