local hdc = require("harmony.hdc")
local device = require("harmony.device")

local REMOTE = "/data/local/tmp/rein-screenshot.jpeg"

return {
  name = "screenshot",
  description = "Screenshot the device into the workspace. Returns the path, width and height.",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  params = {
    out = { type = "string", description = "Where to save the .jpeg, relative to the workspace" },
    target = device.target_param(),
    server = device.server_param(),
  },
  run = function(args)
    if not args.out:match("%.jpe?g$") then
      rein.error("INVALID_ARGS", "out must end in .jpeg or .jpg")
    end
    local at = device.pick(args.target, args.server)
    local shot_text = device.run_checked(at, { "shell", "snapshot_display", "-f", REMOTE })
    local shot = hdc.parse_snapshot(shot_text)
    if not shot.ok then
      rein.error("SCREENSHOT_FAILED", "snapshot_display failed: " .. shot_text, shot)
    end
    -- hdc writes the local file itself; the kernel's policy lets `hdc file recv` write only
    -- into the workspace, and hdc needs the folder to exist.
    local folder = args.out:match("^(.*)/[^/]+$")
    if folder and folder ~= "" then
      rein.fs.mkdir(folder)
    end
    local recv_text = device.run_checked(at, { "file", "recv", REMOTE, args.out })
    local transfer = hdc.parse_file_transfer(recv_text)
    if not transfer.ok then
      rein.error("SCREENSHOT_FAILED", "file recv failed: " .. recv_text, transfer)
    end
    return {
      ok = true,
      path = args.out,
      width = shot.width,
      height = shot.height,
      bytes = transfer.size,
    }
  end,
}
