local emulator = require("harmony.emulator")

return {
  name = "emulator_list",
  description = "DevEco emulator instances (name, type, API level, running, port), images, and "
    .. "what rein keeps running.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {
    device_type = {
      type = "string",
      optional = true,
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
      -- What rein keeps running for this workspace (`rein ps`): a started emulator's holder.
      kept = rein.json.array(rein.proc.kept()),
    }
  end,
}
