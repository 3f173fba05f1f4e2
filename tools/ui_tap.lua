local act = require("harmony.ui_act")
local actions = require("harmony.ui_actions")

return {
  name = "ui_tap",
  description = "Tap exactly one widget (by text, id, type) or a point, proven on screen; "
    .. "returns what changed.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = act.expect_params(act.selector_params({
    x = { type = "integer", optional = true },
    y = { type = "integer", optional = true },
    how = {
      type = "string",
      enum = { "single", "double", "long" },
      default = "single",
    },
  })),
  run = actions.tap,
}
