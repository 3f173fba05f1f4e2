local hdc = require("harmony.hdc")
local device = require("harmony.device")

return {
  name = "device_list",
  description = "List connected devices (hdc list targets -v): key, connection, status, name. "
    .. "Unauthorized or offline devices carry the fix in `remedy`. [] when none is connected.",
  params = {},
  run = function()
    local text = device.run(nil, { "list", "targets", "-v" })
    local targets, fail = hdc.parse_targets(text, true)
    if fail then
      rein.error("DEVICE_UNAVAILABLE", fail.message .. ". " .. fail.remedy, fail)
    end
    return { devices = rein.json.array(targets) }
  end,
}
