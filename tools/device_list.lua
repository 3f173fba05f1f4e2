local device = require("harmony.device")

return {
  name = "device_list",
  description = "Connected devices (local hdc server and labs): key, status, name, server; a "
    .. "remedy for unusable ones.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = true },
  params = {},
  run = function()
    local devices, servers = device.list()
    return { devices = rein.json.array(devices), servers = rein.json.array(servers) }
  end,
}
