-- Running hdc against one device, with hdc's [Fail] lines turned into structured errors
-- (hdc always exits 0: only its text says what happened). A device is its connect key (on this
-- machine's hdc server), or `{ key?, server? }` where `server` is the `-s` address of a lab
-- server home config.toml names (rein.proc.hdc_servers).
local hdc_parse = require("harmony.hdc")
local remedies = require("harmony.remedies")
local strings = require("harmony.text")

local M = {}

--- `-s` and `-t` for `device` (a key, `{ key?, server? }`, or nil: the only device).
local function global_options(device)
  if type(device) == "table" then
    local argv = {}
    if device.server then
      argv = { "-s", device.server }
    end
    if device.key then
      table.insert(argv, "-t")
      table.insert(argv, device.key)
    end
    return argv
  end
  return device and { "-t", device } or {}
end

--- hdc [-s server] [-t key] args...; returns stdout and stderr joined. The real client always
--- exits 0 (developtools_hdc src/host/main.cpp ends client mode in `_exit(0)`), so a non-zero
--- exit means the program is not a working hdc (a wrapper, a broken install, a Python error):
--- DEVICE_UNAVAILABLE naming what it printed, never a result read from its text.
function M.run(device, args, opts)
  local argv = global_options(device)
  for _, arg in ipairs(args) do
    table.insert(argv, arg)
  end
  local result = rein.proc.run("hdc", argv, opts)
  local text = result.stdout
  if result.stderr ~= "" then
    text = text .. result.stderr
  end
  if result.code ~= 0 then
    local how = result.code and ("exited with status " .. result.code)
      or ("was ended by signal " .. tostring(result.signal))
    local printed = hdc_parse.printed(text)
    rein.error(
      "DEVICE_UNAVAILABLE",
      "hdc "
        .. how
        .. " (`hdc "
        .. table.concat(argv, " ")
        .. "`); it printed: "
        .. printed
        .. ". "
        .. remedies.hdc.NOT_HDC,
      {
        exit_code = result.code,
        signal = result.signal,
        printed = printed,
        remedy = remedies.hdc.NOT_HDC,
      }
    )
  end
  return text, result
end

--- "<message>. <remedy>", without a second full stop when the message has one (bm's messages
--- end with "." already: `install sign info inconsistent.`).
local function with_remedy(message, remedy)
  if message:match("[.!?]$") then
    return message .. " " .. remedy
  end
  return message .. ". " .. remedy
end

--- Raises DEVICE_UNAVAILABLE when the output is one of hdc's [Fail] lines.
function M.check(text)
  local fail = hdc_parse.fail_line(text)
  if fail then
    rein.error("DEVICE_UNAVAILABLE", with_remedy(fail.message, fail.remedy), fail)
  end
end

--- Raises `code` for a parsed hdc/aa/bm result that is not ok: "<what> failed <code>:
--- <message>. <remedy>", with the parsed result as details.
function M.fail(code, what, result, text)
  local number = result.code and (" " .. result.code) or ""
  local message = what .. " failed" .. number .. ": " .. (result.message or text)
  if result.remedy then
    message = with_remedy(message, result.remedy)
  end
  rein.error(code, message, result)
end

--- Runs and checks in one step.
function M.run_checked(device, args, opts)
  local text, result = M.run(device, args, opts)
  M.check(text)
  return text, result
end

--- Whether the device at `at` (`{ key, server? }`) is a DevEco emulator, as the device itself
--- says: a TCP target at 127.0.0.1 (`127.0.0.1:5555`, the next one `127.0.0.1:5559`) whose
--- `const.product.name` is `emulator` (shared/HARMONY-VERIFY.md §6). Never from an argument: a
--- phone reached at 127.0.0.1 (a forwarded port) names its own product; `const.` parameters are
--- fixed at boot, so no `param set` over hdc turns a phone into an emulator. Only a target with
--- such a key is asked, so phones cost no extra command.
function M.is_emulator(at)
  if not (at.key or ""):match("^127%.0%.0%.1:%d+$") then
    return false
  end
  return strings.trim(M.run(at, { "shell", "param", "get", "const.product.name" })) == "emulator"
end

--- Sets `emulator` and `instance` (`ohos.qemu.hvd.name`) on a connected target of `hdc list
--- targets -v` that is a DevEco emulator (M.is_emulator).
function M.mark_emulator(t)
  local at = { key = t.key, server = t.server_address }
  if t.status ~= "Connected" or not M.is_emulator(at) then
    return
  end
  t.emulator = true
  local name = strings.trim(M.run(at, { "shell", "param", "get", "ohos.qemu.hvd.name" }))
  if name ~= "" and not name:find("%s") then
    t.instance = name
  end
end

--- `at` (`{ key?, server? }`) naming its device: when no target was named and the server has
--- exactly one connected device (the one hdc would pick), that device's key; else `at` as it
--- is. What rein records or checks per device (the apps it installed: the project's own app on
--- a screen) then names the device, never "whichever one was connected".
function M.named(at)
  if at.key then
    return at
  end
  local targets =
    hdc_parse.parse_targets(M.run({ server = at.server }, { "list", "targets", "-v" }), true)
  local connected = {}
  for _, t in ipairs(targets or {}) do
    if t.status == "Connected" then
      connected[#connected + 1] = t
    end
  end
  if #connected ~= 1 then
    return at
  end
  return { key = connected[1].key, server = at.server }
end

--- The devices `hdc list targets -v` shows on every server that is the person's own, each
--- with `server` (`local`, or the lab's name) and, for a lab, `server_address`; second, the
--- servers as `{ name, server, is_local, error? }` (a lab that cannot be reached says why, and
--- the others still count). This machine's server failing raises DEVICE_UNAVAILABLE.
function M.list()
  local devices, servers = {}, {}
  for _, server in ipairs(rein.proc.hdc_servers()) do
    local at = { server = not server.is_local and server.server or nil }
    local text = M.run(at, { "list", "targets", "-v" })
    local targets, fail = hdc_parse.parse_targets(text, true)
    local row = { name = server.name, server = server.server, is_local = server.is_local }
    if fail and server.is_local then
      rein.error("DEVICE_UNAVAILABLE", fail.message .. ". " .. fail.remedy, fail)
    elseif fail then
      row.error = fail.message .. ". " .. fail.remedy
    else
      for _, t in ipairs(targets) do
        t.server = server.name
        t.server_address = at.server
        M.mark_emulator(t)
        devices[#devices + 1] = t
      end
    end
    servers[#servers + 1] = row
  end
  return devices, servers
end

--- The parameter every device tool takes for which device (`M.pick`'s `target`); a fresh table
--- each time, so no tool's schema shares another's.
---@return table
function M.target_param()
  return { type = "string", optional = true }
end

--- The parameter every device tool takes for which hdc server (`M.pick`'s `server_name`).
---@return table
function M.server_param()
  return { type = "string", optional = true }
end

--- The device a tool acts on: `{ key?, server? }`. `server_name` names a server
--- (rein.proc.hdc_servers: `local` or a lab); without it a `target` only a lab has is that
--- lab's. INVALID_ARGS for a server nobody named, or a key on several servers.
function M.pick(target, server_name)
  local servers = rein.proc.hdc_servers()
  if server_name then
    for _, s in ipairs(servers) do
      if s.name == server_name then
        return { key = target, server = not s.is_local and s.server or nil }
      end
    end
    local names = {}
    for _, s in ipairs(servers) do
      names[#names + 1] = s.name
    end
    rein.error(
      "INVALID_ARGS",
      "no hdc server is named "
        .. server_name
        .. " (servers: "
        .. table.concat(names, ", ")
        .. '); name a lab in home config.toml ([devices.<name>] server = "host:port")',
      { server = server_name }
    )
  end
  if target == nil or #servers == 1 then
    return { key = target }
  end
  local found = {}
  for _, d in ipairs((M.list())) do
    if d.key == target then
      found[#found + 1] = d
    end
  end
  if #found > 1 then
    rein.error(
      "INVALID_ARGS",
      "device " .. target .. " is on several hdc servers; pass server (its name in device_list)",
      { target = target }
    )
  end
  return { key = target, server = found[1] and found[1].server_address or nil }
end

return M
