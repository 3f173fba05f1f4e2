-- A UI flow written as data in the workspace (a JSON list of steps, docs/src/ui.md), read and
-- run on one device after a proven launch: each step an action on the screen (tap, type, swipe,
-- key: proven as the ui_* tools prove them, harmony/ui_act.lua), a wait, an expectation, a
-- screenshot or a launch; after each the screen is kept in the run's folder. The ui-flow and
-- device-matrix recipes run flows through it.
local act = require("harmony.ui_act")
local actions = require("harmony.ui_actions")
local deploy = require("harmony.deploy")
local evidence = require("harmony.evidence")
local ui = require("harmony.ui")

local M = {}

-- At most this many steps: `step-<n>` stays within ctx:attach's 32-character label.
local MOST_STEPS = 500

-- The label prefix of a device's step screens (`<label>-step-<n>`, at most 32 characters): its
-- label, or when that is too long its start and its place among the devices (still unique).
function M.prefix(label, slot)
  if #label <= 23 then
    return label .. "-"
  end
  return label:sub(1, 18):gsub("%-+$", "") .. "-" .. slot .. "-"
end

local KINDS = {
  launch = true,
  tap = true,
  type = true,
  swipe = true,
  key = true,
  wait = true,
  expect = true,
  screenshot = true,
}

-- The flow file's steps, checked before anything runs: INVALID_ARGS naming the step.
function M.read(path)
  local ok, doc = pcall(function()
    return rein.json.decode(rein.fs.read_text(path).text)
  end)
  if not ok then
    rein.error(
      "INVALID_ARGS",
      "the flow " .. path .. " is not a JSON file rein can read: " .. tostring(doc)
    )
  end
  local steps = type(doc) == "table" and (doc.steps or doc) or nil
  if type(steps) ~= "table" or #steps == 0 then
    rein.error(
      "INVALID_ARGS",
      "the flow " .. path .. ' is a list of steps ({"do": "tap", …}), or {"steps": […]}'
    )
  end
  if #steps > MOST_STEPS then
    rein.error(
      "INVALID_ARGS",
      "the flow " .. path .. " has " .. #steps .. " steps; at most " .. MOST_STEPS
    )
  end
  for i, s in ipairs(steps) do
    if type(s) ~= "table" or not KINDS[s["do"]] then
      rein.error(
        "INVALID_ARGS",
        "flow step "
          .. i
          .. ': "do" must be one of launch, tap, type, swipe, key, wait, expect, screenshot',
        { step = i }
      )
    end
    -- A flow is workspace data, which the agent reads and the run's report repeats: a
    -- password in it is no secret. ui_type's own `secret` (a person's) is.
    if s.secret ~= nil then
      rein.error(
        "INVALID_ARGS",
        "flow step "
          .. i
          .. ": a flow holds no secret (it is a workspace file, and the run's report shows its "
          .. "steps); type a password with ui_type's secret, before or between flows",
        { step = i }
      )
    end
  end
  return steps
end

-- A step's arguments for the action: the step's own fields, on the launched device.
local function action_args(s, plan)
  local args = { target = plan.target, server = plan.server, contains = false, full = false }
  for k, v in pairs(s) do
    if k ~= "do" then
      args[k] = v
    end
  end
  args.how = args.how or "single"
  args.velocity = args.velocity or 600
  return args
end

-- What the step does, in words (its number first: `step 2 tap text "Tap me"`).
local function describe(i, s)
  local parts = {}
  for _, k in ipairs({ "text", "id", "type", "key", "input", "direction" }) do
    if s[k] ~= nil then
      parts[#parts + 1] = k .. " " .. rein.json.encode(s[k])
    end
  end
  return "step " .. i .. " " .. s["do"] .. (#parts > 0 and (" " .. table.concat(parts, ", ")) or "")
end

-- Runs one step; returns a line saying what it did, or raises.
local function run_step(ctx, plan, s)
  local kind = s["do"]
  local args = action_args(s, plan)
  if kind == "launch" then
    local out = deploy.launch(ctx, plan, plan.target, plan.server)
    if not (out.ok and out.pid) then
      rein.error("LAUNCH_FAILED", out.evidence or "the launch was not proven")
    end
    return "launched again, pid " .. tostring(out.pid)
  elseif kind == "screenshot" then
    return "the screen is kept"
  elseif kind == "wait" or kind == "expect" then
    local at = require("harmony.device").pick(plan.target, plan.server)
    local budget = kind == "wait" and (s.deadline_ms or 10000) or (s.deadline_ms or act.EXPECT_MS)
    local seen, held = act.until_seen(at, budget, function(screen)
      return (#ui.find(screen.nodes, args) > 0) ~= (s.gone == true)
    end)
    if not held then
      rein.error(
        "UI_EXPECT_FAILED",
        "expected "
          .. (s.gone and "no widget" or "a widget")
          .. " with "
          .. rein.json.encode(s)
          .. "; the screen showed:\n"
          .. seen.compact
      )
    end
    return s.gone and "it is gone" or "it is there"
  end
  local result = actions[kind](args)
  local changed = #result.changed.added + #result.changed.removed
  local where = result.at and (" at (" .. result.at.x .. ", " .. result.at.y .. ")") or ""
  local said = "sent"
    .. where
    .. " on "
    .. result.app
    .. "; "
    .. (changed > 0 and (table.concat(result.changed.added, "; ")) or "nothing on screen changed")
  return said, result
end

-- Where a step's input landed, for the report's strip of screens (src/recipe/flow_section.rs):
-- the point and the display it lies in; from the result, or from a failure's details (an
-- expectation that did not hold after the input was sent).
local function landed(result)
  if type(result) == "table" and type(result.details) == "table" then
    result = result.details
  end
  if type(result) ~= "table" or type(result.at) ~= "table" or type(result.display) ~= "table" then
    return nil
  end
  return { at = result.at, display = result.display }
end

-- Runs `flow` on the device `target` (of `server`) until a step fails; after each step the
-- screen is kept under `<prefix>step-<n>`. Returns `{ lines, failed, count, flow_steps }`:
-- flow_steps, one record a step, is what the report reads (src/recipe/flow_section.rs: a JUnit
-- testcase and a screen of the strip each).
function M.run(ctx, plan, target, server, flow, prefix)
  local on = {}
  for k, v in pairs(plan) do
    on[k] = v
  end
  on.target, on.server, on.flow = target, server, flow
  plan = on
  -- flow_steps: one record a flow step, read by the report (src/recipe/flow_section.rs:
  -- a JUnit testcase and a screen of the strip each).
  local lines, failed, records = {}, nil, rein.json.array({})
  for i, s in ipairs(plan.flow) do
    local ok, said, result = pcall(run_step, ctx, plan, s)
    local label = (prefix or "") .. "step-" .. i
    evidence.capture(ctx, plan.target, plan.server, nil, label)
    local record = {
      number = i,
      action = (describe(i, s):gsub("^step %d+ ", "")),
      screen = label,
      passed = ok,
    }
    local where = landed(ok and result or said)
    if where then
      record.at, record.display = where.at, where.display
    end
    records[#records + 1] = record
    if not ok then
      local message = type(said) == "table" and (said.message or rein.json.encode(said))
        or tostring(said)
      failed = describe(i, s) .. " failed: " .. message
      record.said = message
      break
    end
    record.said = said
    lines[#lines + 1] = describe(i, s) .. ": " .. said
  end
  for i = #records + 1, #plan.flow do
    records[#records + 1] =
      { number = i, action = (describe(i, plan.flow[i]):gsub("^step %d+ ", "")), skipped = true }
  end
  return { lines = lines, failed = failed, count = #plan.flow, flow_steps = records }
end

return M
