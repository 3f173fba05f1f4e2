-- The project's configuration checked before anything slow runs (the rules are rein's own,
-- src/harmony/config_check): config_check returns the problems, every recipe's preflight
-- refuses on an error.
local M = {}

--- The problems of the project in `root` (default the workspace), counted.
function M.check(root)
  local problems = rein.project.check_config(root)
  local errors, warnings = 0, 0
  for _, problem in ipairs(problems) do
    if problem.severity == "error" then
      errors = errors + 1
    else
      warnings = warnings + 1
    end
  end
  return {
    ok = errors == 0,
    errors = errors,
    warnings = warnings,
    problems = rein.json.array(problems),
  }
end

--- `file:line:column: severity: message` for a problem.
function M.line_of(problem)
  return string.format(
    "%s:%d:%d: %s: %s",
    problem.file,
    problem.line,
    problem.column,
    problem.severity,
    problem.message
  )
end

--- CONFIG_INVALID (with every problem in details) when the project has an error; else the check.
--- A folder with no build-profile.json5 holds no project to check: `checked` is false then
--- (the build that follows says what is missing).
function M.preflight(root)
  local profile = (root and root ~= ".") and (root .. "/build-profile.json5")
    or "build-profile.json5"
  if not rein.fs.exists(profile) then
    return { checked = false, ok = true, errors = 0, warnings = 0, problems = rein.json.array({}) }
  end
  local result = M.check(root)
  result.checked = true
  if not result.ok then
    local first
    for _, problem in ipairs(result.problems) do
      if problem.severity == "error" then
        first = problem
        break
      end
    end
    rein.error(
      "CONFIG_INVALID",
      string.format(
        "the project's configuration has %d error(s); first: %s",
        result.errors,
        M.line_of(first)
      ),
      {
        problems = result.problems,
        remedy = "fix each error at its file:line:column as its `fix` says (config_check lists them), then run again",
      }
    )
  end
  return result
end

return M
