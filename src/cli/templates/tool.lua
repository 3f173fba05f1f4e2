-- The tool "__NAME__". Edit it, then `rein check` and `rein test __NAME__`; try it with
-- `rein call __NAME__ '{"path":"AppScope/app.json5"}'`. The Lua API is in .rein/types
-- (`rein types` writes it) and in README's "Writing your own tool".

---@type rein.Tool
local tool = {
  name = "__NAME__",
  -- Agents read this to decide when to call the tool: say what it does and returns.
  description = "Count the lines of a text file in the workspace. Returns path, lines and sha256.",
  params = {
    path = { type = "string", description = "A text file, relative to the workspace root" },
  },
  -- Examples run in a scratch workspace by `rein test` (and before a hot reload).
  checks = {
    {
      files = { ["notes.txt"] = "one\ntwo\n" },
      args = { path = "notes.txt" },
      expect = { path = "notes.txt", lines = 2 },
    },
    {
      args = { path = "missing.txt" },
      expect = { error = "FILE_NOT_FOUND" },
    },
  },
  run = function(args)
    local file = rein.fs.read_text(args.path)
    local _, lines = file.text:gsub("\n", "")
    return { path = file.path, lines = lines, sha256 = file.sha256 }
  end,
}

return tool
