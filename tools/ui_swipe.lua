local act = require("harmony.ui_act")
local actions = require("harmony.ui_actions")

return {
  name = "ui_swipe",
  description = "Swipe between points, or in a direction within a widget or the screen; returns"
    .. " what changed.",
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
    velocity = { type = "integer", default = 600 },
  })),
  run = actions.swipe,
}
