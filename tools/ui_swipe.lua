local act = require("harmony.ui_act")

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

return {
  name = "ui_swipe",
  description = "Swipes on the device's screen: between two points, or in a direction within a "
    .. "widget (by text, id, type) or the screen; returns what changed on screen.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = act.expect_params(act.selector_params({
    direction = {
      type = "string",
      enum = { "up", "down", "left", "right" },
      optional = true,
      description = "Finger's way",
    },
    from = { type = "array", items = { type = "integer" }, optional = true, description = "[x, y]" },
    to = { type = "array", items = { type = "integer" }, optional = true, description = "[x, y]" },
    velocity = { type = "integer", default = 600, description = "px/s, 200-40000" },
  })),
  run = function(args)
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
      rein.error(
        "INVALID_ARGS",
        "velocity is 200-40000 px/s (uitest's range), not " .. args.velocity
      )
    end
    return act.act(args, "swipe", function(seen)
      local widget, line = nil, nil
      if points then
        line = { args.from[1], args.from[2], args.to[1], args.to[2] }
      else
        local area = { 0, 0, seen.width, seen.height }
        if act.selects(args) then
          widget = act.widget(seen, args, "swipe")
          area = require("harmony.ui").parse_bounds(widget.bounds)
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
  end,
}
