local device = require("harmony.device")
local screen = require("harmony.screen")
local ui = require("harmony.ui")

return {
  name = "ui_dump",
  description = "The device's screen now as compact text: a line per window and per widget with "
    .. "text, an id or a tap target, with bounds."
    .. 'an id or can be tapped (`<type> "<text>" #<id> [l,t][r,b]`, `tap` when clickable). Use '
    .. "ui_find to ask whether something is there.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = true },
  params = {
    bundle = {
      type = "string",
      optional = true,
      description = "Only this app's windows",
    },
    target = device.target_param(),
    server = device.server_param(),
  },
  run = function(args)
    local at = device.pick(args.target, args.server)
    local nodes, windows = ui.nodes(rein.json.decode(screen.layout(at, args.bundle)))
    local shown = rein.json.array({})
    for _, w in ipairs(windows) do
      shown[#shown + 1] = w
    end
    return { text = ui.compact(nodes, windows), nodes = #nodes, windows = shown }
  end,
}
