-- The screen actions ui_tap, ui_type, ui_swipe and ui_key run, and the ui-flow recipe's steps:
-- each takes the tool's arguments and returns its result (ui_act.act proves it).
local act = require("harmony.ui_act")
local ui = require("harmony.ui")

local M = {}

-- ENTER (shared/HARMONY-VERIFY.md §3.1): uitest's `text` cannot type a newline.
local ENTER = 2054

-- Names uitest knows (`Home`, `Back`, `Power`); every other key goes by its code (hypium
-- `KeyCode`, hmdriver2 `proto.KeyCode`: shared/HARMONY-VERIFY.md §3.1).
M.KEYS = {
  home = "Home",
  back = "Back",
  power = "Power",
  enter = 2054,
  backspace = 2055,
  delete = 2071,
  tab = 2049,
  space = 2050,
  escape = 2070,
  up = 2012,
  down = 2013,
  left = 2014,
  right = 2015,
  volume_up = 16,
  volume_down = 17,
  recent = 2210,
}

-- A direction's stroke: from one side of the area's middle to the other, over 3/5 of it.
local function stroke(bounds, direction)
  local l, t, r, b = bounds[1], bounds[2], bounds[3], bounds[4]
  local cx, cy = math.floor((l + r) / 2), math.floor((t + b) / 2)
  local dx, dy = math.floor((r - l) * 3 / 10), math.floor((b - t) * 3 / 10)
  local moves = {
    up = { cx, cy + dy, cx, cy - dy },
    down = { cx, cy - dy, cx, cy + dy },
    left = { cx + dx, cy, cx - dx, cy },
    right = { cx - dx, cy, cx + dx, cy },
  }
  return moves[direction]
end

function M.tap(args)
  local point = args.x ~= nil or args.y ~= nil
  if point == act.selects(args) or (point and (args.x == nil or args.y == nil)) then
    rein.error(
      "INVALID_ARGS",
      "ui_tap needs a widget (text, id, type) or a point (x and y), not both"
    )
  end
  local verb = ({ single = "click", double = "doubleClick", long = "longClick" })[args.how]
  return act.act(args, "tap", function(seen)
    local widget, x, y = nil, args.x, args.y
    if not point then
      widget = act.widget(seen, args, "tap")
      x, y = widget.center.x, widget.center.y
    end
    act.inside(seen, x, y, "tap")
    return { steps = { { verb, x, y } }, x = x, y = y, widget = widget }
  end)
end

-- `steps` with the calls that type `typed` appended: each line by `text`, a newline as Enter.
local function typing(steps, typed)
  local first = true
  for part in (typed .. "\n"):gmatch("([^\n]*)\n") do
    if not first then
      steps[#steps + 1] = { "keyEvent", ENTER }
    end
    if part ~= "" then
      steps[#steps + 1] = { "text", part }
    end
    first = false
  end
  return steps
end

-- What a secret is probed with: one character typed into the field and read back, then taken
-- out (a digit: a numeric password field takes it too).
local PROBE = "0"
local BACKSPACE = M.KEYS.backspace

-- Whether a field's text is a password field's mask. uitest's tree has no attribute saying a
-- field is a password field (testfwk_arkxtest @4eea31c core/ui_model.h `ATTR_NAMES`;
-- server/element_node_iterator_impl.cpp `WrapperNodeAttrToVec` sets none), but ArkUI reports a
-- password field's text as `******` once it holds anything (arkui_ace_engine
-- components_ng/pattern/text_field/text_field_accessibility_property.cpp `GetText`,
-- `DEFAULT_PASSWORD`), and uitest's `text` is that (`element.GetContent()`).
local function masked(shown)
  return shown ~= "" and (shown:gsub("%*", ""):gsub("\226\128\162", "")) == ""
end

local function secret_refused(widget, why)
  rein.error(
    "UI_SECRET_FIELD",
    "type: a secret goes only into a password field, which never shows it; "
      .. why
      .. ". The secret was not typed. Name the password field (a TextInput with "
      .. ".type(InputType.Password)), or type text that may be shown with input",
    { widget = widget and ui.public(widget) or nil }
  )
end

-- A secret: only into a named password field. The field must show nothing or a mask; a probe
-- character typed into it must show as the mask too (else it is taken out again and the secret
-- is never sent).
local function type_secret(args)
  if not act.selects(args) then
    secret_refused(
      nil,
      "at the focus rein cannot tell what the field is: name it (id, text or type)"
    )
  end
  return act.act(args, "type", function(seen)
    local widget = act.widget(seen, args, "type")
    if widget.type ~= "TextInput" then
      secret_refused(
        widget,
        "the widget is a " .. (widget.type ~= "" and widget.type or "?") .. ", not a text field"
      )
    end
    if widget.text ~= "" and not masked(widget.text) then
      secret_refused(widget, "the field shows its text")
    end
    local x, y = widget.center.x, widget.center.y
    act.inside(seen, x, y, "type")
    local function after(probed)
      for _, node in ipairs(probed.nodes) do
        if node.bounds == widget.bounds and node.type == widget.type and masked(node.text) then
          return { steps = typing({ { "keyEvent", BACKSPACE } }, args.secret) }
        end
      end
      return {
        steps = { { "keyEvent", BACKSPACE } },
        refuse = {
          code = "UI_SECRET_FIELD",
          message = "type: a secret goes only into a password field, which never shows it; the field showed the probe "
            .. rein.json.encode(PROBE)
            .. " typed into it (taken out again). The secret was not typed. Name the password field (a "
            .. "TextInput with .type(InputType.Password)), or type text that may be shown with input",
          details = { widget = ui.public(widget) },
        },
      }
    end
    return {
      steps = { { "click", x, y }, { "text", PROBE } },
      x = x,
      y = y,
      widget = widget,
      after = after,
    }
  end, args.secret)
end

function M.type(args)
  local typed = args.input or args.secret
  if typed == nil or (args.input and args.secret) then
    rein.error(
      "INVALID_ARGS",
      "ui_type needs the text: input, or secret for a password (one of them)"
    )
  end
  if args.secret then
    return type_secret(args)
  end
  return act.act(args, "type", function(seen)
    local steps, x, y, widget = {}, nil, nil, nil
    if act.selects(args) then
      widget = act.widget(seen, args, "type")
      x, y = widget.center.x, widget.center.y
      act.inside(seen, x, y, "type")
      steps[1] = { "click", x, y }
    end
    return { steps = typing(steps, typed), x = x, y = y, widget = widget }
  end)
end

function M.swipe(args)
  local points = args.from ~= nil or args.to ~= nil
  if
    points == (args.direction ~= nil)
    or (points and (#(args.from or {}) ~= 2 or #(args.to or {}) ~= 2))
  then
    rein.error(
      "INVALID_ARGS",
      "ui_swipe needs a direction (in a widget or the screen) or from and to, each [x, y]"
    )
  end
  if args.velocity < 200 or args.velocity > 40000 then
    rein.error("INVALID_ARGS", "velocity is 200-40000 px/s (uitest's range), not " .. args.velocity)
  end
  return act.act(args, "swipe", function(seen)
    local widget, line = nil, nil
    if points then
      line = { args.from[1], args.from[2], args.to[1], args.to[2] }
    else
      local area = { 0, 0, seen.width, seen.height }
      if act.selects(args) then
        widget = act.widget(seen, args, "swipe")
        area = ui.parse_bounds(widget.bounds)
      end
      line = stroke(area, args.direction)
    end
    act.inside(seen, line[1], line[2], "swipe")
    act.inside(seen, line[3], line[4], "swipe")
    return {
      steps = { { "swipe", line[1], line[2], line[3], line[4], args.velocity } },
      x = line[1],
      y = line[2],
      widget = widget,
    }
  end)
end

function M.key(args)
  return act.act(args, "key " .. args.key, function()
    return { steps = { { "keyEvent", M.KEYS[args.key] } } }
  end)
end

return M
