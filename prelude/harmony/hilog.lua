-- Parser for `hdc shell hilog -x` lines:
-- "01-01 08:10:55.571  2291  2291 I A00000/testTag: AAAAAAAA napi testprint testzzz"
-- (time, pid, tid, level D/I/W/E/F, type letter A/C/I/K/P + 5 hex digits of domain, tag).
local M = {}

local RANK = { D = 1, I = 2, W = 3, E = 4, F = 5 }
local LEVEL_NAMES = { debug = "D", info = "I", warn = "W", warning = "W", error = "E", fatal = "F" }

local HEAD = "(%d%d%-%d%d %d%d:%d%d:%d%d%.%d+)%s+(%d+)%s+(%d+)%s+([DIWEF])%s+(%u)(%x%x%x%x%x)/"

-- One line → `{ time, pid, tid, level, type, domain, tag, message }` (pid and tid numbers,
-- level and type letters, domain the 5 hex digits as printed); nil for any other line.
-- A leading year ("2024-01-01 …", hilog -v year) is accepted and kept in `time`.
function M.parse_line(line)
  line = line:gsub("\r$", "")
  local year, rest = line:match("^(%d%d%d%d%-)(.*)$")
  local time, pid, tid, level, kind, domain, tail = (rest or line):match("^" .. HEAD .. "(.*)$")
  if not time then
    return nil
  end
  local tag, message = tail:match("^(.-): (.*)$")
  if not tag then
    tag, message = tail:match("^(.-):$"), ""
  end
  if not tag then
    return nil
  end
  return {
    time = (year or "") .. time,
    pid = tonumber(pid),
    tid = tonumber(tid),
    level = level,
    type = kind,
    domain = domain,
    tag = tag,
    message = message,
  }
end

local function min_rank(level)
  if level == nil then
    return nil
  end
  local letter = LEVEL_NAMES[level:lower()] or level:sub(1, 1):upper()
  return RANK[letter]
    or error("level must be one of D, I, W, E, F (got " .. tostring(level) .. ")", 3)
end

-- `parse(text, { grep?, level?, tag?, pid?, lines? })` → list of parsed lines, in order.
-- grep: plain substring of the raw line; level: the lowest level kept ("W" keeps W, E and F;
-- names like "warn" work too); tag: exact tag; lines: keep only the last N matches.
function M.parse(text, opts)
  opts = opts or {}
  local floor = min_rank(opts.level)
  local out = {}
  for raw in ((text or "") .. "\n"):gmatch("([^\n]*)\n") do
    local entry = M.parse_line(raw)
    if
      entry
      and (not floor or RANK[entry.level] >= floor)
      and (not opts.tag or entry.tag == opts.tag)
      and (not opts.pid or entry.pid == opts.pid)
      and (not opts.grep or raw:find(opts.grep, 1, true))
    then
      out[#out + 1] = entry
    end
  end
  local keep = opts.lines
  if keep and #out > keep then
    return table.move(out, #out - keep + 1, #out, 1, {})
  end
  return out
end

return M
