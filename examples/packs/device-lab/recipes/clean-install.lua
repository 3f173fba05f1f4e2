-- Uninstall, build, install and launch on one device; the launch is proven by its process.
return {
  name = "clean-install",
  description = "Uninstall the app (ignoring 'not installed'), build, install, and launch, "
    .. "proven by the new process (pid alive after a settle, no fault log) and its log lines.",
  params = {
    target = { type = "string", optional = true, description = "Device connect key" },
  },
  budget = { time_s = 1800, spawns = 30 },
  steps = {
    {
      name = "uninstall",
      approvals = { "hdc uninstall" },
      run = function(ctx)
        local ok, err = pcall(ctx.tool, ctx, "app_uninstall", { target = ctx.args.target })
        return { removed = ok, note = (not ok) and err.message or nil }
      end,
    },
    {
      name = "build",
      run = function(ctx)
        return ctx:tool("hvigor_build", {})
      end,
      verify = function(_, out)
        return #out.haps > 0
      end,
    },
    {
      name = "install",
      approvals = { "hdc install" },
      run = function(ctx)
        local hap
        for _, h in ipairs(ctx.outputs.build.haps) do
          if h.signed then
            hap = h.path
          end
        end
        return ctx:tool("app_install", { hap = hap, target = ctx.args.target })
      end,
      verify = function(_, out)
        return out.ok == true, out.evidence
      end,
    },
    {
      name = "launch",
      approvals = { "hdc shell aa start", "hdc shell aa force-stop (when the app already runs)" },
      run = function(ctx)
        -- app_launch proves the launch itself: a new pid, alive after a settle, no fault log.
        return ctx:tool("app_launch", { target = ctx.args.target })
      end,
      verify = function(ctx, out)
        for _, line in ipairs(out.lines) do
          ctx:evidence(line)
        end
        return out.pid ~= nil, out.evidence
      end,
    },
  },
}
