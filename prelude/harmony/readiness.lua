-- A device ready for an install or a launch, checked the way Huawei's clients check it: the boot
-- is complete (`param get bootevent.boot.completed` → `true`, xdevice `device.py`
-- `get_recover_result`), the screen is woken (`power-shell wakeup`, hypium and hmdriver2), and
-- the lock screen is not up (`hidumper -s ScreenlockService -a -all`, hypium `uidriver.py`
-- `is_display_locked`). rein can wake a screen but never unlock one: a locked device is
-- DEVICE_LOCKED with what the person must do.
--
-- Texts: `WakeupDevice is called` and `Override screen off time to <ms>` / `Restore screen off
-- time` (openharmony/powermgr_power_manager `utils/shell/src/power_shell_command.cpp`); the
-- dump line ` * screenLocked  \t\t<true|false>\t\t<userId>` (openharmony/theme_screenlock_mgr
-- `services/src/screenlock_system_ability.cpp` `RegisterDumpCommand`).
local device = require("harmony.device")
local text = require("harmony.text")
local remedies = require("harmony.remedies")

local M = {}

-- `param get bootevent.boot.completed` → true, false, or nil with what it printed.
function M.parse_boot(output)
  local value = text.trim(output or "")
  if value == "true" then
    return true
  end
  return false, value
end

-- The ScreenlockService dump → true when any user's screen is locked, false when none is, nil
-- when the dump has no `screenLocked` line (an image without the service).
function M.parse_locked(output)
  local seen = nil
  for _, line in ipairs(text.lines(output or "")) do
    local value = line:match("^%s*%*%s*screenLocked%s+(%a+)")
    if value == "true" then
      return true
    elseif value == "false" then
      seen = false
    end
  end
  return seen
end

local function shell(target, words)
  local argv = { "shell" }
  for _, w in ipairs(words) do
    argv[#argv + 1] = w
  end
  return device.run_checked(target, argv)
end

-- Checks the device `target` (a device.pick result) before an install or a launch:
-- `{ boot_completed, woke, screen_locked, evidence }`. DEVICE_NOT_READY while it boots,
-- DEVICE_LOCKED when its lock screen is up.
function M.ensure(target)
  local booted, printed =
    M.parse_boot(shell(target, { "param", "get", "bootevent.boot.completed" }))
  if not booted then
    rein.error(
      "DEVICE_NOT_READY",
      "the device has not finished booting (bootevent.boot.completed is `"
        .. printed
        .. "`). "
        .. remedies.ready.booting,
      { boot_completed = printed, remedy = remedies.ready.booting }
    )
  end
  local wake = shell(target, { "power-shell", "wakeup" })
  local woke = text.has(wake, "WakeupDevice is called")
  local locked =
    M.parse_locked(shell(target, { "hidumper", "-s", "ScreenlockService", "-a", "-all" }))
  if locked then
    rein.error(
      "DEVICE_LOCKED",
      "the device's screen is locked; rein woke it but cannot unlock it. " .. remedies.ready.locked,
      { screen_locked = true, woke = woke, remedy = remedies.ready.locked }
    )
  end
  local evidence = "boot completed; screen "
    .. (woke and "woken" or ("not woken (power-shell printed " .. text.tail(text.trim(wake), 120) .. ")"))
    .. "; "
    .. (locked == false and "not locked" or "lock state unknown (no screenLocked in the dump)")
  return { boot_completed = true, woke = woke, screen_locked = locked, evidence = evidence }
end

-- Keeps the screen on for `ms` (`power-shell timeout -o`); `restore_screen_timeout` undoes it.
-- Returns whether the device said so.
function M.keep_screen_on(target, ms)
  local out = shell(target, { "power-shell", "timeout", "-o", tostring(ms) })
  return text.has(out, "Override screen off time to " .. ms) and not text.has(out, " failed"),
    text.trim(out)
end

function M.restore_screen_timeout(target)
  local out = shell(target, { "power-shell", "timeout", "-r" })
  return text.has(out, "Restore screen off time") and not text.has(out, " failed"), text.trim(out)
end

return M
