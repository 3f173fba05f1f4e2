return {
  name = "list_dir",
  description = "List a directory: each entry's path (relative to the workspace), kind "
    .. "(file, dir, symlink, other) and size. depth > 1 descends into subdirectories, "
    .. "except .git, node_modules, oh_modules, .hvigor and target (rein's own .rein is not listed).",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {
    path = {
      type = "string",
      default = ".",
      description = "Directory, relative to the workspace root",
    },
    depth = {
      type = "integer",
      default = 1,
      description = "How many levels to list (1 = just this directory, at most 16)",
    },
    max_entries = {
      type = "integer",
      default = 1000,
      description = "Stop after this many entries (truncated is then true)",
    },
  },
  checks = {
    {
      files = { ["src/a.ets"] = "" },
      args = { depth = 2 },
      expect = {
        entries = { { path = "src", kind = "dir" }, { path = "src/a.ets", kind = "file" } },
      },
    },
  },
  run = function(args)
    return rein.fs.list(args.path, { depth = args.depth, max_entries = args.max_entries })
  end,
}
