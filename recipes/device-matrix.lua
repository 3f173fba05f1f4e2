-- sign-install-launch on every connected device at once: build and sign once, then install,
-- launch and check the log on each device concurrently; one row per device.
return {
  name = "device-matrix",
  description = "Build and sign once, then install, launch and verify the log on every "
    .. "connected device concurrently. Fails if any device fails; the output has a row per device.",
  params = {
    targets = {
      type = "array",
      items = { type = "string" },
      optional = true,
      description = "Devices (default: all connected)",
    },
    module = { type = "string", optional = true },
    wait_ms = { type = "integer", default = 10000 },
  },
  budget = { time_s = 3600, spawns = 200 },
  steps = {
    {
      name = "build",
      run = function(ctx)
        local info = ctx:tool("project_info", {})
        local build = ctx:tool("hvigor_build", { module = ctx.args.module })
        local hap
        for _, h in ipairs(build.haps) do
          if h.signed then
            hap = h.path
          end
        end
        if not hap then
          hap = ctx:tool("hap_sign", { hap = build.haps[1].path }).hap
        end
        return { hap = hap, bundle = info.bundle_name }
      end,
      verify = function(_, out)
        return out.hap ~= nil
      end,
    },
    {
      name = "devices",
      approvals = { "hdc install", "hdc shell aa start" },
      run = function(ctx)
        local targets = ctx.args.targets
        if not targets then
          targets = {}
          for _, d in ipairs(ctx:tool("device_list", {}).devices) do
            table.insert(targets, d.key)
          end
        end
        local jobs = {}
        for i, target in ipairs(targets) do
          jobs[i] = function()
            ctx:tool("app_install", { hap = ctx.outputs.build.hap, target = target })
            local launched = ctx:tool("app_launch", { module = ctx.args.module, target = target })
            local marker = launched.ability .. " onCreate"
            local waited = 0
            while waited <= ctx.args.wait_ms do
              local log = ctx:tool("hilog_read", { grep = marker, target = target, lines = 1 })
              if log.count > 0 then
                return log.entries[1].message
              end
              rein.sleep(500)
              waited = waited + 500
            end
            rein.error("VERIFY_FAILED", "the log never showed " .. marker)
          end
        end
        local rows = rein.json.array({})
        local failed = 0
        for i, result in ipairs(rein.parallel(jobs)) do
          if result.ok then
            table.insert(rows, { target = targets[i], ok = true, evidence = result.value })
          else
            failed = failed + 1
            table.insert(rows, {
              target = targets[i],
              ok = false,
              code = result.error.code,
              message = result.error.message,
            })
          end
        end
        return { rows = rows, failed = failed, total = #targets }
      end,
      verify = function(ctx, out)
        for _, row in ipairs(out.rows) do
          if row.ok then
            ctx:evidence(row.target .. ": " .. row.evidence)
          end
        end
        return out.total > 0 and out.failed == 0
      end,
    },
  },
}
