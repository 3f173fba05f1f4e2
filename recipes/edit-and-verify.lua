-- Edits proven by a build and, when asked, by the project's tests: one step, so that a failed
-- build or a failed test rolls the edits back byte for byte with it.
local config = require("harmony.config")
local device_tests = require("harmony.device_tests")

local params = {}
params.test_filters = device_tests.FILTERS_PARAM
params.path = { type = "string" }
params.edits = {
  type = "array",
  items = {
    type = "object",
    properties = {
      old_string = { type = "string" },
      new_string = { type = "string" },
      replace_all = { type = "boolean", default = false },
    },
  },
}
params.module = { type = "string", optional = true }
params.tests = {
  type = "string",
  default = "none",
  enum = { "none", "local", "device" },
  description = "Tests that must pass too: local or device",
}
params.target = { type = "string", optional = true }
params.api_check = {
  type = "boolean",
  optional = true,
  description = "api_check the edited files first",
}
params.server = { type = "string", optional = true }

return {
  name = "edit-and-verify",
  description = "Apply exact edits and prove them by a build (and tests); on failure they are "
    .. "rolled back.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = params,
  budget = { time_s = 3600, spawns = 200 },
  steps = {
    {
      -- One step, so that a failed build or test rolls the edits back with it.
      name = "edit-and-build",
      approvals = { "hdc install and hdc shell aa test (tests=device)" },
      run = function(ctx)
        -- A filter that is not device_test's is refused before the edit.
        local filters = device_tests.filters_of(ctx.args.test_filters)
        local edit = ctx:tool("multi_edit", { path = ctx.args.path, edits = ctx.args.edits })
        -- The configuration is checked before the build, the edit included (a failure rolls the
        -- edit back, as a failed build does).
        config.preflight()
        local checked = ctx.args.api_check and ctx:tool("api_check", { path = ctx.args.path })
          or nil
        if checked and checked.errors > 0 then
          rein.error(
            "API_CHECK_FAILED",
            "the edit uses "
              .. checked.errors
              .. " SDK API(s) that do not exist; the edits were rolled back",
            { findings = checked.findings }
          )
        end
        local out = { diff = edit.diff, sha256_after = edit.sha256_after }
        out.api_findings = checked and checked.findings or nil
        local kind = ctx.args.tests
        if kind == "device" then
          -- device_test builds the app and its test HAP: that build is the proof of the edit.
          local args = filters
          args.module, args.target, args.server = ctx.args.module, ctx.args.target, ctx.args.server
          out.tests = ctx:tool("device_test", args)
          out.built = out.tests.packages
        else
          local build = ctx:tool("hvigor_build", { module = ctx.args.module })
          out.built = rein.json.array({})
          for _, hap in ipairs(build.haps) do
            out.built[#out.built + 1] = hap.path
          end
          if kind == "local" then
            out.tests = ctx:tool("local_test", { module = ctx.args.module, class = filters.class })
          end
        end
        return out
      end,
      verify = function(_, out)
        if #out.built == 0 then
          return false, "the build made no .hap"
        end
        if out.tests then
          return out.tests.ok == true, "BUILD SUCCESSFUL after the edit, and " .. out.tests.message
        end
        return true, "BUILD SUCCESSFUL after the edit: " .. out.built[1]
      end,
    },
  },
}
