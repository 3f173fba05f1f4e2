local markers = require("device-lab.markers")

return {
  name = "ready_devices",
  description = "The connect keys of the devices that are connected and authorized, and the "
    .. "log marker a launch of `ability` will print.",
  params = {
    ability = { type = "string", default = "EntryAbility", description = "Ability to launch" },
  },
  checks = {
    { args = { ability = "MainAbility" }, expect = { marker = "MainAbility onCreate" } },
  },
  run = function(args)
    local ready = rein.json.array({})
    local ok, listed = pcall(rein.tool, "device_list", {})
    if ok then
      for _, device in ipairs(listed.devices) do
        if device.status == "Connected" then
          table.insert(ready, device.key)
        end
      end
    end
    return { devices = ready, marker = markers.on_create(args.ability) }
  end,
}
