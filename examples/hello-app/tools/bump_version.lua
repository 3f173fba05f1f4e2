-- A project tool: raise versionCode (and optionally set versionName) in AppScope/app.json5
-- with one exact edit per field, guarded by the sha256 of the file as it was read.
local APP_JSON = "AppScope/app.json5"

local function exact_field(text, key)
  local line = text:match('[^\n]*"' .. key .. '"%s*:%s*[^\n]*')
  if not line then
    rein.error("FIELD_NOT_FOUND", APP_JSON .. " has no " .. key .. "; is this a HarmonyOS project?")
  end
  return line
end

return {
  name = "bump_version",
  description = "Raise versionCode in AppScope/app.json5 by `by` (default 1) and optionally "
    .. "set versionName. Returns the old and new values and the diff.",
  params = {
    by = { type = "integer", default = 1, description = "How much to add to versionCode" },
    version_name = { type = "string", optional = true, description = "New versionName, e.g. 1.0.1" },
    dry_run = { type = "boolean", default = false, description = "Show the diff only" },
  },
  checks = {
    {
      files = {
        ["AppScope/app.json5"] = '{\n  "app": {\n    "versionCode": 7,\n    "versionName": "1.0.0"\n  }\n}\n',
      },
      args = { by = 2, version_name = "1.0.1" },
      expect = {
        version_code = { old = 7, new = 9 },
        version_name = { old = "1.0.0", new = "1.0.1" },
      },
    },
    { args = {}, expect = { error = "FILE_NOT_FOUND" } },
  },
  run = function(args)
    if args.by < 1 then
      rein.error("INVALID_ARGS", "`by` must be at least 1")
    end
    local file = rein.fs.read_text(APP_JSON)
    local code_line = exact_field(file.text, "versionCode")
    local old_code = tonumber(code_line:match("(%d+)"))
    local new_code = old_code + args.by
    local edits = {
      { old_string = code_line, new_string = (code_line:gsub("%d+", tostring(new_code), 1)) },
    }
    local old_name
    if args.version_name then
      local name_line = exact_field(file.text, "versionName")
      old_name = name_line:match(':%s*"([^"]*)"')
      local new_line = name_line:gsub(':%s*"[^"]*"', ': "' .. args.version_name .. '"', 1)
      table.insert(edits, { old_string = name_line, new_string = new_line })
    end
    local result = rein.fs.multi_edit(APP_JSON, edits, {
      dry_run = args.dry_run,
      expected_sha256 = file.sha256,
    })
    return {
      version_code = { old = old_code, new = new_code },
      version_name = args.version_name and { old = old_name, new = args.version_name } or nil,
      diff = result.diff,
      path = result.path,
      replacements = result.replacements,
      dry_run = args.dry_run,
    }
  end,
}
