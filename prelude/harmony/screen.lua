-- Taking what a device's screen shows back to rein: the screenshot (`snapshot_display -f`) and
-- the UI tree (`uitest dumpLayout -p`), each written on the device under a unique scratch name
-- of rein's (`/data/local/tmp/rein-…`), received with `hdc file recv` into the kernel's transit
-- folder, and removed from the device whatever happened — as hypium does for the tree
-- (uidriver/uitree/uitree.py `_dump_uitest_layout`: dumpLayout, pull, `rm <path>`) and hmdriver2
-- for screenshots (hmdriver2/hdc.py `screenshot`: `/data/local/tmp/_tmp_<uuid>.jpeg`,
-- `recv_file`, `rm -rf`). The bytes come back through the kernel (rein.fs.take_received).
local hdc = require("harmony.hdc")
local device = require("harmony.device")

local M = {}

-- A scratch name no other call of rein's uses at the same time.
local function scratch(what, ext)
  return string.format(
    "rein-%s-%08x%08x.%s",
    what,
    math.random(0, 0x7fffffff),
    math.random(0, 0x7fffffff),
    ext
  )
end

-- Runs `fn(remote)` for the device file `/data/local/tmp/<name>`, then removes it from the
-- device even when `fn` failed.
local function with_scratch(at, name, fn)
  local remote = "/data/local/tmp/" .. name
  local ok, result = pcall(fn, remote)
  pcall(device.run, at, { "shell", "rm", "-f", remote })
  if not ok then
    error(result, 0)
  end
  return result
end

-- Brings the device file `remote` back as the bytes it holds; raises `code` when hdc could not.
local function receive(at, remote, name, code)
  local out = device.run_checked(at, { "file", "recv", remote, rein.fs.receive_place(name) })
  local transfer = hdc.parse_file_transfer(out)
  if not transfer.ok then
    rein.error(
      code,
      "file recv of " .. remote .. " failed: " .. (transfer.message or out),
      transfer
    )
  end
  return rein.fs.take_received(name)
end

-- The screen as JPEG bytes, and what snapshot_display said (`{ width, height, … }`). Raises
-- SCREENSHOT_FAILED.
function M.screenshot(at)
  local name = scratch("screen", "jpeg")
  return with_scratch(at, name, function(remote)
    local said = device.run_checked(at, { "shell", "snapshot_display", "-f", remote })
    local shot = hdc.parse_snapshot(said)
    if not shot.ok then
      rein.error("SCREENSHOT_FAILED", "snapshot_display failed: " .. (shot.message or said), shot)
    end
    return {
      bytes = receive(at, remote, name, "SCREENSHOT_FAILED"),
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
  local name = scratch("ui", "json")
  return with_scratch(at, name, function(remote)
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
    return receive(at, remote, name, "UI_DUMP_FAILED")
  end)
end

return M
