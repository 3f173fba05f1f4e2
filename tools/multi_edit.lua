local p = require("rein.file_params")

return {
  name = "multi_edit",
  description = "Several exact replacements in one file, in order, all or nothing (a refusal "
    .. "names edit_index). Returns what edit_file returns.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = false },
  params = {
    path = p.path,
    edits = {
      type = "array",
      description = "Edits applied in order",
      items = {
        type = "object",
        properties = {
          old_string = { type = "string", description = "Exact text to replace" },
          new_string = { type = "string", description = "Replacement text" },
          replace_all = p.replace_all,
        },
      },
    },
    dry_run = p.dry_run,
    expected_sha256 = p.expected_sha256,
  },
  checks = {
    {
      files = { ["a.txt"] = "one two\n" },
      args = {
        path = "a.txt",
        edits = {
          { old_string = "one", new_string = "1" },
          { old_string = "1 two", new_string = "1 2" },
        },
      },
      expect = { replacements = 2 },
    },
  },
  run = function(args)
    return rein.fs.multi_edit(args.path, args.edits, {
      dry_run = args.dry_run,
      expected_sha256 = args.expected_sha256,
    })
  end,
}
