local device = require("harmony.device")

return {
  name = "device_list",
  description = "Connected devices of the local hdc server and of each lab: key, connection, "
    .. "status, name, server, and a remedy for unauthorized or offline ones.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = true },
  params = {},
  run = function()
    local devices, servers = device.list()
    return { devices = rein.json.array(devices), servers = rein.json.array(servers) }
  end,
}
