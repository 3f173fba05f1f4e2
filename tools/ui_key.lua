local act = require("harmony.ui_act")

-- Names uitest knows (`Home`, `Back`, `Power`); every other key goes by its code (hypium
-- `KeyCode`, hmdriver2 `proto.KeyCode`: shared/HARMONY-VERIFY.md §3.1).
local KEYS = {
  home = "Home",
  back = "Back",
  power = "Power",
  enter = 2054,
  backspace = 2055,
  delete = 2071,
  tab = 2049,
  space = 2050,
  escape = 2070,
  up = 2012,
  down = 2013,
  left = 2014,
  right = 2015,
  volume_up = 16,
  volume_down = 17,
  recent = 2210,
}

local names = {}
for name in pairs(KEYS) do
  names[#names + 1] = name
end
table.sort(names)

return {
  name = "ui_key",
  description = "Presses a key on the device (back, home, enter, backspace …; power always asks); "
    .. "returns what changed on screen.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = act.expect_params({
    key = { type = "string", enum = names, description = "The key" },
    target = require("harmony.device").target_param(),
    server = require("harmony.device").server_param(),
  }),
  run = function(args)
    return act.act(args, "key " .. args.key, function()
      return { steps = { { "keyEvent", KEYS[args.key] } } }
    end)
  end,
}
