local p = require("rein.file_params")

return {
  name = "write_file",
  description = "Create or replace a whole file atomically; returns bytes and sha256.",
  annotations = { read_only = false, destructive = true, idempotent = true, open_world = false },
  params = {
    path = p.path,
    content = { type = "string" },
    expected_sha256 = p.expected_sha256,
  },
  checks = {
    { args = { path = "new/a.txt", content = "hi\n" }, expect = { bytes = 3, created = true } },
  },
  run = function(args)
    return rein.fs.write(args.path, args.content, { expected_sha256 = args.expected_sha256 })
  end,
}
