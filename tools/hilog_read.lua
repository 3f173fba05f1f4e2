local hilog = require("harmony.hilog")
local device = require("harmony.device")

return {
  name = "hilog_read",
  description = "The device log without blocking, filtered by text, level, tag or pid.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = true },
  params = {
    grep = { type = "string", optional = true },
    level = {
      type = "string",
      optional = true,
      enum = { "D", "I", "W", "E", "F" },
    },
    tag = { type = "string", optional = true },
    pid = { type = "integer", optional = true, description = "Keep this process's lines only" },
    lines = { type = "integer", default = 200 },
    target = device.target_param(),
    server = device.server_param(),
  },
  run = function(args)
    local argv = { "shell", "hilog", "-x" }
    if args.tag then
      table.insert(argv, "-T")
      table.insert(argv, args.tag)
    end
    if args.pid then
      table.insert(argv, "-P")
      table.insert(argv, tostring(args.pid))
    end
    local text = device.run_checked(device.pick(args.target, args.server), argv)
    local entries = hilog.parse(
      text,
      { grep = args.grep, level = args.level, tag = args.tag, pid = args.pid, lines = args.lines }
    )
    return { entries = rein.json.array(entries), count = #entries }
  end,
}
