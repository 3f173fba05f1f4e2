local act = require("harmony.ui_act")
local actions = require("harmony.ui_actions")

return {
  name = "ui_type",
  description = "Types text into a widget (by text, id, type) or at the focus on the device's "
    .. "screen (a newline presses Enter); returns what changed on screen.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = act.expect_params(act.selector_params({
    input = { type = "string", optional = true, description = "The text to type" },
    secret = {
      type = "string",
      optional = true,
      secret = true,
      description = "Text to type that is never shown (a password)",
    },
  })),
  run = actions.type,
}
