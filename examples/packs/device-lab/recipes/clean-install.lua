-- Uninstall, build, install and launch on one device; proves the launch by its log line.
return {
  name = "clean-install",
  description = "Uninstall the app (ignoring 'not installed'), build, install, launch, and "
    .. "wait for the main ability's onCreate line in hilog.",
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
      approvals = { "hdc shell aa start" },
      run = function(ctx)
        local launched = ctx:tool("app_launch", { target = ctx.args.target })
        local marker = ctx:tool("device-lab.ready_devices", { ability = launched.ability }).marker
        for _ = 1, 20 do
          local log = ctx:tool("hilog_read", { grep = marker, target = ctx.args.target, lines = 1 })
          if log.count > 0 then
            return { line = log.entries[1].message }
          end
          rein.sleep(500)
        end
        rein.error("VERIFY_FAILED", "the log never showed " .. marker)
      end,
      verify = function(_, out)
        if out.line == nil then
          return false, "no log line showed the launch"
        end
        return true, out.line
      end,
    },
  },
}
