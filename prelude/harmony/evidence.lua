-- The screen of a proven launch, kept in the run's folder for a reviewer: the screenshot, the UI
-- tree and its compact text (ctx:attach), and with `expect_text` the proof that the text is on
-- screen. Evidence that cannot be taken (the image has no uitest, a person refused the
-- screenshot, the device went away) does not undo a proven launch: the report says which piece
-- is missing and why. Only `expect_text` makes the screen a condition, and then a missing tree
-- fails, since nothing could show the text is there.
local device = require("harmony.device")
local screen = require("harmony.screen")
local ui = require("harmony.ui")

local M = {}

-- Failures that mean "this piece of evidence could not be taken"; any other (a cancel, a spent
-- budget, a script error) goes on up.
local MISSING = {
  SCREENSHOT_FAILED = true,
  UI_DUMP_FAILED = true,
  APPROVAL_DENIED = true,
  APPROVAL_REQUIRED = true,
  DEVICE_UNAVAILABLE = true,
}

local function attempt(fn, ...)
  local ok, result = pcall(fn, ...)
  if ok then
    return result, nil
  end
  if type(result) == "table" and MISSING[result.code] then
    return nil, result.code .. ": " .. tostring(result.message)
  end
  error(result, 0)
end

local function expect(nodes, text)
  local found = ui.find(nodes, { text = text, contains = true })
  if #found > 0 then
    return { text = text, found = true, match = ui.public(found[1]), count = #found }
  end
  return { text = text, found = false, on_screen = rein.json.array(ui.texts(nodes, 20)) }
end

-- A device's label in file names (`screen-<label>.jpeg`): its connect key in lowercase letters,
-- digits and single `-` (`127.0.0.1:5555` → `127-0-0-1-5555`), at most 32 characters.
function M.label(key)
  local label = tostring(key):lower():gsub("[^a-z0-9]+", "-"):gsub("^%-+", ""):sub(1, 32)
  label = label:gsub("%-+$", "")
  return label ~= "" and label or "device"
end

-- Labels for `keys`, each unique: a second key with the same label gets `-<n>` (its place).
function M.labels(keys)
  local labels, used = {}, {}
  for i, key in ipairs(keys) do
    local label = M.label(key)
    if used[label] then
      label = label:sub(1, 28):gsub("%-+$", "") .. "-" .. i
    end
    used[label] = true
    labels[i] = label
  end
  return labels
end

-- Takes the screen of device `target` (on `server`, a device_list server name) into the run's
-- folder: `{ screenshot?, width?, height?, ui_tree?, ui_text?, nodes?, missing = {…}, expect? }`.
-- With `label` (several devices in one step) the files are `screen-<label>.jpeg` and so on.
function M.capture(ctx, target, server, expect_text, label)
  local at = device.pick(target, server)
  local out = { missing = {}, label = label }
  local shot, why = attempt(screen.screenshot, at)
  if shot then
    out.screenshot = ctx:attach("screenshot", shot.bytes, label)
    out.width, out.height = shot.width, shot.height
  else
    out.missing.screenshot = why
  end
  local tree
  tree, why = attempt(screen.layout, at)
  if tree then
    local nodes, windows = ui.nodes(rein.json.decode(tree))
    out.ui_tree = ctx:attach("ui_tree", tree, label)
    out.ui_text = ctx:attach("ui_text", ui.compact(nodes, windows), label)
    out.nodes = #nodes
    if expect_text then
      out.expect = expect(nodes, expect_text)
    end
  else
    out.missing.ui_tree = why
  end
  return out
end

local function quoted(texts)
  local q = {}
  for _, t in ipairs(texts) do
    q[#q + 1] = '"' .. t .. '"'
  end
  return #q > 0 and table.concat(q, ", ") or "no text at all"
end

-- One line on what `capture` kept and what it could not, and why: a device's row says it.
function M.summary(out)
  local parts = {}
  if out.screenshot then
    parts[#parts + 1] = "screenshot " .. out.screenshot
  else
    parts[#parts + 1] = "no screenshot: " .. tostring(out.missing.screenshot)
  end
  if out.ui_tree then
    parts[#parts + 1] = "UI tree " .. out.ui_tree .. " (" .. out.nodes .. " nodes)"
  else
    parts[#parts + 1] = "no UI tree: " .. tostring(out.missing.ui_tree)
  end
  return table.concat(parts, "; ")
end

-- The step's verdict: with `expect_text`, whether the text was on screen (a failure names what
-- was); the evidence lines say what was kept and what is missing, and why.
function M.verify(ctx, out, expect_text)
  if out.screenshot then
    ctx:evidence(
      "screenshot "
        .. out.screenshot
        .. " ("
        .. tostring(out.width)
        .. "x"
        .. tostring(out.height)
        .. ")"
    )
  else
    ctx:evidence("no screenshot: " .. tostring(out.missing.screenshot))
  end
  if out.ui_tree then
    ctx:evidence(
      "UI tree " .. out.ui_tree .. " (" .. out.nodes .. " nodes), as text " .. out.ui_text
    )
  else
    ctx:evidence("no UI tree: " .. tostring(out.missing.ui_tree))
  end
  if not expect_text then
    return true,
      out.screenshot and "the launched app's screen is kept" or "the screen could not be kept"
  end
  if not out.expect then
    return false,
      '"' .. expect_text .. '" cannot be checked: the UI tree was not taken (' .. tostring(
        out.missing.ui_tree
      ) .. ")"
  end
  if out.expect.found then
    local m = out.expect.match
    return true,
      string.format('"%s" is on screen: %s "%s" at %s', expect_text, m.type, m.text, m.bounds)
  end
  return false,
    string.format(
      'no widget on screen shows "%s"; the screen shows %s (%s)',
      expect_text,
      quoted(out.expect.on_screen),
      tostring(out.ui_text)
    )
end

return M
