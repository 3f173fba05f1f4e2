-- Starting an app and proving that *this* launch runs, the way Huawei's own clients judge "the
-- app is up": the ability reached the foreground (`aa start -W`, else `aa dump -l`), and the new
-- process is still alive, with no crash or freeze on record for it, at the end of a window
-- after the foreground that covers the first page (`loadContent`, `aboutToAppear`, `build` run
-- 0.5–2 s after the process appears). `aa start` answers "start ability successfully." as
-- soon as the request is accepted and `hilog -x` holds lines of every earlier launch, so
-- neither proves anything; the pid from `pidof` that was not there before `aa start` ties the
-- proof to this launch. A log marker, when asked for, counts only on a line of that pid not
-- earlier than the launch (device clock).
local hdc = require("harmony.hdc")
local hilog = require("harmony.hilog")
local device = require("harmony.device")
local clock = require("harmony.clock")
local faultlog = require("harmony.faultlog")
local foreground = require("harmony.foreground")
local crashes = require("harmony.crashes")
local remedies = require("harmony.remedies")
local wait = require("rein.wait")

local M = {}

local POLL_MS = 250
-- Log lines of the launched pid kept as evidence.
local EVIDENCE_LINES = 5
-- `aa start -W` waits up to 15 s (MAX_WAIT_TIME); hdc gets a little more.
local WAIT_START_TIMEOUT_MS = 20000

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

-- What was seen of the app when its launch failed: the crash (fault log, else event) or freeze
-- of `pid`, its last lines, and the ability's state.
local function failure_details(opts, pid, scan, lines, state)
  local log = crashes.log_of(scan, pid)
  return {
    bundle = opts.bundle,
    pid = pid,
    crash = crashes.log_evidence(log),
    event = crashes.event_evidence(crashes.event_of(scan, pid)),
    state = state,
    log = texts(lines or {}, #(lines or {}) - 9, #(lines or {})),
    show = log and ('hdc shell hidumper -s 1201 -a "' .. faultlog.show_args(log.name) .. '"')
      or nil,
  }
end

-- APP_CRASHED: `pid` is gone or a crash names it; APP_FROZEN: a freeze names it.
local function fail_fault(opts, pid, scan, lines, state, window)
  local details = failure_details(opts, pid, scan, lines, state)
  local what = opts.bundle .. (pid and (" (pid " .. pid .. ")") or "")
  local crash_event = crashes.event_of(scan, pid, "crash")
  local freeze = crashes.event_of(scan, pid, "freeze")
  if freeze and not details.crash and not crash_event then
    details.remedy = remedies.launch.frozen
    rein.error(
      "APP_FROZEN",
      what
        .. " froze on launch (APP_FREEZE "
        .. tostring(freeze.reason)
        .. ", "
        .. state
        .. "). "
        .. remedies.launch.frozen,
      details
    )
  end
  local message
  local cause = details.crash
      and (details.crash.error_name or details.crash.reason or details.crash.type)
    or (crash_event and (crash_event.name .. " " .. tostring(crash_event.reason)))
  if cause then
    message = what .. " crashed right after launch: " .. tostring(cause)
    if details.crash and details.crash.error_message then
      message = message .. ": " .. details.crash.error_message
    end
  else
    message = what .. " was gone within " .. window .. " ms of the launch and left no fault log"
  end
  details.remedy = cause and remedies.launch.crashed or remedies.launch.exited
  rein.error("APP_CRASHED", message .. ". " .. details.remedy, details)
end

-- Waits up to `budget_ms` for a pid of the bundle that is not in `before`.
local function new_pid(opts, before, budget_ms)
  local budget = wait.budget(budget_ms)
  while true do
    for _, pid in ipairs(M.pids(opts.target, opts.bundle)) do
      if not contains(before, pid) then
        return pid, budget:waited()
      end
    end
    if budget:over() then
      return nil, budget:waited()
    end
    budget:pause(POLL_MS)
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

local function run_start(opts, with_w)
  local argv = { "shell", "aa", "start" }
  if with_w then
    argv[#argv + 1] = "-W"
  end
  for _, w in ipairs({ "-a", opts.ability, "-b", opts.bundle }) do
    argv[#argv + 1] = w
  end
  if opts.module then
    argv[#argv + 1] = "-m"
    argv[#argv + 1] = opts.module
  end
  return device.run_checked(
    opts.target,
    argv,
    with_w and { timeout_ms = WAIT_START_TIMEOUT_MS } or nil
  )
end

-- `aa start -W`, or plain `aa start` on an image whose aa has no `-W`; the foreground block
-- -W printed (nil when it printed none or was not there) and whether -W was there.
local function start(opts)
  local out = run_start(opts, true)
  local waited = true
  if foreground.wait_unsupported(out) then
    out, waited = run_start(opts, false), false
  end
  local result = hdc.parse_aa_start(out)
  if not result.ok then
    device.fail("LAUNCH_FAILED", "launch", result, out)
  end
  return waited and foreground.parse_start_wait(out) or nil, waited
end

local function ability_record(opts)
  local out = device.run_checked(opts.target, { "shell", "aa", "dump", "-l" })
  return foreground.record_of(foreground.parse_missions(out), opts.bundle, opts.ability)
end

-- Polls `aa dump -l` until the ability is FOREGROUND, `pid` is gone, or `budget_ms` passed:
-- the record last seen, and whether it was in the foreground.
local function wait_foreground(opts, pid, budget_ms)
  local budget = wait.budget(budget_ms)
  while true do
    local record = ability_record(opts)
    if record and record.state == "FOREGROUND" then
      return record, true
    end
    if budget:over() or not contains(M.pids(opts.target, opts.bundle), pid) then
      return record, false
    end
    budget:pause(POLL_MS)
  end
end

-- Waits for `marker` on a line of `pid` since the launch; the lines seen.
local function wait_for_marker(opts, pid, since, budget_ms)
  local budget = wait.budget(budget_ms)
  while true do
    local lines = M.lines_of(opts.target, pid, since)
    for _, line in ipairs(lines) do
      if line.message:find(opts.expect_log, 1, true) then
        return line, lines
      end
    end
    if budget:over() then
      return nil, lines
    end
    budget:pause(POLL_MS)
  end
end

-- A line that holds `<private>` (hilog's mask for an argument logged without `{public}`) and
-- shares text with the marker: with the value shown it might have matched.
local function private_near_miss(lines, marker)
  for _, line in ipairs(lines) do
    if line.message:find("<private>", 1, true) then
      for piece in (line.message .. "<private>"):gmatch("(.-)<private>") do
        local words = piece:match("^%s*(.-)%s*$")
        if #words >= 3 and (marker:find(words, 1, true) or words:find(marker, 1, true)) then
          return line
        end
      end
    end
  end
  return nil
end

local function marker_missing(opts, pid, lines)
  local near = private_near_miss(lines, opts.expect_log)
  local remedy = near and remedies.launch.private or remedies.launch.marker
  local message = "no line of pid " .. pid .. " since the launch shows " .. opts.expect_log
  if near then
    message = message .. "; this line would, but its value is hidden as <private>: " .. near.text
  end
  rein.error("VERIFY_FAILED", message .. ". " .. remedy, {
    marker = opts.expect_log,
    pid = pid,
    private_line = near and near.text or nil,
    log = texts(lines, #lines - 9, #lines),
    remedy = remedy,
  })
end

-- The process appeared (a new pid), else the launch failed: a fault names the crash, or no
-- process came within wait_ms.
local function launched_pid(opts, before, since)
  local pid, waited = new_pid(opts, before, opts.wait_ms)
  if pid then
    return pid, waited
  end
  local scan = crashes.scan(opts.target, opts.bundle, since)
  if crashes.log_of(scan) or crashes.event_of(scan) then
    local any = crashes.log_of(scan) or crashes.event_of(scan)
    fail_fault(opts, any.pid, scan, nil, "no process", opts.wait_ms)
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

-- The foreground, from `aa start -W`'s block or `aa dump -l`; fails with what was seen when the
-- ability never got there (a crash, a freeze, or its state).
local function reached_foreground(opts, pid, since, block, waited_ms)
  if block then
    return {
      via = "aa start -W",
      state = "FOREGROUND",
      start_mode = block.start_mode,
      total_ms = block.total_ms,
    }
  end
  local record, reached = wait_foreground(opts, pid, math.max(0, opts.wait_ms - waited_ms))
  if reached then
    return { via = "aa dump -l", state = record.state, app_state = record.app_state }
  end
  local seen = foreground.describe(record)
  local scan = crashes.scan(opts.target, opts.bundle, since)
  local alive = contains(M.pids(opts.target, opts.bundle), pid)
  if not alive or crashes.log_of(scan, pid) or crashes.event_of(scan, pid) then
    fail_fault(opts, pid, scan, M.lines_of(opts.target, pid, since), seen, opts.wait_ms)
  end
  local remedy = remedies.launch.not_foreground
  rein.error(
    "LAUNCH_FAILED",
    string.format(
      "%s (pid %d) is alive but its %s never reached the foreground within %d ms (%s; %s). %s",
      opts.bundle,
      pid,
      opts.ability,
      opts.wait_ms,
      seen,
      scan.checked,
      remedy
    ),
    {
      bundle = opts.bundle,
      pid = pid,
      state = seen,
      log = texts(M.lines_of(opts.target, pid, since), 1, 10),
      remedy = remedy,
    }
  )
end

local function describe_foreground(fg)
  if fg.via == "aa start -W" then
    return string.format(
      "in the foreground (aa start -W: StartMode %s, TotalTime %s ms)",
      tostring(fg.start_mode),
      tostring(fg.total_ms)
    )
  end
  return "in the foreground (aa dump -l: state #"
    .. fg.state
    .. ", app state #"
    .. tostring(fg.app_state)
    .. ")"
end

-- Launches `opts.ability` of `opts.bundle` (`opts.module`) on `opts.target` and proves it:
-- `{ pid, launched_at, foreground, alive_after_ms, crash_check, marker?, lines, evidence }`.
-- Fails with LAUNCH_FAILED (aa refused, no process appeared, or the ability never reached the
-- foreground: details.state), APP_CRASHED (the process died, or a fault log or crash event
-- names it; details.crash / details.event), APP_FROZEN (an APP_FREEZE names it) or
-- VERIFY_FAILED (the marker never appeared on a line of this launch). `wait_ms` bounds the
-- waits for the process and the foreground; `settle_ms` is how long after the foreground the
-- process must stay alive with nothing on record.
function M.start_and_prove(opts)
  local before = stop_running(opts)
  local since = M.device_time(opts.target)
  local block = start(opts)
  local pid, waited = launched_pid(opts, before, since)
  local fg = reached_foreground(opts, pid, since, block, waited)
  rein.sleep(opts.settle_ms)
  local alive = contains(M.pids(opts.target, opts.bundle), pid)
  local scan = crashes.scan(opts.target, opts.bundle, since)
  if not alive or crashes.log_of(scan, pid) or crashes.event_of(scan, pid) then
    local record = ability_record(opts)
    local lines = M.lines_of(opts.target, pid, since)
    fail_fault(opts, pid, scan, lines, foreground.describe(record), opts.settle_ms)
  end
  local proof = {
    pid = pid,
    launched_at = since.stamp,
    foreground = fg,
    alive_after_ms = opts.settle_ms,
    crash_check = "no fault log and no crash or freeze event for this launch ("
      .. scan.checked
      .. ")",
  }
  if opts.expect_log then
    local line, lines = wait_for_marker(opts, pid, since, math.max(0, opts.wait_ms - waited))
    if not line then
      marker_missing(opts, pid, lines)
    end
    proof.marker = opts.expect_log
    proof.lines = rein.json.array({ line.text })
  else
    proof.lines = texts(M.lines_of(opts.target, pid, since), 1, EVIDENCE_LINES)
  end
  proof.evidence = string.format(
    "pid %d of %s started by this launch (device clock %s), %s, alive %d ms after it; %s",
    pid,
    opts.bundle,
    since.stamp,
    describe_foreground(fg),
    opts.settle_ms,
    proof.crash_check
  )
  return proof
end

return M
