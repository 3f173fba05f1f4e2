local act = require("harmony.ui_act")
local actions = require("harmony.ui_actions")

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
  run = actions.swipe,
}
