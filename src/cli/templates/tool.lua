-- The tool "__NAME__", as `rein new tool` writes it: a working start whatever the name, which
-- reads one file of the workspace. Make it do what its name says: its description, params,
-- checks and run below. Then `rein check` and `rein test __NAME__`; try it with
-- `rein call __NAME__ '{"path":"AppScope/app.json5"}'`. The Lua API is in .rein/types
-- (`rein types` writes it) and in rein's book, "Writing your own tool" (docs/src/writing-tools.md).

---@type rein.Tool
local tool = {
  name = "__NAME__",
  -- Agents read this to decide when to call the tool: say what it does and what it returns.
  description = "__NAME__, as generated: reads a text file of the workspace and returns its path, size in bytes and sha256. Rewrite this with what __NAME__ does.",
  params = {
    path = { type = "string", description = "A text file, relative to the workspace root" },
  },
  -- Examples run in a scratch workspace by `rein test` (and before a hot reload).
  checks = {
    {
      files = { ["notes.txt"] = "one\ntwo\n" },
      args = { path = "notes.txt" },
      expect = { path = "notes.txt", bytes = 8 },
    },
    {
      args = { path = "missing.txt" },
      expect = { error = "FILE_NOT_FOUND" },
    },
  },
  run = function(args)
    local file = rein.fs.read_text(args.path)
    return { path = file.path, bytes = #file.text, sha256 = file.sha256 }
  end,
}

return tool
