local emulator = require("harmony.emulator")

return {
  name = "emulator_stop",
  description = "Stop a running DevEco emulator instance by name, checked by listing again.",
  annotations = { read_only = false, destructive = true, idempotent = true, open_world = false },
  params = {
    name = { type = "string" },
  },
  run = function(args)
    local before = emulator.instance(args.name)
    if not before.running and not emulator.kept_for(args.name) then
      return { name = args.name, stopped = true, was_running = false }
    end
    -- One rein keeps running is ended with its holder (its own -stop first); else -stop.
    local kept = emulator.kept_for(args.name)
    local out = ""
    if kept then
      rein.proc.stop_kept(kept.id)
    else
      out = emulator.run({ "-stop", args.name })
    end
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
