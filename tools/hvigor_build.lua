local hvigor = require("harmony.hvigor")
local project = require("harmony.project")

-- assembleHap packages the entry and feature modules; a shared module (HSP) is packaged by
-- assembleHsp (shared/HARMONY.md §1, the tasks): both when the project has one.
local function tasks_for(args)
  local info = project.read()
  local chosen = args.module and project.module_named(info, args.module)
  for _, module in ipairs(chosen and { chosen } or info.modules) do
    if module.type == "shared" then
      return chosen and { "assembleHsp" } or { "assembleHap", "assembleHsp" }
    end
  end
  return { "assembleHap" }
end

local function build_args(args)
  local argv = {
    "--mode",
    "module",
    "-p",
    "product=" .. args.product,
    "-p",
    "buildMode=" .. args.build_mode,
  }
  if args.module then
    table.insert(argv, "-p")
    table.insert(argv, "module=" .. args.module .. "@default")
  end
  for _, task in ipairs(tasks_for(args)) do
    table.insert(argv, task)
  end
  table.insert(argv, "--no-daemon")
  return argv
end

-- The packages the build wrote: <module>/build/<product>/outputs/<target>/*.hap and *.hsp
local function find_haps(product)
  local haps = rein.json.array({})
  for _, entry in ipairs(rein.fs.list(".", { depth = 6, max_entries = 20000 }).entries) do
    local path = entry.path
    if
      entry.kind == "file"
      and (path:match("%.hap$") or path:match("%.hsp$"))
      and path:find("/build/" .. product .. "/outputs/", 1, true)
    then
      table.insert(haps, { path = path, signed = path:match("%-signed%.h[as]p$") ~= nil })
    end
  end
  return haps
end

return {
  name = "hvigor_build",
  description = "Build the project's HAPs and HSPs with hvigorw. Returns their paths; "
    .. "BUILD_FAILED lists the ArkTS errors with a remedy.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = {
    module = {
      type = "string",
      optional = true,
      description = "Build only this module (e.g. entry)",
    },
    product = {
      type = "string",
      default = "default",
      description = "Product from build-profile.json5",
    },
    build_mode = { type = "string", default = "debug", enum = { "debug", "release" } },
    clean = { type = "boolean", default = false, description = "Run hvigorw clean first" },
    timeout_ms = { type = "integer", optional = true, description = "Deadline (default 900 s)" },
  },
  run = function(args)
    if args.clean then
      rein.proc.run("hvigorw", { "clean", "--no-daemon" }, { timeout_ms = args.timeout_ms })
    end
    local run = rein.proc.run("hvigorw", build_args(args), { timeout_ms = args.timeout_ms })
    local build = hvigor.parse_build(run.stdout, run.stderr, run.code)
    if not build.ok then
      hvigor.refuse_failed(build, run)
    end
    return {
      ok = true,
      haps = find_haps(args.product),
      duration_ms = build.duration_ms,
      warnings = rein.json.array(build.warnings),
    }
  end,
}
