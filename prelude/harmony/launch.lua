-- Starting an app and proving that *this* launch runs. `aa start` answers "start ability
-- successfully." as soon as the request is accepted, and `hilog -x` holds lines of every
-- earlier launch, so neither proves anything. The proof is the process: a pid from `pidof`
-- that was not there before `aa start`, still alive after a settle, with no fault log for it.
-- A log marker, when asked for, counts only on a line of that pid not earlier than the launch
-- (device clock).
local hdc = require("harmony.hdc")
local hilog = require("harmony.hilog")
local device = require("harmony.device")
local clock = require("harmony.clock")
local faultlog = require("harmony.faultlog")
local remedies = require("harmony.remedies")

local M = {}

local POLL_MS = 250
-- At most this many fault logs are read per check (the newest).
local MAX_LOGS = 3
-- Log lines of the launched pid kept as evidence.
local EVIDENCE_LINES = 5

local function contains(list, value)
  for _, item in ipairs(list) do
    if item == value then
      return true
    end
  end
  return false
end

-- The pids of `bundle` now.
function M.pids(target, bundle)
  local out = device.run_checked(target, { "shell", "pidof", bundle })
  local pids, other = hdc.parse_pidof(out)
  if other then
    rein.error("LAUNCH_FAILED", "`pidof " .. bundle .. "` printed " .. other, {
      remedy = "the device has no usable pidof: rein cannot tell whether the app runs",
    })
  end
  return pids
end

-- The device's clock now (see harmony.clock).
function M.device_time(target)
  local out = device.run_checked(target, { "shell", "date", clock.DATE_FORMAT })
  local now = clock.parse_date(out)
  if not now then
    rein.error("LAUNCH_FAILED", "the device clock could not be read: `date` printed " .. out, {
      remedy = "check the device with device_list; rein dates a launch by the device clock",
    })
  end
  return now
end

local function hidumper(target, args)
  return device.run_checked(target, { "shell", "hidumper", "-s", "1201", "-a", args })
end

-- The fault logs of `bundle` since the launch, newest last, each parsed (harmony.faultlog)
-- with its `name` and `type`; nil and the reason when the device does not say.
function M.crashes(target, bundle, since)
  local listed, problem =
    faultlog.parse_list(hidumper(target, faultlog.list_args(bundle, clock.second_before(since))))
  if not listed then
    return nil, problem
  end
  local logs = {}
  for i = math.max(1, #listed - MAX_LOGS + 1), #listed do
    local entry = listed[i]
    local log = faultlog.parse_log(hidumper(target, faultlog.show_args(entry.name)))
      or { stack = {} }
    log.name, log.type = entry.name, entry.type
    logs[#logs + 1] = log
  end
  return logs
end

local function formatted(entry)
  return string.format(
    "%s %5d %5d %s %s%s/%s: %s",
    entry.time,
    entry.pid,
    entry.tid,
    entry.level,
    entry.type,
    entry.domain,
    entry.tag,
    entry.message
  )
end

-- Lines of `pid` logged since the launch, formatted as hilog prints them.
function M.lines_of(target, pid, since)
  local out = device.run_checked(target, { "shell", "hilog", "-x", "-P", tostring(pid) })
  local lines = {}
  for _, entry in ipairs(hilog.parse(out)) do
    if entry.pid == pid and clock.not_before(entry.time, since) then
      lines[#lines + 1] = { text = formatted(entry), message = entry.message }
    end
  end
  return lines
end

local function texts(lines, from, to)
  local out = rein.json.array({})
  for i = math.max(1, from), math.min(#lines, to) do
    out[#out + 1] = lines[i].text
  end
  return out
end

local function crash_evidence(log)
  if not log then
    return nil
  end
  return {
    file = log.name,
    type = log.type,
    pid = log.pid,
    reason = log.reason,
    error_name = log.error_name,
    error_message = log.error_message,
    stack = rein.json.array(log.stack),
    first_lines = rein.json.array(log.first_lines or {}),
  }
end

-- The newest fault log of `pid`, else (when `any`) the newest one at all.
local function crash_of(logs, pid, any)
  for i = #(logs or {}), 1, -1 do
    if logs[i].pid == pid then
      return logs[i]
    end
  end
  return any and logs and logs[#logs] or nil
end

local function crashed(opts, pid, log, lines)
  local what = opts.bundle .. (pid and (" (pid " .. pid .. ")") or "")
  local message
  if log then
    local cause = log.error_name or log.reason or log.type
    message = what .. " crashed right after launch: " .. tostring(cause)
    if log.error_message then
      message = message .. ": " .. log.error_message
    end
  else
    message = what
      .. " was gone within "
      .. opts.settle_ms
      .. " ms of the launch and left no fault log"
  end
  local remedy = log and remedies.launch.crashed or remedies.launch.exited
  rein.error("APP_CRASHED", message .. ". " .. remedy, {
    bundle = opts.bundle,
    pid = pid,
    crash = crash_evidence(log),
    log = texts(lines or {}, #(lines or {}) - 9, #(lines or {})),
    remedy = remedy,
    show = log and ('hdc shell hidumper -s 1201 -a "' .. faultlog.show_args(log.name) .. '"')
      or nil,
  })
end

-- Waits up to `budget_ms` for a pid of the bundle that is not in `before`.
local function new_pid(opts, before, budget_ms)
  local waited = 0
  while true do
    for _, pid in ipairs(M.pids(opts.target, opts.bundle)) do
      if not contains(before, pid) then
        return pid, waited
      end
    end
    if waited >= budget_ms then
      return nil, waited
    end
    rein.sleep(POLL_MS)
    waited = waited + POLL_MS
  end
end

-- Stops a running instance first, so that the launch makes a new process.
local function stop_running(opts)
  local before = M.pids(opts.target, opts.bundle)
  if #before == 0 then
    return before
  end
  local out = device.run_checked(opts.target, { "shell", "aa", "force-stop", opts.bundle })
  local stopped = hdc.parse_force_stop(out)
  if not stopped.ok then
    device.fail("LAUNCH_FAILED", "force-stop before the launch", stopped, out)
  end
  return before
end

local function start(opts)
  local argv = { "shell", "aa", "start", "-a", opts.ability, "-b", opts.bundle }
  if opts.module then
    table.insert(argv, "-m")
    table.insert(argv, opts.module)
  end
  local out = device.run_checked(opts.target, argv)
  local result = hdc.parse_aa_start(out)
  if not result.ok then
    device.fail("LAUNCH_FAILED", "launch", result, out)
  end
end

-- Waits for `marker` on a line of `pid` since the launch; the lines seen.
local function wait_for_marker(opts, pid, since, budget_ms)
  local waited = 0
  while true do
    local lines = M.lines_of(opts.target, pid, since)
    for _, line in ipairs(lines) do
      if line.message:find(opts.expect_log, 1, true) then
        return line, lines
      end
    end
    if waited >= budget_ms then
      return nil, lines
    end
    rein.sleep(POLL_MS)
    waited = waited + POLL_MS
  end
end

-- Launches `opts.ability` of `opts.bundle` (`opts.module`) on `opts.target` and proves it:
-- `{ pid, launched_at, alive_after_ms, crash_check, marker?, lines, evidence }`. Fails with
-- LAUNCH_FAILED (aa refused, or no process appeared), APP_CRASHED (the process died or a
-- fault log names it; details.crash has the log's first lines) or VERIFY_FAILED (the marker
-- never appeared on a line of this launch). `wait_ms` bounds the waits, `settle_ms` is how
-- long the process must stay alive.
function M.start_and_prove(opts)
  local before = stop_running(opts)
  local since = M.device_time(opts.target)
  start(opts)
  local pid, waited = new_pid(opts, before, math.min(opts.settle_ms, opts.wait_ms))
  if not pid then
    -- Gone at once, or slow to start: a fault log tells them apart.
    local logs = M.crashes(opts.target, opts.bundle, since)
    local log = crash_of(logs, nil, true)
    if log then
      crashed(opts, log.pid, log)
    end
    pid, waited = new_pid(opts, before, opts.wait_ms - waited)
  end
  if not pid then
    local log = crash_of(M.crashes(opts.target, opts.bundle, since), nil, true)
    if log then
      crashed(opts, log.pid, log)
    end
    rein.error(
      "LAUNCH_FAILED",
      "aa started "
        .. opts.ability
        .. " but no process of "
        .. opts.bundle
        .. " appeared within "
        .. opts.wait_ms
        .. " ms. "
        .. remedies.launch.no_process,
      { bundle = opts.bundle, remedy = remedies.launch.no_process }
    )
  end
  rein.sleep(opts.settle_ms)
  local alive = contains(M.pids(opts.target, opts.bundle), pid)
  local logs, unreadable = M.crashes(opts.target, opts.bundle, since)
  local log = crash_of(logs, pid, not alive)
  if not alive or log then
    crashed(opts, pid, log, M.lines_of(opts.target, pid, since))
  end
  local proof = {
    pid = pid,
    launched_at = since.stamp,
    alive_after_ms = opts.settle_ms,
    crash_check = unreadable or "no fault log for this launch",
  }
  if opts.expect_log then
    local line, lines =
      wait_for_marker(opts, pid, since, math.max(0, opts.wait_ms - waited - opts.settle_ms))
    if not line then
      rein.error(
        "VERIFY_FAILED",
        "no line of pid "
          .. pid
          .. " since the launch shows "
          .. opts.expect_log
          .. ". "
          .. remedies.launch.marker,
        {
          marker = opts.expect_log,
          pid = pid,
          log = texts(lines, #lines - 9, #lines),
          remedy = remedies.launch.marker,
        }
      )
    end
    proof.marker = opts.expect_log
    proof.lines = rein.json.array({ line.text })
  else
    proof.lines = texts(M.lines_of(opts.target, pid, since), 1, EVIDENCE_LINES)
  end
  proof.evidence = string.format(
    "pid %d of %s started by this launch (device clock %s), alive after %d ms; %s",
    pid,
    opts.bundle,
    since.stamp,
    opts.settle_ms,
    proof.crash_check
  )
  return proof
end

return M
