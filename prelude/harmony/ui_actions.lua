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

function M.type(args)
  local typed = args.input or args.secret
  if typed == nil or (args.input and args.secret) then
    rein.error(
      "INVALID_ARGS",
      "ui_type needs the text: input, or secret for a password (one of them)"
    )
  end
  return act.act(args, "type", function(seen)
    local steps, x, y, widget = {}, nil, nil, nil
    if act.selects(args) then
      widget = act.widget(seen, args, "type")
      x, y = widget.center.x, widget.center.y
      act.inside(seen, x, y, "type")
      steps[1] = { "click", x, y }
    end
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
    return { steps = steps, x = x, y = y, widget = widget }
  end, args.secret)
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
