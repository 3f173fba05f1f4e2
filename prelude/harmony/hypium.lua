-- Parser for what `hdc shell aa test …` prints: Hypium's OHOS_REPORT lines and aa's own
-- (shared/HARMONY-VERIFY.md §1.2–1.4). Pure: strings and tables only.
--
-- The verdict comes from each test's code and the `Tests run:` line, never from the end-of-run
-- codes: Hypium ends every run with `TestFinished-ResultCode: 0`, and `OHOS_REPORT_CODE` is 0
-- when only errors (-1) happened. A run that reports no test is a failure that says so. Unlike
-- xdevice, the lines of a stack after `stack=` (which carry no prefix) are kept.
local text = require("harmony.text")

local M = {}

-- Hypium's test types, the values `-s testType` takes [SRC HYP configService.js]. Rust's
-- policy shape checks the same list (src/harmony/grammar/hypium.rs `TEST_TYPES`), and
-- tests/harmony_device_tests.rs proves the two agree.
local TEST_TYPES = {
  "function",
  "performance",
  "power",
  "reliability",
  "security",
  "global",
  "compatibility",
  "user",
  "standard",
  "safety",
  "resilience",
}

-- A copy of Hypium's test types (a schema's enum).
function M.test_types()
  local copy = rein.json.array({})
  for i, t in ipairs(TEST_TYPES) do
    copy[i] = t
  end
  return copy
end

local STATUS_OF_CODE = { ["0"] = "passed", ["-1"] = "error", ["-2"] = "failed", ["-3"] = "skipped" }
local WAIT_EXPIRED = "Timeout: user test is not completed within the specified time."
-- A line that is one of aa's or Hypium's own, never the continuation of a stack or message.
local OWN_PREFIXES = {
  "OHOS_REPORT_",
  "TestFinished-ResultCode: ",
  "TestFinished-ResultMsg: ",
  "user test finished.",
  WAIT_EXPIRED,
  "error: ",
  "usage: aa test",
}

local function is_own(line)
  for _, prefix in ipairs(OWN_PREFIXES) do
    if line:sub(1, #prefix) == prefix then
      return true
    end
  end
  return false
end

-- "Tests run: 4, Failure: 1, Error: 1, Pass: 1, Ignore: 1[, SkipSpec: 1]" → counts.
local function summary_of(value)
  local run, failure, err, pass, ignore =
    value:match("Tests run: (%d+), Failure: (%d+), Error: (%d+), Pass: (%d+), Ignore: (%d+)")
  if not run then
    return nil
  end
  return {
    run = tonumber(run),
    failure = tonumber(failure),
    error = tonumber(err),
    pass = tonumber(pass),
    ignore = tonumber(ignore),
    skip_spec = tonumber(value:match("SkipSpec: (%d+)") or "0"),
  }
end

-- Drops trailing blank lines and joins.
local function joined(lines)
  local last = #lines
  while last > 0 and text.trim(lines[last]) == "" do
    last = last - 1
  end
  return table.concat(lines, "\n", 1, last)
end

-- "[message: <m>, ]Error in <test>, <error message>" → error message, expect message.
local function message_of(stream, test)
  local marker = "Error in " .. test .. ", "
  local at = stream:find(marker, 1, true)
  if not at then
    return stream ~= "" and stream or nil, nil
  end
  local expect = stream:sub(1, at - 1):match("^message: (.-), $")
  return stream:sub(at + #marker), expect
end

-- A finished case from the fields read since the last code.
local function finished_case(fields, code)
  local status = STATUS_OF_CODE[code] or ("code " .. code)
  local case = {
    suite = fields.class or "",
    test = fields.test or "",
    status = status,
    index = tonumber(fields.current or ""),
  }
  if status == "error" or status == "failed" then
    case.message, case.expect_message = message_of(fields.stream or "", case.test)
    if status == "error" and case.message and case.message:match("^execute timeout %d+ms") then
      case.status = "timed out"
    end
    if fields.stack and text.trim(fields.stack) ~= "" then
      case.stack = fields.stack
    end
  end
  return case
end

-- How the run ended, from aa's lines.
local function ending_of(lines)
  local result = {}
  for i, line in ipairs(lines) do
    local code = line:match("^TestFinished%-ResultCode: (%-?%d+)")
    if code then
      result.result_code = tonumber(code)
    end
    local message = line:match("^TestFinished%-ResultMsg: (.*)$")
    if message then
      result.message = message
    end
    if line == WAIT_EXPIRED then
      return { kind = "wait_expired", message = line }
    end
    if line == "error: failed to start user test." then
      local rest = table.concat(lines, "\n", i + 1)
      return {
        kind = "start_error",
        code = rest:match("Error Code:%s*(%d+)") or rest:match("code:%s*(%d+)"),
        message = text.trim(
          rest:match("Error Message:%s*([^\n]*)") or rest:match("error:%s*([^\n]*)") or ""
        ),
      }
    end
    if line:match("^error: ") and lines[i + 1] and lines[i + 1]:match("^usage: aa test") then
      return { kind = "usage_error", message = line:sub(8) }
    end
  end
  if not result.message then
    return { kind = "incomplete" }
  end
  if result.message == "App died" then
    result.kind = "app_died"
  elseif result.message == "your test finished!!!" then
    result.kind = "finished"
  elseif result.message == "dry run finished!!!" then
    result.kind = "dry_run"
  elseif result.message:match("^this param .* is invalid") then
    result.kind = "invalid_param"
  else
    result.kind = "stopped"
  end
  return result
end

local VERDICT_OF_END = {
  app_died = "crashed",
  wait_expired = "timed out",
  start_error = "not started",
  usage_error = "not started",
  invalid_param = "not started",
  incomplete = "incomplete",
  stopped = "failed",
  dry_run = "not started",
}

-- What the case that was running when the run was cut short gets.
local function cut_short(case, ending)
  if ending.kind == "app_died" then
    case.status, case.message = "error", "the app died while this test ran (App died)"
  elseif ending.kind == "wait_expired" then
    case.status, case.message = "timed out", "the run's deadline (-w) passed while this test ran"
  else
    case.status, case.message = "not run", "the run ended while this test ran"
  end
  return case
end

local function counts_of(tests)
  local counts = {
    total = #tests,
    passed = 0,
    failed = 0,
    error = 0,
    ["timed out"] = 0,
    skipped = 0,
    ["not run"] = 0,
  }
  for _, case in ipairs(tests) do
    counts[case.status] = (counts[case.status] or 0) + 1
  end
  counts.timed_out, counts["timed out"] = counts["timed out"], nil
  counts.not_run, counts["not run"] = counts["not run"], nil
  return counts
end

local function key(suite, test)
  return suite .. "#" .. test
end

-- `output` of `aa test`; `expected` (optional): the `{suite, test}` a dry run listed, so that
-- tests never reported are listed as "not run". Returns `{ ok, verdict, message, ending,
-- summary?, counts, tests, problems }`; each test `{ suite, test, status, message?,
-- expect_message?, stack?, time_ms?, index?, skip_reason? }`, status one of passed, failed
-- (an assertion, -2), error (-1), timed out, skipped (-3), not run.
function M.parse(output, expected)
  local lines = {}
  for _, line in ipairs(text.lines(output or "")) do
    lines[#lines + 1] = (line:gsub("\r$", ""))
  end
  local tests, fields, running, last, summary = rein.json.array({}), {}, nil, nil, nil
  local problems = rein.json.array({})
  local open -- the field whose continuation lines are being read: "stack" or "stream"
  local continuation = {}
  local function close()
    if open then
      fields[open] = joined(continuation)
      open, continuation = nil, {}
    end
  end
  for _, line in ipairs(lines) do
    local status_key, value = line:match("^OHOS_REPORT_STATUS: ([%w_]+)=(.*)$")
    local code = line:match("^OHOS_REPORT_STATUS_CODE: (%-?%d+)")
    if open and not is_own(line) then
      continuation[#continuation + 1] = line
    elseif status_key then
      close()
      if status_key == "stack" or status_key == "stream" then
        open, continuation = status_key, { value }
      elseif status_key == "consuming" then
        if last then
          last.time_ms = tonumber(value)
        end
      elseif status_key == "skipReason" then
        local target = running or last
        if target and value ~= "" then
          target.skip_reason = value
        end
      elseif status_key ~= "suiteconsuming" and status_key ~= "taskconsuming" then
        fields[status_key] = value
      end
    elseif code then
      close()
      if code == "1" then
        running = {
          suite = fields.class or "",
          test = fields.test or "",
          index = tonumber(fields.current or ""),
        }
      else
        last = finished_case(fields, code)
        tests[#tests + 1] = last
        running = nil
      end
      local class = fields.class
      fields = { class = class }
    else
      close()
      local result = line:match("^OHOS_REPORT_RESULT: stream=(.*)$")
      if result then
        summary = summary_of(result) or summary
      end
    end
  end
  close()
  local ending = ending_of(lines)
  if running then
    tests[#tests + 1] = cut_short(running, ending)
  end
  if expected then
    local seen = {}
    for _, case in ipairs(tests) do
      seen[key(case.suite, case.test)] = true
    end
    for _, want in ipairs(expected) do
      if not seen[key(want.suite, want.test)] then
        tests[#tests + 1] = {
          suite = want.suite,
          test = want.test,
          status = "not run",
          message = "never reported: the run ended before it",
        }
      end
    end
  end
  local counts = counts_of(tests)
  local reported = counts.total - counts.not_run
  if summary and summary.run ~= reported and ending.kind == "finished" then
    problems[#problems + 1] = ("the Tests run line counts %d tests, but %d were reported"):format(
      summary.run,
      reported
    )
  end
  if
    summary and (summary.failure > counts.failed or summary.error > counts.error + counts.timed_out)
  then
    problems[#problems + 1] = ("the Tests run line counts %d failures and %d errors, more than the tests reported"):format(
      summary.failure,
      summary.error
    )
  end
  local verdict = VERDICT_OF_END[ending.kind]
  if not verdict then
    local bad = counts.failed + counts.error + counts.timed_out + counts.not_run
    if not summary then
      verdict = "incomplete"
      problems[#problems + 1] = "the run printed no Tests run line"
    elseif summary.run == 0 or counts.total == 0 then
      verdict = "no tests"
    elseif bad > 0 or summary.failure > 0 or summary.error > 0 or #problems > 0 then
      verdict = "failed"
    else
      verdict = "passed"
    end
  end
  return {
    ok = verdict == "passed",
    verdict = verdict,
    message = M.describe(verdict, counts, ending),
    ending = ending,
    summary = summary,
    counts = counts,
    tests = tests,
    problems = problems,
  }
end

-- One sentence for a person: what the run came to.
function M.describe(verdict, counts, ending)
  local tally = ("%d passed, %d failed, %d errors, %d timed out, %d skipped, %d not run"):format(
    counts.passed,
    counts.failed,
    counts.error,
    counts.timed_out,
    counts.skipped,
    counts.not_run
  )
  if verdict == "passed" then
    return ("all %d tests passed (%s)"):format(counts.total, tally)
  elseif verdict == "no tests" then
    return "no test ran: the run reported no test (check the filters, and that the suites are "
      .. "registered in ets/test/List.test.ets)"
  elseif verdict == "crashed" and counts.total == counts.not_run then
    return "the app died before any test ran (App died): check the runner (-s unittest) and the "
      .. "test module (-m) the test HAP has, and the crash record"
  elseif verdict == "crashed" then
    return "the app died during the run (App died): " .. tally
  elseif verdict == "timed out" then
    return "the run did not finish within its deadline (-w): " .. tally
  elseif verdict == "not started" then
    local why = ending.message or ending.kind
    return "the tests did not start: "
      .. why
      .. (ending.code and (" (code " .. ending.code .. ")") or "")
  elseif verdict == "incomplete" then
    return "the run ended without aa's end lines (the device may be gone): " .. tally
  end
  return "tests failed: " .. tally
end

-- The `{suite, test}` of a dry run (`-s dryRun true`): the JSON Hypium prints in 500-character
-- pieces, one per line, before `dry run finished!!!`; nil and why when there is none.
function M.parse_dry_run(output)
  local pieces = {}
  for _, line in ipairs(text.lines(output or "")) do
    line = line:gsub("\r$", "")
    if line:match("^TestFinished%-") then
      break
    end
    pieces[#pieces + 1] = line
  end
  local ok, decoded = pcall(rein.json.decode, table.concat(pieces))
  if not ok or type(decoded) ~= "table" or type(decoded.suites) ~= "table" then
    return nil, "the dry run printed no suite list: " .. text.tail(output or "", 300)
  end
  local list = rein.json.array({})
  for _, suite in ipairs(decoded.suites) do
    for name, cases in pairs(suite) do
      for _, case in ipairs(cases) do
        list[#list + 1] = { suite = name, test = case.itName }
      end
    end
  end
  return list
end

return M
