return {
  name = "list_dir",
  description = "List a directory: path, kind and size of each entry; depth > 1 descends.",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {
    path = {
      type = "string",
      default = ".",
    },
    depth = {
      type = "integer",
      default = 1,
    },
    max_entries = {
      type = "integer",
      default = 1000,
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
