-- A new Empty Ability project (src/harmony/scaffold), written file by file through the kernel,
-- never over an existing project: every path is looked at before the first write.
local config = require("harmony.config")

-- Files whose presence means a project (or part of one) is there already.
local PROJECT_MARKERS = { "build-profile.json5", "oh-package.json5", "AppScope", "hvigor" }

local function under(folder, rel)
  if folder == "." or folder == "" then
    return rel
  end
  return (folder:gsub("/+$", "")) .. "/" .. rel
end

-- The SDK level argument as the Rust side takes it: OpenHarmony writes an integer.
local function level(value, runtime_os)
  if value ~= nil and runtime_os == "OpenHarmony" then
    return math.tointeger(tonumber(value)) or value
  end
  return value
end

local sdk = '"6.0.0(20)" (HarmonyOS) or "20" (OpenHarmony)'

return {
  name = "project_create",
  description = "Create a HarmonyOS project (DevEco's Empty Ability, with ohosTest and local tests) "
    .. "in a folder that holds none. Returns the files written and config_check's result.",
  annotations = { read_only = false, destructive = false, idempotent = false, open_world = false },
  params = {
    bundle_name = { type = "string", description = "e.g. com.example.hello" },
    app_name = { type = "string", description = "Name people see" },
    path = { type = "string", default = ".", description = "Folder of the new project" },
    runtime_os = { type = "string", default = "HarmonyOS", enum = { "HarmonyOS", "OpenHarmony" } },
    compatible_sdk = {
      type = "string",
      optional = true,
      description = sdk .. "; default 6.0.0(20)",
    },
    target_sdk = { type = "string", optional = true, description = "Default: compatible_sdk" },
    compile_sdk = { type = "string", optional = true, description = "Written only when given" },
  },
  run = function(args)
    local files = rein.project.scaffold({
      bundle_name = args.bundle_name,
      app_name = args.app_name,
      runtime_os = args.runtime_os,
      compatible_sdk = level(args.compatible_sdk, args.runtime_os),
      target_sdk = level(args.target_sdk, args.runtime_os),
      compile_sdk = level(args.compile_sdk, args.runtime_os),
    })
    local existing = rein.json.array({})
    for _, marker in ipairs(PROJECT_MARKERS) do
      if rein.fs.exists(under(args.path, marker)) then
        existing[#existing + 1] = under(args.path, marker)
      end
    end
    for _, file in ipairs(files) do
      local path = under(args.path, file.path)
      if rein.fs.exists(path) then
        existing[#existing + 1] = path
      end
    end
    if #existing > 0 then
      rein.error(
        "PROJECT_EXISTS",
        "a project is already in " .. args.path .. " (" .. existing[1] .. "): nothing was written",
        {
          path = args.path,
          existing = existing,
          remedy = "pick an empty folder with path, or edit the project that is there",
        }
      )
    end
    local written = rein.json.array({})
    for _, file in ipairs(files) do
      local path = under(args.path, file.path)
      rein.fs.write(path, file.content)
      written[#written + 1] = path
    end
    return { path = args.path, files = written, check = config.check(args.path) }
  end,
}
