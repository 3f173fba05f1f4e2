local act = require("harmony.ui_act")

return {
  name = "ui_tap",
  description = "Taps a widget (by text, id, type, as ui_find) or a point on the device's screen, "
    .. "proven: refused unless exactly one widget matches; returns what changed on screen.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = act.expect_params(act.selector_params({
    x = { type = "integer", optional = true, description = "A point instead of a widget" },
    y = { type = "integer", optional = true, description = "With x" },
    how = {
      type = "string",
      enum = { "single", "double", "long" },
      default = "single",
      description = "Tap kind",
    },
  })),
  run = function(args)
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
  end,
}
