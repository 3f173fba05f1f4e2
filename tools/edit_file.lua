local p = require("rein.file_params")

return {
  name = "edit_file",
  description = "Replace one exact, unique occurrence of old_string (or all); returns the diff "
    .. "and hashes.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = false },
  params = {
    path = p.path,
    old_string = {
      type = "string",
      description = "Exact text, as read_file shows it without line numbers",
    },
    new_string = {
      type = "string",
    },
    replace_all = p.replace_all,
    dry_run = p.dry_run,
    expected_sha256 = p.expected_sha256,
  },
  checks = {
    {
      files = { ["a.ets"] = "let a = 1;\nlet b = 1;\n" },
      args = { path = "a.ets", old_string = "a = 1", new_string = "a = 2" },
      expect = { replacements = 1, locations = { { line = 1, column = 5 } } },
    },
    {
      files = { ["a.ets"] = "x = 1\nx = 1\n" },
      args = { path = "a.ets", old_string = "x = 1", new_string = "x = 2" },
      expect = { error = "OLD_STRING_NOT_UNIQUE" },
    },
  },
  run = function(args)
    return rein.fs.edit(args.path, args.old_string, args.new_string, {
      replace_all = args.replace_all,
      dry_run = args.dry_run,
      expected_sha256 = args.expected_sha256,
    })
  end,
}
