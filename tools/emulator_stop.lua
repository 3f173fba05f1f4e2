local emulator = require("harmony.emulator")

return {
  name = "emulator_stop",
  description = "Stops a running DevEco emulator instance by name (Emulator -stop), judged by "
    .. "listing again. Returns {name, stopped, was_running}.",
  annotations = { read_only = false, destructive = true, idempotent = true, open_world = false },
  params = {
    name = { type = "string", description = "The instance's name (emulator_list)" },
  },
  run = function(args)
    local before = emulator.find(emulator.instances(), args.name)
    if not before then
      rein.error(
        "EMULATOR_NOT_FOUND",
        "no emulator instance is named " .. args.name .. ": emulator_list shows them",
        { name = args.name }
      )
    end
    if not before.running then
      return { name = args.name, stopped = true, was_running = false }
    end
    local out = emulator.run({ "-stop", args.name })
    local after = emulator.find(emulator.instances(), args.name)
    if after and after.running then
      rein.error(
        "EMULATOR_FAILED",
        "Emulator -stop "
          .. args.name
          .. " left it running"
          .. (emulator.stop_refused(out) and " (it said the emulator does not exist)" or "")
          .. ": "
          .. require("harmony.text").tail(out, 300),
        { name = args.name, printed = out }
      )
    end
    return { name = args.name, stopped = true, was_running = true }
  end,
}
