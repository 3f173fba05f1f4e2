local act = require("harmony.ui_act")
local actions = require("harmony.ui_actions")

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
  run = actions.tap,
}
