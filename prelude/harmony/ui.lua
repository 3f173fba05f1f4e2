-- The UI tree `uitest dumpLayout` writes, read into flat nodes, a compact text an agent reads in
-- tens of tokens, and a search. The shape is testfwk_arkxtest's uitest (core/dump_handler.cpp
-- `DFSMarshalWidget`: `{"attributes": {…}, "children": […]}`, every attribute a string, named
-- by core/ui_model.h `ATTR_NAMES`: `type`, `text`, `id`, `key`, `bounds` as "[l,t][r,b]",
-- `clickable`, `visible` …; core/ui_driver.cpp `DumpUiHierarchy`: a root, then one node per
-- window holding `bundleName`, `abilityName`, `pagePath`). hypium reads it the same way
-- (uidriver/uitree/uitree.py `parse_bounds`, `UiWidget`: `attributes`, `text`, `id`).
local M = {}

-- Lines of the compact form at most; a screen rarely has more widgets worth naming.
local MAX_LINES = 120
-- Texts longer than this are cut in the compact form (the JSON keeps them whole).
local MAX_TEXT = 60

-- "[l,t][r,b]" → { l, t, r, b }, or nil.
function M.parse_bounds(text)
  local l, t, r, b = tostring(text or ""):match("^%[(%-?%d+),(%-?%d+)%]%[(%-?%d+),(%-?%d+)%]$")
  if not l then
    return nil
  end
  return { tonumber(l), tonumber(t), tonumber(r), tonumber(b) }
end

local function attr(attributes, name)
  local v = attributes[name]
  if v == nil or v == rein.json.null then
    return ""
  end
  return tostring(v)
end

local function node_of(attributes, depth, window)
  local bounds = M.parse_bounds(attributes.bounds)
  local id = attr(attributes, "id")
  return {
    type = attr(attributes, "type"),
    text = attr(attributes, "text"),
    id = id ~= "" and id or attr(attributes, "key"),
    bounds = attr(attributes, "bounds"),
    center = bounds and {
      x = math.floor((bounds[1] + bounds[3]) / 2),
      y = math.floor((bounds[2] + bounds[4]) / 2),
    } or nil,
    clickable = attributes.clickable == "true",
    depth = depth,
    bundle = window and window.bundle or nil,
  }
end

local function walk(tree, depth, window, nodes, windows)
  if type(tree) ~= "table" then
    return
  end
  local attributes = type(tree.attributes) == "table" and tree.attributes or {}
  local bundle = attr(attributes, "bundleName")
  if bundle ~= "" then
    window = {
      bundle = bundle,
      ability = attr(attributes, "abilityName"),
      page = attr(attributes, "pagePath"),
    }
    windows[#windows + 1] = window
  end
  if depth > 0 and attributes.visible ~= "false" then
    nodes[#nodes + 1] = node_of(attributes, depth, window)
  end
  for _, child in ipairs(type(tree.children) == "table" and tree.children or {}) do
    walk(child, depth + 1, window, nodes, windows)
  end
end

-- The decoded dumpLayout JSON → the nodes in document order (the merged root left out), each
-- `{ type, text, id, bounds, center?, clickable, depth, bundle? }` (`id` is the widget's `id`,
-- else its `key`), and second the windows `{ bundle, ability, page }`.
function M.nodes(tree)
  local nodes, windows = {}, {}
  walk(tree, 0, nil, nodes, windows)
  return nodes, windows
end

local function shown(text)
  if #text > MAX_TEXT then
    text = text:sub(1, MAX_TEXT) .. "…"
  end
  return '"' .. text:gsub("[\r\n\t]", " ") .. '"'
end

-- A node worth a line: it says something (text or id) or can be tapped.
local function named(node)
  return node.text ~= "" or node.id ~= "" or node.clickable
end

-- One line per window (`window <bundle> <ability> <page>`) and per widget that shows text, has
-- an id or can be tapped: `<type> "<text>" #<id> <bounds>` (a tappable one ends in ` tap`).
function M.compact(nodes, windows)
  local lines, more = {}, 0
  local function add(line)
    if #lines < MAX_LINES then
      lines[#lines + 1] = line
    else
      more = more + 1
    end
  end
  local seen_window = {}
  for _, w in ipairs(windows or {}) do
    add(("window " .. w.bundle .. " " .. w.ability .. " " .. w.page):gsub("%s+$", ""))
    seen_window[w.bundle] = true
  end
  for _, node in ipairs(nodes) do
    if named(node) then
      local parts = { node.type ~= "" and node.type or "?" }
      if node.text ~= "" then
        parts[#parts + 1] = shown(node.text)
      end
      if node.id ~= "" then
        parts[#parts + 1] = "#" .. node.id
      end
      parts[#parts + 1] = node.bounds
      if node.clickable then
        parts[#parts + 1] = "tap"
      end
      add(table.concat(parts, " "))
    end
  end
  if #lines == 0 then
    add("(nothing on screen shows text)")
  end
  if more > 0 then
    lines[#lines + 1] = "… " .. more .. " more"
  end
  return table.concat(lines, "\n") .. "\n"
end

-- The nodes matching every field `query` gives: `text` (the whole text; with `contains` a part
-- of it), `id` (id or key), `type`.
function M.find(nodes, query)
  local found = {}
  for _, node in ipairs(nodes) do
    local ok = true
    if query.text then
      if query.contains then
        ok = node.text:find(query.text, 1, true) ~= nil
      else
        ok = node.text == query.text
      end
    end
    ok = ok and (query.id == nil or node.id == query.id)
    ok = ok and (query.type == nil or node.type == query.type)
    if ok then
      found[#found + 1] = node
    end
  end
  return found
end

-- The texts on screen, each once, in order (at most `limit`): what a failure names.
function M.texts(nodes, limit)
  local out, seen = {}, {}
  for _, node in ipairs(nodes) do
    if node.text ~= "" and not seen[node.text] then
      seen[node.text] = true
      if #out < (limit or 20) then
        out[#out + 1] = node.text
      end
    end
  end
  return out
end

-- A node as a tool returns it.
function M.public(node)
  return {
    type = node.type,
    text = node.text,
    id = node.id,
    bounds = node.bounds,
    center = node.center,
    clickable = node.clickable,
    bundle = node.bundle,
  }
end

return M
