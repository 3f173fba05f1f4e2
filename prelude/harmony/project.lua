-- The facts of a HarmonyOS project that tools need: bundle, version, modules, abilities,
-- products and signing configs, read from its JSON5 files through the kernel.
local M = {}

local function read_json5(path)
  return rein.json5.decode(rein.fs.read_text(path).text)
end

local function list_of(value)
  if type(value) == "table" then
    return value
  end
  return {}
end

local function module_info(entry)
  local src = entry.srcPath or ("./" .. tostring(entry.name))
  if type(src) == "string" then
    -- `./` is the workspace's root: "." (an empty path would make `/src/main/…` absolute).
    src = src:gsub("^%./", ""):gsub("/+$", "")
    src = src == "" and "." or src
  end
  -- build-profile.json5 is the agent's to write: a srcPath leading out of the workspace would
  -- have rein's own tools read (asking, so --yes would allow it) another folder's files.
  if type(src) ~= "string" or not rein.fs.in_workspace(src) then
    rein.error(
      "CONFIG_INVALID",
      "module "
        .. tostring(entry.name)
        .. "'s srcPath "
        .. tostring(src)
        .. " is not a folder of the workspace: rein reads only the project's own files",
      { module = entry.name, src_path = src, remedy = "move the module into the workspace" }
    )
  end
  local info = {
    name = entry.name,
    src_path = src,
    targets = rein.json.array({}),
    abilities = rein.json.array({}),
  }
  for _, target in ipairs(list_of(entry.targets)) do
    table.insert(info.targets, target.name)
  end
  local manifest_path = src .. "/src/main/module.json5"
  if rein.fs.exists(manifest_path) then
    local manifest = read_json5(manifest_path).module or {}
    info.type = manifest.type
    info.main_element = manifest.mainElement
    info.device_types = manifest.deviceTypes
    for _, ability in ipairs(list_of(manifest.abilities)) do
      table.insert(info.abilities, { name = ability.name, exported = ability.exported == true })
    end
  end
  return info
end

--- Reads AppScope/app.json5, build-profile.json5 and every module's module.json5.
function M.read()
  local app = read_json5("AppScope/app.json5").app or {}
  local profile = read_json5("build-profile.json5")
  local result = {
    bundle_name = app.bundleName,
    version_code = app.versionCode,
    version_name = app.versionName,
    modules = rein.json.array({}),
    products = rein.json.array({}),
    signing_configs = rein.json.array({}),
  }
  local app_profile = profile.app or {}
  for _, product in ipairs(list_of(app_profile.products)) do
    table.insert(result.products, { name = product.name, signing_config = product.signingConfig })
  end
  for _, config in ipairs(list_of(app_profile.signingConfigs)) do
    table.insert(result.signing_configs, config.name)
  end
  for _, entry in ipairs(list_of(profile.modules)) do
    table.insert(result.modules, module_info(entry))
  end
  return result
end

--- `given`, else the project's bundleName.
function M.bundle(given)
  return given or M.read().bundle_name
end

--- The entry module: the one of type "entry", else the first.
function M.entry_module(info)
  for _, module in ipairs(info.modules) do
    if module.type == "entry" then
      return module
    end
  end
  return info.modules[1]
end

-- Module types that make a package a device installs (module.json5 `type`; a HAR is built
-- into the packages that use it).
local PACKAGE_TYPES = { entry = true, feature = true, shared = true }

--- The names of the modules that make a package (.hap or .hsp), in build-profile.json5's order.
function M.package_modules(info)
  local names = rein.json.array({})
  for _, module in ipairs(info.modules) do
    if PACKAGE_TYPES[module.type or "entry"] then
      names[#names + 1] = module.name
    end
  end
  return names
end

--- The module called `name` (nil when `name` is nil or unknown).
function M.module_named(info, name)
  for _, module in ipairs(info.modules) do
    if name and module.name == name then
      return module
    end
  end
  return nil
end

--- The module `name` names, or the entry module when none is named; INVALID_ARGS when the
--- project has no such module.
function M.module_or_refuse(info, name)
  local module = M.module_named(info, name) or M.entry_module(info)
  if not module or (name and module.name ~= name) then
    rein.error("INVALID_ARGS", "the project has no module " .. tostring(name), { module = name })
  end
  return module
end

--- The signing material of a signingConfig in build-profile.json5 (paths as written).
function M.signing_material(name)
  local profile = read_json5("build-profile.json5")
  for _, config in ipairs(list_of((profile.app or {}).signingConfigs)) do
    if config.name == name then
      return config.material
    end
  end
  return nil
end

return M
