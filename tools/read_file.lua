local p = require("rein.file_params")

return {
  name = "read_file",
  description = "A UTF-8 text file as numbered lines, paged with offset/limit, with total_lines, "
    .. "truncated and its sha256 (an edit's expected_sha256).",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {
    path = p.path,
    offset = {
      type = "integer",
      optional = true,
      description = "First line to show, 1-based (default 1)",
    },
    limit = {
      type = "integer",
      optional = true,
      description = "How many lines to show (default 2000)",
    },
  },
  checks = {
    {
      files = { ["a.txt"] = "one\ntwo\n" },
      args = { path = "a.txt" },
      expect = { content = "     1\tone\n     2\ttwo", total_lines = 2, truncated = false },
    },
    { args = { path = "missing.txt" }, expect = { error = "FILE_NOT_FOUND" } },
  },
  run = function(args)
    return rein.fs.read(args.path, { offset = args.offset, limit = args.limit })
  end,
}
