local act = require("harmony.ui_act")
local actions = require("harmony.ui_actions")

local names = {}
for name in pairs(actions.KEYS) do
  names[#names + 1] = name
end
table.sort(names)

return {
  name = "ui_key",
  description = "Press a key (back, home, enter …); returns what changed.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = act.expect_params({
    key = { type = "string", enum = names },
    target = require("harmony.device").target_param(),
    server = require("harmony.device").server_param(),
  }),
  run = actions.key,
}
