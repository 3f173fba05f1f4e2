-- Parser for a module's local unit test results, `test_result.txt` as `hvigorw test` writes it
-- (shared/HARMONY-VERIFY.md §2): per case `class=<suite>`, `test=<name>`, `result=<word>`, then
-- `Tests run: <n>, Failure: <f>, Error: <e>, Pass: <p>, Ignore: <i>`. `result=Success` is the
-- only word observed; any other is a test that did not pass (`Failure` an assertion, `Error`
-- or an unknown word an error: GUESS). The verdict comes from the cases and that line, never
-- from hvigorw's exit (0 and BUILD SUCCESSFUL when tests fail). Pure: strings and tables only.
local text = require("harmony.text")

local M = {}

local STATUS_OF_RESULT = { Success = "passed", Failure = "failed" }

-- The file's text → `{ ok, verdict, message, counts, summary?, tests }` with each test
-- `{ suite, test, status, message? }`, status passed, failed or error.
function M.parse(content)
  local tests, case, summary = rein.json.array({}), {}, nil
  for _, line in ipairs(text.lines(content or "")) do
    line = line:gsub("\r$", "")
    local key, value = line:match("^(%a+)=(.*)$")
    if key == "class" then
      case = { suite = value }
    elseif key == "test" then
      case.test = value
    elseif key == "result" then
      local status = STATUS_OF_RESULT[value] or "error"
      tests[#tests + 1] = {
        suite = case.suite or "",
        test = case.test or "",
        status = status,
        message = status ~= "passed" and ("result=" .. value) or nil,
      }
      case = {}
    else
      local run, failure, err, pass, ignore =
        line:match("^Tests run: (%d+), Failure: (%d+), Error: (%d+), Pass: (%d+), Ignore: (%d+)")
      if run then
        summary = {
          run = tonumber(run),
          failure = tonumber(failure),
          error = tonumber(err),
          pass = tonumber(pass),
          ignore = tonumber(ignore),
        }
      end
    end
  end
  local counts =
    { total = #tests, passed = 0, failed = 0, error = 0, timed_out = 0, skipped = 0, not_run = 0 }
  for _, t in ipairs(tests) do
    counts[t.status] = counts[t.status] + 1
  end
  local verdict
  if not summary then
    verdict = "incomplete"
  elseif summary.run == 0 or #tests == 0 then
    verdict = "no tests"
  elseif
    counts.passed == counts.total
    and summary.failure == 0
    and summary.error == 0
    and summary.run == counts.total
  then
    verdict = "passed"
  else
    verdict = "failed"
  end
  local tally = ("%d passed, %d failed, %d errors"):format(
    counts.passed,
    counts.failed,
    counts.error
  )
  local messages = {
    passed = ("all %d tests passed (%s)"):format(counts.total, tally),
    ["no tests"] = "no test ran: the result lists no test (check the scope, and that the suites "
      .. "are registered in src/test/List.test.ets)",
    incomplete = "the result file has no Tests run line: " .. tally,
    failed = "tests failed: " .. tally,
  }
  return {
    ok = verdict == "passed",
    verdict = verdict,
    message = messages[verdict],
    counts = counts,
    summary = summary,
    tests = tests,
  }
end

return M
