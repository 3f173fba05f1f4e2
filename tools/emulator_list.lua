local emulator = require("harmony.emulator")

return {
  name = "emulator_list",
  description = "DevEco emulator instances (Emulator -list -details) with name, device type, OS "
    .. "version, API level, running or not and hdc port, and the images downloaded for a device "
    .. "type. Returns {instances, broken, images}.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {
    device_type = {
      type = "string",
      optional = true,
      description = "Images of this device type (default phone)",
    },
  },
  run = function(args)
    local listed = emulator.instances()
    local kind = args.device_type or "phone"
    local images, other = emulator.parse_images(
      emulator.run({ "-imageList", "-deviceType", kind, "-downloaded", "true" })
    )
    return {
      instances = rein.json.array(listed.instances),
      broken = rein.json.array(listed.broken),
      images = images and rein.json.array(images) or nil,
      images_unreadable = other,
    }
  end,
}
