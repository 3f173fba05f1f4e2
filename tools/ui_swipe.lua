local act = require("harmony.ui_act")
local actions = require("harmony.ui_actions")

return {
  name = "ui_swipe",
  description = "Swipe between points or in a direction; returns what changed.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = act.expect_params(act.selector_params({
    direction = {
      type = "string",
      enum = { "up", "down", "left", "right" },
      optional = true,
    },
    from = { type = "array", items = { type = "integer" }, optional = true },
    to = { type = "array", items = { type = "integer" }, optional = true },
    velocity = { type = "integer", default = 600 },
  })),
  run = actions.swipe,
}
