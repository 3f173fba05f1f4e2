-- DevEco's hstack (shared/HARMONY-VERIFY.md §7), where the command-line tools are installed:
-- `hstack -c "<stack>" -s <the build's source map folder> [-n <its name cache folder>]`,
-- confined read-only, the restored stack read from stdout. rein maps every stack it shows
-- itself (rein.fs.map_stack); this is hstack's own word beside it, for a person who trusts it.
local project = require("harmony.project")
local text = require("harmony.text")

-- Frames restored per call: each is one run of hstack.
local MAX_FRAMES = 20

return {
  name = "hstack",
  description = "Restore a crash stack with DevEco's hstack, if installed; returns the restored "
    .. "lines.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {
    stack = { type = "string" },
    module = { type = "string", optional = true },
    mode = { type = "string", enum = { "release", "debug" }, default = "release" },
    timeout_ms = { type = "integer", optional = true },
  },
  run = function(args)
    local module = project.module_or_refuse(project.read(), args.module)
    local maps = rein.fs.build_maps(module.src_path, args.mode)
    if not rein.fs.exists(maps.source_maps .. "/sourceMaps.map") then
      rein.error(
        "FILE_NOT_FOUND",
        "no source map for the " .. args.mode .. " build of module " .. module.name,
        {
          path = maps.source_maps .. "/sourceMaps.map",
          remedy = "build the module in that mode (hvigor_build), then restore the stack",
        }
      )
    end
    local extra = {}
    if args.mode == "release" and rein.fs.exists(maps.name_cache .. "/nameCache.json") then
      extra = { "-n", maps.name_cache }
    end
    -- rein hands no program a control character, so each frame goes as its own `-c`; the
    -- stack's other lines (its message) are kept as given.
    local restored, frames = rein.json.array({}), 0
    for _, line in ipairs(text.lines(args.stack)) do
      if line:match("^%s*at ") and frames < MAX_FRAMES then
        frames = frames + 1
        local argv = { "-c", line, "-s", maps.source_maps, table.unpack(extra) }
        local run = rein.proc.run("hstack", argv, { timeout_ms = args.timeout_ms })
        if run.code ~= 0 then
          rein.error("HSTACK_FAILED", "hstack exited " .. tostring(run.code), {
            stdout = run.stdout,
            stderr = run.stderr,
            remedy = "hstack needs Node on PATH; rein's own mapping (crash_scan, device_test) "
              .. "needs neither",
          })
        end
        for _, out in ipairs(text.lines(run.stdout)) do
          if text.trim(out) ~= "" then
            restored[#restored + 1] = out
          end
        end
      elseif text.trim(line) ~= "" then
        restored[#restored + 1] = line
      end
    end
    return {
      restored = restored,
      source_maps = maps.source_maps,
      name_cache = extra[2],
      -- Each restored frame placed in the workspace as rein places any stack.
      source = rein.fs.map_stack(restored),
    }
  end,
}
