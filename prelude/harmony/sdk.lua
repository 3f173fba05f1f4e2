-- The SDK's declarations for the tools: refusals with stable codes, a compact view of a
-- lookup for agents, and the project facts api_check judges against.
local project = require("harmony.project")

local M = {}

--- Raises SDK_NOT_FOUND or API_NOT_FOUND for a lookup or check that found nothing.
function M.refuse(result)
  if result.no_sdk then
    rein.error(
      "SDK_NOT_FOUND",
      "no HarmonyOS SDK with declaration files was found: " .. result.no_sdk.fix,
      { tried = result.no_sdk.tried, fix = result.no_sdk.fix }
    )
  end
  if result.not_found then
    local closest = result.not_found.closest or {}
    local hint = #closest > 0 and (" Closest: " .. table.concat(closest, ", ") .. ".") or ""
    rein.error(
      "API_NOT_FOUND",
      result.not_found.missing .. " is not in the SDK." .. hint,
      { missing = result.not_found.missing, closest = closest }
    )
  end
end

local function spans(marks)
  local out = {}
  for name, span in pairs(marks or {}) do
    if span == rein.json.null or type(span) ~= "table" then
      out[#out + 1] = name
    elseif span.to then
      out[#out + 1] = name .. " " .. span.from .. "-" .. span.to
    else
      out[#out + 1] = name .. " " .. span.from .. "+"
    end
  end
  table.sort(out)
  return table.concat(out, ", ")
end

local function compact_overload(o)
  local doc = o.doc or {}
  local view = { signature = o.signature, since = o.since, syscap = doc.syscap }
  if doc.permissions then
    local texts = {}
    for _, p in ipairs(doc.permissions) do
      texts[#texts + 1] = p.text
    end
    view.permission = table.concat(texts, "; ")
  end
  if doc.throws then
    local codes = {}
    for _, t in ipairs(doc.throws) do
      codes[#codes + 1] = t.code
    end
    view.throws = table.concat(codes, ",")
  end
  if doc.deprecated then
    view.deprecated = "since "
      .. doc.deprecated
      .. (doc.useinstead and ("; use " .. doc.useinstead) or "")
  end
  local marks = spans(doc.marks)
  if marks ~= "" then
    view.marks = marks
  end
  for _, p in ipairs(doc.params or {}) do
    if type(p.since) == "table" then
      view.param_since = view.param_since or {}
      view.param_since[p.name] = p.since.to and (p.since.from .. "-" .. p.since.to)
        or (p.since.from .. "+")
    end
  end
  return view
end

--- A lookup's result as an agent reads it: one line of facts per overload.
function M.compact(result)
  if result.module then
    return result
  end
  local s = result.symbol
  local view =
    { module = s.module, file = s.file, via_kit = s.via_kit, name = s.name, overloads = {} }
  for _, o in ipairs(s.overloads) do
    view.overloads[#view.overloads + 1] = compact_overload(o)
  end
  if s.members and #s.members > 0 then
    view.members = s.members
  end
  return view
end

local function owning_module(info, path)
  for _, module in ipairs(info.modules) do
    local prefix = module.src_path .. "/"
    if path:sub(1, #prefix) == prefix then
      return module
    end
  end
  return project.entry_module(info)
end

--- compatibleSdkVersion (the first product's, as build-profile.json5 writes it) and the
--- permissions requested by the module.json5 of the module that holds `path`.
function M.facts(path)
  local profile = rein.json5.decode(rein.fs.read_text("build-profile.json5").text)
  local products = (profile.app or {}).products or {}
  local compatible = products[1] and products[1].compatibleSdkVersion
  local facts = { permissions = rein.json.array({}) }
  if compatible ~= nil then
    facts.compatible_sdk = tostring(compatible)
  end
  local module = owning_module(project.read(), path)
  local manifest = module and (module.src_path .. "/src/main/module.json5")
  if manifest and rein.fs.exists(manifest) then
    local decoded = rein.json5.decode(rein.fs.read_text(manifest).text).module or {}
    for _, p in ipairs(decoded.requestPermissions or {}) do
      facts.permissions[#facts.permissions + 1] = p.name
    end
  end
  return facts
end

--- The findings for one workspace file.
function M.check(path)
  local facts = M.facts(path)
  local result = rein.sdk.check(rein.fs.read_text(path).text, facts)
  M.refuse(result)
  local counts = { error = 0, warning = 0, hint = 0 }
  for _, f in ipairs(result.findings) do
    counts[f.severity] = counts[f.severity] + 1
  end
  return {
    path = path,
    compatible_sdk = facts.compatible_sdk,
    findings = rein.json.array(result.findings),
    errors = counts.error,
    warnings = counts.warning,
    hints = counts.hint,
  }
end

return M
