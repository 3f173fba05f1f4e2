local p = require("rein.file_params")

return {
  name = "read_file",
  description = "Read a UTF-8 text file as numbered lines (`     N\\tline`). Returns content, "
    .. "total_lines, start_line, end_line, truncated and the sha256 of the whole file (pass it "
    .. "as expected_sha256 to an edit to refuse stale writes). Large files: page with offset/limit.",
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
