local codelinter = require("harmony.codelinter")

return {
  name = "lint",
  description = "Run DevEco's codelinter read-only on the project or the files given; returns "
    .. "its levels and report.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {
    paths = {
      type = "array",
      optional = true,
      items = { type = "string" },
      description = "files or folders in the workspace (default: the project)",
    },
    incremental = { type = "boolean", optional = true },
    product = { type = "string", optional = true },
    timeout_ms = { type = "integer", optional = true },
  },
  run = function(args)
    local argv = { "-e", "error,warn,suggestion" }
    if args.incremental then
      argv[#argv + 1] = "-i"
    end
    if args.product then
      argv[#argv + 1] = "-p"
      argv[#argv + 1] = args.product
    end
    for _, path in ipairs(args.paths or {}) do
      argv[#argv + 1] = path
    end
    local run = rein.proc.run("codelinter", argv, { timeout_ms = args.timeout_ms })
    return codelinter.read(run)
  end,
}
