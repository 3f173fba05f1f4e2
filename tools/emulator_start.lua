-- Starts a DevEco emulator instance kept running past this call (`emulator -start <name>`,
-- a long-running supervisor: shared/HARMONY-VERIFY.md §6 "Start"), then waits until hdc sees
-- it and its `bootevent.boot.completed` is `true` (§6 "Ready check"). The start always asks
-- a person (or their rule); docs/src/emulator.md says how rein keeps it.
local device = require("harmony.device")
local emulator = require("harmony.emulator")
local strings = require("harmony.text")
local wait = require("rein.wait")

local POLL_MS = 500

-- The key of instance `name` once booted; else nil and the key hdc shows it at, if any.
local function booted_key(name)
  for _, d in ipairs((device.list())) do
    if d.emulator and d.instance == name and d.status == "Connected" then
      local at = { key = d.key, server = d.server_address }
      local done =
        strings.trim(device.run(at, { "shell", "param", "get", "bootevent.boot.completed" }))
      if done == "true" then
        return d.key
      end
      return nil, d.key
    end
  end
  return nil
end

local function log_of(kept)
  return table.concat(kept.log_tail or {}, "\n")
end

return {
  name = "emulator_start",
  description = "Start a DevEco emulator kept running (asks a person) and wait for its boot; "
    .. "returns {name, key, kept_id}.",
  annotations = { read_only = false, destructive = false, idempotent = true, open_world = false },
  params = {
    name = { type = "string" },
    deadline_ms = { type = "integer", default = 180000 },
  },
  run = function(args)
    if args.deadline_ms < 1000 or args.deadline_ms > 600000 then
      rein.error("INVALID_ARGS", "deadline_ms is 1000-600000, not " .. args.deadline_ms)
    end
    local instance = emulator.instance(args.name)
    local kept = emulator.kept_for(args.name)
    local started = false
    if not instance.running and not kept then
      kept = rein.proc.keep("emulator", { "-start", args.name })
      started = true
    end
    local budget, seen = wait.budget(args.deadline_ms), nil
    while true do
      local key, at = booted_key(args.name)
      if key then
        return { name = args.name, key = key, kept_id = kept and kept.id or nil, started = started }
      end
      seen = at or seen
      if kept then
        local now = rein.proc.kept(kept.id)
        if now.state == "ended" then
          rein.error(
            "EMULATOR_FAILED",
            "Emulator -start "
              .. args.name
              .. " ended before it booted; its log ends:\n"
              .. log_of(now),
            { name = args.name, kept_id = kept.id, log = now.log, log_tail = now.log_tail }
          )
        end
      end
      if budget:over() then
        local tail = kept and log_of(rein.proc.kept(kept.id)) or ""
        rein.error(
          "EMULATOR_NOT_READY",
          "emulator "
            .. args.name
            .. " did not boot within "
            .. args.deadline_ms
            .. " ms ("
            .. (seen and ("hdc sees it at " .. seen .. ", bootevent.boot.completed is not true") or "hdc does not see it")
            .. "); it keeps running: emulator_stop ends it"
            .. (tail ~= "" and (". Its log ends:\n" .. tail) or ""),
          { name = args.name, key = seen, kept_id = kept and kept.id or nil }
        )
      end
      budget:pause(POLL_MS)
    end
  end,
}
