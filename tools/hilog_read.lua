local hilog = require("harmony.hilog")
local device = require("harmony.device")

return {
  name = "hilog_read",
  description = "Read the device log buffer without blocking (hdc shell hilog -x), parsed into "
    .. "{time, pid, tid, level, domain, tag, message}. Filter by substring, minimum level or tag; "
    .. "keep the last `lines` entries.",
  params = {
    grep = { type = "string", optional = true, description = "Keep lines containing this text" },
    level = {
      type = "string",
      optional = true,
      enum = { "D", "I", "W", "E", "F" },
      description = "Minimum level",
    },
    tag = { type = "string", optional = true, description = "Keep this tag only" },
    lines = { type = "integer", default = 200, description = "Keep the last N matching lines" },
    target = { type = "string", optional = true, description = "Device connect key (hdc -t)" },
  },
  run = function(args)
    local argv = { "shell", "hilog", "-x" }
    if args.tag then
      table.insert(argv, "-T")
      table.insert(argv, args.tag)
    end
    local text = device.run_checked(args.target, argv)
    local entries = hilog.parse(
      text,
      { grep = args.grep, level = args.level, tag = args.tag, lines = args.lines }
    )
    return { entries = rein.json.array(entries), count = #entries }
  end,
}
