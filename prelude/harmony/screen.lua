-- Taking what a device's screen shows back to rein: the screenshot (`snapshot_display -f`) and
-- the UI tree (`uitest dumpLayout -p`), each written on the device under a unique scratch name
-- the kernel reserves for the call (`/data/local/tmp/rein-<what>-<random>`), received with `hdc
-- file recv` into the kernel's transit folder under that name, and removed from the device
-- whatever happened — as hypium does for the tree
-- (uidriver/uitree/uitree.py `_dump_uitest_layout`: dumpLayout, pull, `rm <path>`) and hmdriver2
-- for screenshots (hmdriver2/hdc.py `screenshot`: `/data/local/tmp/_tmp_<uuid>.jpeg`,
-- `recv_file`, `rm -rf`). The bytes come back through the kernel (rein.fs.take_received).
local hdc = require("harmony.hdc")
local device = require("harmony.device")

local M = {}

-- Runs `fn(remote, place)` for a name the kernel reserved for this call (`rein-<what>-<random>`):
-- the device file `/data/local/tmp/<name>` and the transit folder's `place` for it, then
-- removes the device file even when `fn` failed, and drops a half-received file.
local function with_scratch(at, what, ext, fn)
  local reserved = rein.fs.reserve_received(what, ext)
  local remote = "/data/local/tmp/" .. reserved.name
  local ok, result = pcall(fn, remote, reserved)
  pcall(device.run, at, { "shell", "rm", "-f", remote })
  if not ok then
    pcall(rein.fs.take_received, reserved.name)
    error(result, 0)
  end
  return result
end

-- Brings the device file `remote` back as the bytes it holds; raises `code` when hdc could not.
local function receive(at, remote, reserved, code)
  local out = device.run_checked(at, { "file", "recv", remote, reserved.path })
  local transfer = hdc.parse_file_transfer(out)
  if not transfer.ok then
    rein.error(
      code,
      "file recv of " .. remote .. " failed: " .. (transfer.message or out),
      transfer
    )
  end
  return rein.fs.take_received(reserved.name)
end

-- The screen as JPEG bytes, and what snapshot_display said (`{ width, height, … }`). Raises
-- SCREENSHOT_FAILED.
function M.screenshot(at)
  return with_scratch(at, "screen", "jpeg", function(remote, reserved)
    local said = device.run_checked(at, { "shell", "snapshot_display", "-f", remote })
    local shot = hdc.parse_snapshot(said)
    if not shot.ok then
      rein.error("SCREENSHOT_FAILED", "snapshot_display failed: " .. (shot.message or said), shot)
    end
    return {
      bytes = receive(at, remote, reserved, "SCREENSHOT_FAILED"),
      width = shot.width,
      height = shot.height,
    }
  end)
end

-- `uitest dumpLayout` → "DumpLayout saved to:<path>" (testfwk_arkxtest
-- uitest/server/server_main.cpp `DumpLayout`), else "DumpLayout failed:<why>".
local function dumped(out, remote)
  local path = out:match("DumpLayout saved to:([^\r\n]*)")
  if path and path == remote then
    return nil
  end
  local why = out:match("DumpLayout failed:([^\r\n]*)")
  return why or ("uitest printed no `DumpLayout saved to:` line: " .. hdc.printed(out))
end

-- The UI tree's JSON text (of `bundle`'s windows only, when given). Raises UI_DUMP_FAILED.
function M.layout(at, bundle)
  return with_scratch(at, "ui", "json", function(remote, reserved)
    local argv = { "shell", "uitest", "dumpLayout", "-p", remote }
    if bundle then
      argv[#argv + 1] = "-b"
      argv[#argv + 1] = bundle
    end
    local out = device.run_checked(at, argv)
    local why = dumped(out, remote)
    if why then
      rein.error("UI_DUMP_FAILED", "uitest dumpLayout failed: " .. why, {
        remedy = "wake and unlock the device (device_ready) and retry; an image without uitest cannot dump its UI",
      })
    end
    return receive(at, remote, reserved, "UI_DUMP_FAILED")
  end)
end

return M
