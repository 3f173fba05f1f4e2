local p = require("rein.file_params")

return {
  name = "read_file",
  description = "Read a UTF-8 text file as numbered lines (`     N\\tline`). Returns content, "
    .. "total_lines, start_line, end_line, truncated and the sha256 of the whole file (pass it "
    .. "as expected_sha256 to an edit to refuse stale writes). Large files: page with offset/limit.",
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
  run = function(args)
    return rein.fs.read(args.path, { offset = args.offset, limit = args.limit })
  end,
}
