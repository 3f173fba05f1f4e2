local p = require("rein.file_params")

return {
  name = "read_file",
  description = "A text file as numbered lines, paged, with its sha256 (for an edit's "
    .. "expected_sha256).",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = false },
  params = {
    path = p.path,
    offset = {
      type = "integer",
      optional = true,
    },
    limit = {
      type = "integer",
      optional = true,
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
