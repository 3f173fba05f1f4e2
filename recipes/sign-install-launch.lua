-- Build, sign (when the build gave no signed HAP), install, launch, and prove the app runs by
-- waiting for its log line. Each step is verified by what the tools printed.
local REINSTALL_CODES = { ["9568332"] = true, ["9568263"] = true }

local function signed_hap(haps)
  for _, hap in ipairs(haps) do
    if hap.signed then
      return hap.path
    end
  end
end

local function unsigned_hap(haps)
  for _, hap in ipairs(haps) do
    if not hap.signed then
      return hap.path
    end
  end
end

return {
  name = "sign-install-launch",
  description = "project_info → build → sign (if needed) → install → launch → wait for the "
    .. "expected hilog line (default: the main ability's onCreate). With reinstall=true an "
    .. "install refused for a different signature or a downgrade uninstalls and retries once.",
  params = {
    target = { type = "string", optional = true, description = "Device connect key" },
    module = { type = "string", optional = true, description = "Module to build and launch" },
    product = { type = "string", default = "default" },
    expect_log = { type = "string", optional = true, description = "hilog text proving launch" },
    reinstall = { type = "boolean", default = false, description = "Uninstall and retry once" },
    wait_ms = { type = "integer", default = 10000, description = "How long to wait for the log" },
  },
  budget = { time_s = 3600, spawns = 40 },
  steps = {
    {
      name = "project",
      run = function(ctx)
        return ctx:tool("project_info", {})
      end,
      verify = function(_, out)
        return out.bundle_name ~= nil and #out.modules > 0
      end,
    },
    {
      name = "build",
      run = function(ctx)
        return ctx:tool("hvigor_build", { module = ctx.args.module, product = ctx.args.product })
      end,
      verify = function(_, out)
        if #out.haps == 0 then
          return false, "the build made no .hap"
        end
        return true, "BUILD SUCCESSFUL"
      end,
    },
    {
      name = "sign",
      run = function(ctx)
        local haps = ctx.outputs.build.haps
        local signed = signed_hap(haps)
        if signed then
          return { hap = signed, signed_by = "hvigor" }
        end
        local result = ctx:tool("hap_sign", { hap = unsigned_hap(haps) })
        return { hap = result.hap, signed_by = "hap-sign-tool" }
      end,
      verify = function(_, out)
        return out.hap ~= nil and rein.fs.exists(out.hap)
      end,
    },
    {
      name = "install",
      approvals = { "hdc install", "hdc uninstall (reinstall=true)" },
      run = function(ctx)
        local args = { hap = ctx.outputs.sign.hap, target = ctx.args.target }
        local ok, err = pcall(ctx.tool, ctx, "app_install", args)
        if ok then
          return err
        end
        local code = type(err) == "table" and err.details and err.details.code
        if ctx.args.reinstall and REINSTALL_CODES[code] then
          ctx:log("install refused with " .. code .. "; uninstalling and retrying once")
          ctx:tool(
            "app_uninstall",
            { bundle = ctx.outputs.project.bundle_name, target = ctx.args.target }
          )
          return ctx:tool("app_install", args)
        end
        error(err, 0)
      end,
      verify = function(_, out)
        return out.ok == true, out.evidence
      end,
    },
    {
      name = "launch",
      approvals = { "hdc shell aa start" },
      run = function(ctx)
        return ctx:tool("app_launch", { module = ctx.args.module, target = ctx.args.target })
      end,
      verify = function(_, out)
        return out.ok == true, out.evidence
      end,
    },
    {
      name = "log",
      run = function(ctx)
        local marker = ctx.args.expect_log or (ctx.outputs.launch.ability .. " onCreate")
        local waited = 0
        while true do
          local log = ctx:tool("hilog_read", { grep = marker, target = ctx.args.target, lines = 1 })
          if log.count > 0 then
            return { marker = marker, line = log.entries[1] }
          end
          if waited >= ctx.args.wait_ms then
            rein.error(
              "VERIFY_FAILED",
              "the log never showed " .. marker .. " within " .. ctx.args.wait_ms .. " ms",
              {
                marker = marker,
                remedy = "check the app starts (hilog_read) and that expect_log matches its log",
              }
            )
          end
          rein.sleep(500)
          waited = waited + 500
        end
      end,
      verify = function(_, out)
        local line = out.line
        return true, line.time .. " " .. line.tag .. ": " .. line.message
      end,
    },
  },
}
