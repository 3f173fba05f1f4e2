local act = require("harmony.ui_act")
local actions = require("harmony.ui_actions")

return {
  name = "ui_type",
  description = "Type into a widget or at the focus (newline = Enter); returns what changed.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = act.expect_params(act.selector_params({
    input = { type = "string", optional = true },
    secret = {
      type = "string",
      optional = true,
      secret = true,
      description = "A password, never shown; only into a password field",
    },
  })),
  run = actions.type,
}
