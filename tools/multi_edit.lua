return {
  name = "multi_edit",
  description = "Apply several exact replacements to one file, in order, all or nothing: if any "
    .. "edit is refused, nothing is written and the error names the edit (edit_index). Each "
    .. "edit sees the result of the ones before it.",
  params = {
    path = { type = "string", description = "File path, relative to the workspace root" },
    edits = {
      type = "array",
      description = "Edits applied in order",
      items = {
        type = "object",
        properties = {
          old_string = { type = "string", description = "Exact text to replace" },
          new_string = { type = "string", description = "Replacement text" },
          replace_all = {
            type = "boolean",
            default = false,
            description = "Replace every occurrence",
          },
        },
      },
    },
    dry_run = { type = "boolean", default = false, description = "Show the diff without writing" },
    expected_sha256 = {
      type = "string",
      optional = true,
      description = "Refuse (STALE_FILE) unless the file currently has this sha256",
    },
  },
  run = function(args)
    return rein.fs.multi_edit(args.path, args.edits, {
      dry_run = args.dry_run,
      expected_sha256 = args.expected_sha256,
    })
  end,
}
