-- Whether an ability is in the foreground, as Huawei's own clients decide "the app is up"
-- (hypium-mcp `helpers/app_manager/aa.py`, hmdriver2 `current_app`): `aa start -W` waits for
-- it, and `aa dump -l` shows each ability record's state.
--
-- Sources (openharmony/ability_ability_runtime @13c4af6f):
-- - `aa start -W`: tools/aa/src/ability_command.cpp `StartAbilityWithWait` and
--   `FormatOutputForWithWait` (f8a4942e, 2025-05-15): when the ability reached the foreground
--   it prints `StartMode: Cold|Hot`, `BundleName: …`, `AbilityName: …`, [`ModuleName: …`],
--   `TotalTime: <ms>`, `WaitTime: <ms>`, then `start ability successfully.`; after 15 s
--   (MAX_WAIT_TIME) or a foreground that failed, only `start ability successfully.`.
-- - An aa without `-W` answers it as any unknown option: `fail: unknown option.` (shell_command.cpp
--   `GetUnknownOptionMsg`) and the start usage (`HELP_MSG_START`); nothing is started.
-- - `aa dump -l`: services/abilitymgr `DumpMissionList` (`Mission ID #…`) with ability_record.cpp
--   `DumpAbilityState`: `bundle name [B]`, `main name [A]`, `state #S  start time [T]`,
--   `app state #S`; states from services/abilitymgr/src/utils/state_utils.cpp.
local text = require("harmony.text")

local M = {}

-- An aa that does not know `-W`: it printed the unknown-option message and started nothing.
function M.wait_unsupported(output)
  return text.has(output or "", "fail: unknown option.")
end

-- The block `aa start -W` prints once the ability is in the foreground →
-- `{ start_mode, bundle, ability, module?, total_ms, wait_ms }`, or nil when it printed none
-- (it waited 15 s, or the foreground failed).
function M.parse_start_wait(output)
  output = output or ""
  local mode = output:match("StartMode: (%a+)")
  local total = output:match("TotalTime: (%-?%d+)")
  if not mode or not total then
    return nil
  end
  return {
    start_mode = mode,
    bundle = output:match("BundleName: ([^\r\n]+)"),
    ability = output:match("AbilityName: ([^\r\n]+)"),
    module = output:match("ModuleName: ([^\r\n]+)"),
    total_ms = tonumber(total),
    wait_ms = tonumber(output:match("WaitTime: (%-?%d+)")),
  }
end

-- `aa dump -l` → the ability records, each `{ bundle, ability, state, app_state, start_time }`,
-- in the order printed.
function M.parse_missions(output)
  local records, current = {}, nil
  for _, line in ipairs(text.lines(output or "")) do
    if line:find("AbilityRecord ID #%d+") then
      current = {}
      records[#records + 1] = current
    elseif current then
      local bundle = line:match("bundle name %[([^%]]*)%]")
      local ability = line:match("main name %[([^%]]*)%]")
      local app_state = line:match("app state #(%u[%u_]*)")
      local state, start = line:match("^%s*state #(%u[%u_]*)%s+start time %[(%d*)%]")
      current.bundle = bundle or current.bundle
      current.ability = ability or current.ability
      current.app_state = app_state or current.app_state
      if state then
        current.state, current.start_time = state, tonumber(start)
      end
    end
  end
  return records
end

-- The record of `ability` of `bundle` in a parsed `aa dump -l`, nil when there is none.
function M.record_of(records, bundle, ability)
  for _, r in ipairs(records) do
    if r.bundle == bundle and r.ability == ability then
      return r
    end
  end
  return nil
end

-- "state #FOREGROUND, app state #FOREGROUND" for evidence; "no ability record" for nil.
function M.describe(record)
  if not record then
    return "no ability record"
  end
  return "state #" .. tostring(record.state) .. ", app state #" .. tostring(record.app_state)
end

return M
