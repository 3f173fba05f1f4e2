return {
  name = "list_dir",
  description = "List a directory: each entry's path, kind and size; depth > 1 descends (not into "
    .. ".git, node_modules, oh_modules, .hvigor, target).",
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
      description = "Levels to list (1-16)",
    },
    max_entries = {
      type = "integer",
      default = 1000,
      description = "Stop after this many (truncated is then true)",
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
