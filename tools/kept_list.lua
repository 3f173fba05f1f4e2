-- The programs rein keeps running for this workspace (a started emulator), as `rein ps` shows
-- them: docs/src/emulator.md "Programs rein keeps running".
return {
  name = "kept_list",
  description = "Programs rein keeps running past their call (a started emulator): id, state, "
    .. "command, log tail.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {},
  run = function()
    return { kept = rein.json.array(rein.proc.kept()) }
  end,
}
