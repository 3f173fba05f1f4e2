-- DevEco's `Emulator` (shared/HARMONY-VERIFY.md §6). Its exit code says nothing (`-start` of a
-- missing instance exits 1, every other failure 0): each outcome is read from its text, and a
-- stop is judged by listing again. Texts, verbatim from §6's table (measured on Emulator
-- 6.1.1.200 [OBS ARG]): `[Empty]`, `Config file not found: "…/config.ini"` before the JSON of
-- `-list -details`, `Stop emulator  "<x>"  failed, emulator is not exists.`, `No images
-- matching the criteria were found.`
local text = require("harmony.text")

local M = {}

local NOT_EXISTS = "failed, emulator is not exists."
local NO_IMAGES = "No images matching the criteria were found."

-- `Emulator args…`: its stdout and stderr together (never its exit code).
function M.run(args)
  local result = rein.proc.run("emulator", args)
  local out = result.stdout
  if result.stderr ~= "" then
    out = out .. result.stderr
  end
  return out
end

-- The JSON array in `out` (the text from its first line that starts with `[`), or nil.
local function json_array(out)
  local start = out:find("\n%[") or (out:sub(1, 1) == "[" and 0 or nil)
  if not start then
    return nil
  end
  local ok, value = pcall(rein.json.decode, out:sub(start + 1))
  if ok and type(value) == "table" then
    return value
  end
  return nil
end

-- `-list -details` → `{ instances = { { name, device_type, os_version, api_version, running,
-- hdc_port } }, broken = { config file paths } }`, or nil and what it printed instead.
function M.parse_details(out)
  local broken = {}
  for _, line in ipairs(text.lines(out)) do
    local path = line:match('^Config file not found: "(.-)"')
    if path then
      broken[#broken + 1] = path
    end
  end
  local rows = json_array(out)
  if not rows then
    if text.trim(out) == "[Empty]" or (#broken > 0 and not out:find("%[")) then
      rows = {}
    else
      return nil, text.tail(out, 300)
    end
  end
  local instances = {}
  for _, row in ipairs(rows) do
    instances[#instances + 1] = {
      name = row.name or row.deviceName,
      device_type = row.deviceType,
      os_version = row["os.osVersion"],
      api_level = tonumber(row["os.apiVersion"]),
      running = row.isRunning == "true",
      hdc_port = tonumber(row["hw.hdc.port"]),
    }
  end
  return { instances = instances, broken = broken }
end

-- `-imageList … -downloaded true` → the images, or nil and what it printed instead.
function M.parse_images(out)
  if text.has(out, NO_IMAGES) then
    return {}
  end
  local rows = json_array(out)
  if not rows then
    return nil, text.tail(out, 300)
  end
  local images = {}
  for _, row in ipairs(rows) do
    images[#images + 1] = {
      device_type = row.deviceType,
      os_version = row.osVersion,
      software_version = row.SoftWareVersion,
      release_type = row.releaseType,
    }
  end
  return images
end

-- Whether `-stop`'s text says there was no such running instance.
function M.stop_refused(out)
  return text.has(out, NOT_EXISTS)
end

-- The instances, as `-list -details` shows them; raises EMULATOR_FAILED when it printed
-- something else.
function M.instances()
  local out = M.run({ "-list", "-details" })
  local listed, other = M.parse_details(out)
  if not listed then
    rein.error(
      "EMULATOR_FAILED",
      "Emulator -list -details printed no instance list: " .. other,
      { printed = other }
    )
  end
  return listed
end

-- The instance `name` of `listed`, or nil.
function M.find(listed, name)
  for _, instance in ipairs(listed.instances) do
    if instance.name == name then
      return instance
    end
  end
  return nil
end

-- The instance `name` as `-list -details` shows it now; raises EMULATOR_NOT_FOUND when there
-- is none (the tools that start and stop one by name).
function M.instance(name)
  local found = M.find(M.instances(), name)
  if not found then
    rein.error(
      "EMULATOR_NOT_FOUND",
      "no emulator instance is named " .. name .. ": emulator_list shows them",
      { name = name }
    )
  end
  return found
end

-- The kept program (rein.proc.keep) running instance `name`'s `-start`, or nil.
function M.kept_for(name)
  for _, kept in ipairs(rein.proc.kept()) do
    if
      kept.state == "running"
      and kept.program == "emulator"
      and kept.args[1] == "-start"
      and kept.args[2] == name
    then
      return kept
    end
  end
  return nil
end

return M
