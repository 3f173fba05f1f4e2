-- codelinter's results as rein can honestly read them (shared/HARMONY-VERIFY.md §4).
--
-- Confirmed [DOC ide-command-line-codelinter]: the exit code is 3 bits, error the high bit, warn
-- the middle one, suggestion the low one, each set only when its level is listed in
-- `--exit-on` and present. NOT confirmed: the JSON and the default text of its report (§4
-- "Output text", "Not confirmed"): no verbatim sample exists. So no record is made up from
-- that text. The only tokens seen in a default-format report are `severity:error` and
-- `severity:warn` [OBS react-native-harmony tester], which are counted when present.
local M = {}

--- The levels the exit bits say are present (rein always passes `-e error,warn,suggestion`).
function M.levels(code)
  local bits = (code >= 0 and code <= 7) and code or 0
  return {
    error = math.floor(bits / 4) % 2 == 1,
    warn = math.floor(bits / 2) % 2 == 1,
    suggestion = bits % 2 == 1,
  }
end

--- What rein reads of a run: the levels, the observed tokens' counts, the report text as printed.
function M.read(run)
  local code = run.code or -1
  local counts = {}
  for _, level in ipairs({ "error", "warn" }) do
    local _, n = run.stdout:gsub("severity:" .. level .. "%f[%W]", "")
    counts[level] = n
  end
  return {
    clean = code == 0,
    exit_code = code,
    levels = M.levels(code),
    token_counts = counts,
    records = rein.json.array({}),
    understood = "exit bits (documented) and severity:error/severity:warn tokens (observed); "
      .. "codelinter's report format is not confirmed, so the report is returned as printed",
    report = run.stdout,
  }
end

return M
