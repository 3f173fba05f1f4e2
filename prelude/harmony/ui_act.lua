-- One proven action on a device's screen (`uitest uiInput`, shared/HARMONY-VERIFY.md §3.1), the
-- way a tester would do it: before, the device is ready (booted, screen woken, not locked:
-- readiness.ensure), the screen and what is in front are read (`uitest dumpLayout`, `aa dump
-- -l` as app_launch reads it: the kernel lets the input through unasked only right after such
-- reads show an app rein installed in front and under the input, src/harmony/ui_input.rs and
-- ui_screens.rs), the widget is found on the screen now (a selector that matches
-- nothing or several widgets is refused before anything is sent) and the point lies inside the
-- display; the input's answer must be exactly `No Error` (uitest prints its error texts and
-- still exits 0, and prints `No Error` even for input that reached nothing: hypium's own check
-- misreads it); after, the screen is read again and the result says what changed.
local device = require("harmony.device")
local foreground = require("harmony.foreground")
local project = require("harmony.project")
local readiness = require("harmony.readiness")
local screen = require("harmony.screen")
local text = require("harmony.text")
local ui = require("harmony.ui")
local wait = require("rein.wait")

local M = {}

-- How long an expectation is polled for after the action, by default.
M.EXPECT_MS = 3000
local POLL_MS = 250

-- The selector parameters every action shares (the same as ui_find's).
function M.selector_params(params)
  params.text = { type = "string", optional = true }
  params.contains = { type = "boolean", default = false }
  params.id = { type = "string", optional = true }
  params.type = { type = "string", optional = true }
  params.target = device.target_param()
  params.server = device.server_param()
  return params
end

-- The after-checks every action shares.
function M.expect_params(params)
  params.expect_text = { type = "string", optional = true }
  params.expect_gone = { type = "string", optional = true }
  params.full = { type = "boolean", default = false }
  return params
end

-- The screen now: `{ nodes, windows, compact, width, height, json }`.
function M.read(at)
  local json = screen.layout(at)
  local tree = rein.json.decode(json)
  local nodes, windows = ui.nodes(tree)
  local root = ui.parse_bounds(
    type(tree) == "table" and type(tree.attributes) == "table" and tree.attributes.bounds
  )
  return {
    nodes = nodes,
    windows = windows,
    compact = ui.compact(nodes, windows),
    width = root and root[3] or 0,
    height = root and root[4] or 0,
    json = json,
  }
end

-- What is in front of the device: the bundles whose ability is FOREGROUND (`aa dump -l`).
function M.in_front(at)
  local out = device.run_checked(at, { "shell", "aa", "dump", "-l" })
  local bundles = {}
  for _, r in ipairs(foreground.parse_missions(out)) do
    if r.state == "FOREGROUND" then
      bundles[#bundles + 1] = r.bundle
    end
  end
  return bundles
end

local function own_bundle()
  local ok, bundle = pcall(project.bundle)
  return ok and bundle or nil
end

-- Whether the arguments name a widget.
function M.selects(args)
  return args.text ~= nil or args.id ~= nil or args.type ~= nil
end

-- The one widget the selector names on `seen`, else UI_NO_MATCH / UI_AMBIGUOUS with what is
-- on screen (nothing has been sent).
function M.widget(seen, args, action)
  local found = ui.find(seen.nodes, args)
  if #found == 1 then
    return found[1]
  end
  local wanted = {}
  for _, k in ipairs({ "text", "id", "type" }) do
    if args[k] then
      wanted[#wanted + 1] = k .. " " .. rein.json.encode(args[k])
    end
  end
  local details = { on_screen = rein.json.array(ui.texts(seen.nodes, 30)), count = #found }
  if #found == 0 then
    rein.error(
      "UI_NO_MATCH",
      action
        .. ": no widget on screen has "
        .. table.concat(wanted, ", ")
        .. "; nothing was sent. The screen shows:\n"
        .. seen.compact,
      details
    )
  end
  local matches = rein.json.array({})
  for i = 1, math.min(#found, 10) do
    matches[#matches + 1] = ui.public(found[i])
  end
  details.matches = matches
  rein.error(
    "UI_AMBIGUOUS",
    action
      .. ": "
      .. #found
      .. " widgets have "
      .. table.concat(wanted, ", ")
      .. "; nothing was sent. Add id or type, or give a point. The screen shows:\n"
      .. seen.compact,
    details
  )
end

-- UI_OFF_SCREEN unless (x, y) lies inside the display (uitest would say `No Error` and do
-- nothing; x or y ≤ 0 is its usage error).
function M.inside(seen, x, y, action)
  if x >= 1 and y >= 1 and x < seen.width and y < seen.height then
    return
  end
  rein.error(
    "UI_OFF_SCREEN",
    action
      .. ": the point ("
      .. x
      .. ", "
      .. y
      .. ") is outside the display ("
      .. seen.width
      .. "x"
      .. seen.height
      .. "); nothing was sent",
    { x = x, y = y, width = seen.width, height = seen.height }
  )
end

-- Lines of `b` not in `a`.
local function missing_from(a, b)
  local have, out = {}, {}
  for _, line in ipairs(text.lines(a)) do
    have[line] = (have[line] or 0) + 1
  end
  for _, line in ipairs(text.lines(b)) do
    if (have[line] or 0) > 0 then
      have[line] = have[line] - 1
    elseif line ~= "" then
      out[#out + 1] = line
    end
  end
  return out
end

-- The compact tree's difference: `{ added = {…}, removed = {…} }`.
function M.diff(before, after)
  return {
    removed = rein.json.array(missing_from(after, before)),
    added = rein.json.array(missing_from(before, after)),
  }
end

local function shows(seen, wanted)
  for _, node in ipairs(seen.nodes) do
    if node.text:find(wanted, 1, true) then
      return true
    end
  end
  return false
end

-- Reads the screen until `ok(seen)` or `budget_ms` passed; the last screen read and whether
-- it held.
function M.until_seen(at, budget_ms, ok)
  local budget = wait.budget(budget_ms)
  while true do
    local seen = M.read(at)
    if ok(seen) then
      return seen, true, budget:waited()
    end
    if budget:over() then
      return seen, false, budget:waited()
    end
    budget:pause(POLL_MS)
  end
end

function M.condition(args)
  return function(seen)
    return (args.expect_text == nil or shows(seen, args.expect_text))
      and (args.expect_gone == nil or not shows(seen, args.expect_gone))
  end
end

-- Sends one `uitest uiInput` call; its answer must be exactly `No Error`.
local function send(at, words, action)
  local argv = { "shell", "uitest", "uiInput" }
  for _, w in ipairs(words) do
    argv[#argv + 1] = tostring(w)
  end
  local said = text.trim(device.run_checked(at, argv))
  if said ~= "No Error" then
    rein.error(
      "UI_INPUT_FAILED",
      action
        .. ": uitest answered "
        .. rein.json.encode(text.tail(said, 400))
        .. " instead of `No Error`",
      { printed = text.tail(said, 2000) }
    )
  end
end

-- Runs one action: `plan(seen)` returns, from the screen before, the uiInput calls (`steps`: a
-- list of word lists, each answered `No Error`), what was aimed at (`x`, `y`, `widget`), and
-- optionally `after(seen)`: from the screen read after the steps, the next stage (`{ steps,
-- after?, refuse? }`; `refuse`: `{ code, message, details }` raised once its steps are sent).
-- `hide`: a secret typed, never shown in what the screen shows back.
function M.act(args, action, plan, hide)
  local function scrub(lines)
    if not hide then
      return lines
    end
    local out = rein.json.array({})
    for i, line in ipairs(lines) do
      local at = line:find(hide, 1, true)
      out[i] = at and (line:sub(1, at - 1) .. "***" .. line:sub(at + #hide)) or line
    end
    return out
  end
  local at = device.named(device.pick(args.target, args.server))
  readiness.ensure(at)
  local before = M.read(at)
  local aim = plan(before)
  local front = M.in_front(at)
  -- A stage may look at the screen after its input and give the next (`after`), or end the
  -- action refused once its own input is undone (`refuse`).
  local stage = aim
  while stage do
    for _, words in ipairs(stage.steps) do
      send(at, words, action)
    end
    if stage.refuse then
      rein.error(stage.refuse.code, stage.refuse.message, stage.refuse.details)
    end
    stage = stage.after and stage.after(M.read(at)) or nil
  end
  local expecting = args.expect_text ~= nil or args.expect_gone ~= nil
  local after, held =
    M.until_seen(at, expecting and (args.expect_ms or M.EXPECT_MS) or 0, M.condition(args))
  local own = own_bundle()
  local result = {
    action = action,
    at = aim.x and { x = aim.x, y = aim.y } or nil,
    display = { width = before.width, height = before.height },
    widget = aim.widget and ui.public(aim.widget) or nil,
    app = front[1] or "(home screen or system UI)",
    own_app = own ~= nil and front[1] == own,
    changed = M.diff(before.compact, after.compact),
  }
  result.changed.added, result.changed.removed =
    scrub(result.changed.added), scrub(result.changed.removed)
  local shown = table.concat(scrub(text.lines(after.compact)), "\n")
  if args.full then
    result.screen = shown
  end
  if not held then
    local what = args.expect_text and ('"' .. args.expect_text .. '" to show')
      or ('"' .. args.expect_gone .. '" to be gone')
    result.screen = shown
    rein.error(
      "UI_EXPECT_FAILED",
      action
        .. " was sent, but the screen did not show what was expected: "
        .. what
        .. ". The screen shows:\n"
        .. shown,
      result
    )
  end
  return result
end

return M
