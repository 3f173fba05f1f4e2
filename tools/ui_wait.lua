local act = require("harmony.ui_act")
local device = require("harmony.device")
local ui = require("harmony.ui")

return {
  name = "ui_wait",
  description = "Waits until a widget (by text, id, type, as ui_find) shows on the device's screen, "
    .. "or is gone with gone=true, up to a deadline; returns the time waited.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = true },
  params = act.selector_params({
    gone = { type = "boolean", default = false, description = "Wait until it is gone" },
    deadline_ms = {
      type = "integer",
      default = 10000,
      description = "How long at most (≤ 120000)",
    },
  }),
  run = function(args)
    if not act.selects(args) then
      rein.error("INVALID_ARGS", "ui_wait needs text, id or type: what to wait for")
    end
    if args.deadline_ms < 0 or args.deadline_ms > 120000 then
      rein.error("INVALID_ARGS", "deadline_ms is 0-120000, not " .. args.deadline_ms)
    end
    local at = device.pick(args.target, args.server)
    local seen, held, waited = act.until_seen(at, args.deadline_ms, function(s)
      return (#ui.find(s.nodes, args) > 0) ~= args.gone
    end)
    if not held then
      rein.error(
        "UI_WAIT_TIMEOUT",
        "after "
          .. waited
          .. " ms the widget is still "
          .. (args.gone and "there" or "not there")
          .. ". The screen shows:\n"
          .. seen.compact,
        { waited_ms = waited, screen = seen.compact }
      )
    end
    return { waited_ms = waited, count = #ui.find(seen.nodes, args) }
  end,
}
