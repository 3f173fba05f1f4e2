local device = require("harmony.device")

return {
  name = "device_list",
  description = "List connected devices (hdc list targets -v) of this machine's hdc server and "
    .. "of every lab server home config.toml names: key, connection, status, name, server (local "
    .. "or the lab's name). Unauthorized or offline devices carry the fix in `remedy`; a lab that "
    .. "cannot be reached says why in `servers`. No devices: [].",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = true },
  params = {},
  run = function()
    local devices, servers = device.list()
    return { devices = rein.json.array(devices), servers = rein.json.array(servers) }
  end,
}
