local codelinter = require("harmony.codelinter")

return {
  name = "lint",
  description = "Runs DevEco's codelinter (read-only: never --fix) on the project or the files given. "
    .. "Returns {clean, levels (from its exit bits), token_counts, report}.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {
    paths = {
      type = "array",
      optional = true,
      items = { type = "string" },
      description = "files or folders in the workspace (default: the project)",
    },
    incremental = { type = "boolean", optional = true, description = "only Git-changed files (-i)" },
    product = { type = "string", optional = true, description = "active product (-p)" },
    timeout_ms = { type = "integer", optional = true, description = "deadline" },
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
