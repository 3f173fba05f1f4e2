-- The module's local unit tests (`src/test`), run by `hvigorw test` on this machine
-- (shared/HARMONY-VERIFY.md §2), judged from `test_result.txt`, never from hvigorw's exit.
--
-- hvigor's documentation says `hvigorw test` is not supported on Linux. rein does not guess
-- from the OS alone: it runs the task and reads the results only when hvigorw's output shows
-- the module's `@GenerateUnitTestResult` task finished in this run (the task a real run prints,
-- §2), so an old file is never read as new. When it did not, on Linux that is the documented
-- limit and the refusal says so (LOCAL_TESTS_UNSUPPORTED); a hvigor that runs the task there
-- (the fake toolchain, which implements `test` as the documentation describes it on Windows
-- and macOS, or a later hvigor) is read like any other.
local hvigor = require("harmony.hvigor")
local local_tests = require("harmony.local_tests")
local project = require("harmony.project")

local FAILING = { failed = true, error = true }

local function files_under(dir)
  local files = rein.json.array({})
  if rein.fs.exists(dir) then
    for _, entry in ipairs(rein.fs.list(dir, { depth = 3 }).entries) do
      if entry.kind == "file" then
        files[#files + 1] = entry.path
      end
    end
  end
  return files
end

return {
  name = "local_test",
  description = "Run a module's local unit tests (src/test) with hvigorw test and return the "
    .. "counts first, then each test that did not pass (from test_result.txt), and coverage when asked",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = {
    module = {
      type = "string",
      optional = true,
      description = "Module (default: the entry module)",
    },
    product = { type = "string", default = "default" },
    class = {
      type = "string",
      optional = true,
      description = "Only these: Suite or Suite#test, comma-separated (-p scope)",
    },
    coverage = { type = "boolean", default = false, description = "Also make the coverage report" },
    timeout_ms = { type = "integer", optional = true, description = "hvigorw's deadline" },
  },
  run = function(args)
    local info = project.read()
    local module = project.module_or_refuse(info, args.module)
    local argv = {
      "--mode",
      "module",
      "-p",
      "module=" .. module.name .. "@default",
      "-p",
      "product=" .. args.product,
      "-p",
      "coverage=" .. tostring(args.coverage),
    }
    if args.class then
      argv[#argv + 1] = "-p"
      argv[#argv + 1] = "scope=" .. args.class
    end
    argv[#argv + 1] = "test"
    argv[#argv + 1] = "--no-daemon"
    local command = "hvigorw " .. table.concat(argv, " ")
    local run = rein.proc.run("hvigorw", argv, { timeout_ms = args.timeout_ms })
    local build = hvigor.parse_build(run.stdout, run.stderr, run.code)
    if not build.ok then
      hvigor.refuse_failed(build, run, command)
    end
    local ran = run.stdout:find(":" .. module.name .. ":default@GenerateUnitTestResult", 1, true)
    local data = module.src_path .. "/.test/default/intermediates/test/coverage_data"
    local file = data .. "/test_result.txt"
    if not ran then
      local linux = rein.proc.host_os() == "linux"
      rein.error(
        linux and "LOCAL_TESTS_UNSUPPORTED" or "TESTS_FAILED",
        linux
            and "hvigorw test ran no unit test of module " .. module.name .. ": hvigor's documentation says the test command is not supported on Linux"
          or "hvigorw test ran no unit test of module "
            .. module.name
            .. " (no GenerateUnitTestResult task in its output)",
        {
          command = command,
          module = module.name,
          verdict = not linux and "not started" or nil,
          remedy = linux
              and "run the on-device tests (device_test), or local_test on Windows or macOS"
            or "read hvigorw's output; check that src/test/List.test.ets registers the suites",
        }
      )
    end
    if not rein.fs.exists(file) then
      rein.error("TESTS_FAILED", "hvigorw test wrote no " .. file, {
        command = command,
        verdict = "incomplete",
        remedy = "read hvigorw's output",
      })
    end
    local result = local_tests.parse(rein.fs.read_text(file).text)
    result.result_file = file
    result.command = command
    result.failures = rein.json.array({})
    for _, t in ipairs(result.tests) do
      if FAILING[t.status] then
        result.failures[#result.failures + 1] = t
      end
    end
    if args.coverage then
      result.coverage = {
        report_dir = module.src_path .. "/.test/default/outputs/test/reports",
        files = files_under(module.src_path .. "/.test/default/outputs/test/reports"),
      }
    end
    if not result.ok then
      local lines = {}
      for i, f in ipairs(result.failures) do
        if i > 10 then
          break
        end
        lines[#lines + 1] = ("%s#%s (%s)"):format(f.suite, f.test, f.status)
      end
      local listed = #lines > 0 and ("\n" .. table.concat(lines, "\n")) or ""
      rein.error("TESTS_FAILED", result.message .. listed, result)
    end
    return result
  end,
}
