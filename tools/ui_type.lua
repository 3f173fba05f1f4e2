local act = require("harmony.ui_act")

-- ENTER (shared/HARMONY-VERIFY.md §3.1): uitest's `text` cannot type a newline.
local ENTER = 2054

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
  run = function(args)
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
  end,
}
