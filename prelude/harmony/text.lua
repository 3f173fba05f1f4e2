-- Small text helpers shared by the harmony parsers. Pure: string and table only.
local M = {}

-- Every line of `text` without its "\n"; a "\r" before it is kept (hdc's auth messages carry
-- "\r\n" inside one message, and fail_line needs to see that).
function M.lines(text)
  local out = {}
  if text == nil or text == "" then
    return out
  end
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    out[#out + 1] = line
  end
  if out[#out] == "" then
    out[#out] = nil
  end
  return out
end

function M.trim(s)
  return (s:gsub("^%s+", ""):gsub("%s+$", ""))
end

-- Plain (not pattern) substring test.
function M.has(text, needle)
  return text:find(needle, 1, true) ~= nil
end

-- "1 min 14 s 227 ms" (hvigor) or "0s 431ms" (ohpm) in milliseconds; nil if no unit is found.
function M.duration_ms(s)
  local scale = { h = 3600000, min = 60000, s = 1000, ms = 1 }
  local total, seen = 0, false
  for n, unit in s:gmatch("(%d+)%s*(%a+)") do
    if scale[unit] then
      total = total + tonumber(n) * scale[unit]
      seen = true
    end
  end
  return seen and total or nil
end

-- "path:line:column" (also "E:/a/b.ets:3:4", with a drive letter) → path, line, column.
function M.location(s)
  s = M.trim(s)
  local file, line, column = s:match("^(.-):(%d+):(%d+)$")
  if not file then
    file, line = s:match("^(.-):(%d+)$")
  end
  if not file or file == "" then
    return nil
  end
  return file, tonumber(line), column and tonumber(column) or nil
end

-- Joins the trimmed, non-empty strings of `parts` with a space.
function M.join(parts)
  local kept = {}
  for _, part in ipairs(parts) do
    local t = M.trim(part)
    if t ~= "" then
      kept[#kept + 1] = t
    end
  end
  return table.concat(kept, " ")
end

-- The last `n` characters at most, for echoing unrecognised output back.
function M.tail(s, n)
  s = M.trim(s or "")
  if #s <= n then
    return s
  end
  -- Start on a character, not inside a UTF-8 sequence.
  return "…" .. (s:sub(-n):gsub("^[\128-\191]+", ""))
end

return M
