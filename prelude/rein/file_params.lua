-- Parameter declarations shared by the file tools, so every tool describes them alike.
local M = {}

M.path = { type = "string", description = "File, relative to the workspace" }

M.expected_sha256 = {
  type = "string",
  optional = true,
  description = "Refuse (STALE_FILE) unless the file has this sha256",
}

M.dry_run = { type = "boolean", default = false, description = "Show the diff without writing" }

M.replace_all = { type = "boolean", default = false, description = "Replace every occurrence" }

return M
