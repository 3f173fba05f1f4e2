-- The device's clock. hilog prints local time without a year ("06-15 10:00:00.123") and
-- faultlogger names logs and filters them by "YYYYMMDDHHMMSS", so a launch is dated by
-- `hdc shell date +%Y%m%d%H%M%S` (toybox date: strftime of the device's local time).
local text = require("harmony.text")

local M = {}

-- The `date` argument every reading uses: one word, so no shell quoting is involved.
M.DATE_FORMAT = "+%Y%m%d%H%M%S"

local function stamp_of(t)
  return string.format("%04d%02d%02d%02d%02d%02d", t.year, t.month, t.day, t.hour, t.min, t.sec)
end

-- `date +%Y%m%d%H%M%S` output → `{ year, month, day, hour, min, sec, stamp }`, or nil.
function M.parse_date(output)
  local digits = text.trim(output or ""):match("^(%d%d%d%d%d%d%d%d%d%d%d%d%d%d)$")
  if not digits then
    return nil
  end
  local n = function(from, to)
    return tonumber(digits:sub(from, to))
  end
  return {
    year = n(1, 4),
    month = n(5, 6),
    day = n(7, 8),
    hour = n(9, 10),
    min = n(11, 12),
    sec = n(13, 14),
    stamp = digits,
  }
end

local function days_in(month, year)
  local leap = (year % 4 == 0 and year % 100 ~= 0) or year % 400 == 0
  local days = { 31, leap and 29 or 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 }
  return days[month]
end

-- The second before `t`, as a stamp (faultlogger's -t keeps only logs strictly after it).
function M.second_before(t)
  local p = { year = t.year, month = t.month, day = t.day, hour = t.hour, min = t.min, sec = t.sec }
  p.sec = p.sec - 1
  if p.sec < 0 then
    p.sec, p.min = 59, p.min - 1
  end
  if p.min < 0 then
    p.min, p.hour = 59, p.hour - 1
  end
  if p.hour < 0 then
    p.hour, p.day = 23, p.day - 1
  end
  if p.day < 1 then
    p.month = p.month - 1
    if p.month < 1 then
      p.month, p.year = 12, p.year - 1
    end
    p.day = days_in(p.month, p.year)
  end
  return stamp_of(p)
end

-- Whether a hilog time ("MM-DD HH:MM:SS.mmm", or with "YYYY-" in front) is not earlier than
-- the second `t` on the same clock. A line from January read against a December launch
-- belongs to the next year.
function M.not_before(time, t)
  local year, rest = time:match("^(%d%d%d%d)%-(.*)$")
  local line = (rest or time):sub(1, 14)
  local launch = string.format("%02d-%02d %02d:%02d:%02d", t.month, t.day, t.hour, t.min, t.sec)
  if year then
    return tonumber(year) > t.year or (tonumber(year) == t.year and line >= launch)
  end
  if t.month == 12 and line:sub(1, 2) == "01" then
    return true
  end
  return line >= launch
end

return M
