local device = require("harmony.device")
local screen = require("harmony.screen")
local ui = require("harmony.ui")

-- Matches returned at most (`count` says how many there were).
local MAX_MATCHES = 20

return {
  name = "ui_find",
  description = "Whether a widget is on the device's screen now, by text (part with "
    .. "contains=true), id and/or type. Returns found, count and the matches with bounds; "
    .. "on_screen texts when none matched.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = true },
  params = {
    text = { type = "string", optional = true, description = "The widget's text" },
    contains = {
      type = "boolean",
      default = false,
      description = "Match a part of the text instead of the whole",
    },
    id = { type = "string", optional = true, description = "The widget's id (or key)" },
    type = { type = "string", optional = true, description = "The widget's type: Text, Button …" },
    bundle = {
      type = "string",
      optional = true,
      description = "Only this app's windows",
    },
    target = device.target_param(),
    server = device.server_param(),
  },
  run = function(args)
    if not (args.text or args.id or args.type) then
      rein.error("INVALID_ARGS", "ui_find needs text, id or type (or several): what to look for")
    end
    local at = device.pick(args.target, args.server)
    local nodes = ui.nodes(rein.json.decode(screen.layout(at, args.bundle)))
    local found = ui.find(nodes, args)
    local matches = rein.json.array({})
    for i = 1, math.min(#found, MAX_MATCHES) do
      matches[#matches + 1] = ui.public(found[i])
    end
    local result = {
      found = #found > 0,
      count = #found,
      ambiguous = #found > 1,
      matches = matches,
    }
    if #found == 0 then
      result.on_screen = rein.json.array(ui.texts(nodes, 30))
    end
    return result
  end,
}
