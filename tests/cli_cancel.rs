//! `rein call` always ends: a library function looping in C ends with BUDGET_EXCEEDED, and
//! Ctrl-C (SIGINT) cancels a call whose script never waits, even one whose `<close>` handler
//! spins once the cancel has stopped the script, with CANCELLED (exit status 1, the JSON error
//! on stdout).

use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{assert_refusal, Workspace};

/// The scripts stop within a second of the cancel; before, they ran for ever.
const STOPS_WITHIN: Duration = Duration::from_secs(10);
const WAIT: Duration = Duration::from_secs(60);

const MOVE_ALL: &str = r#"return { name = "move", description = "moves every index there is",
  run = function() table.move({}, 1, math.maxinteger, 1) end }
"#;
const SPIN: &str = r#"return { name = "spin", description = "spins in the VM",
  run = function() rein.fs.write("started-spin.txt", "x"); while true do end end }
"#;
const CLOSE_SPIN: &str = r#"return { name = "close", description = "a <close> handler that spins",
  run = function()
    rein.fs.write("started-close.txt", "x")
    coroutine.wrap(function()
      local guard <close> = setmetatable({}, { __close = function() while true do end end })
      while true do end
    end)()
  end }
"#;

#[test]
fn a_library_function_looping_in_c_ends_with_budget_exceeded() {
    let ws = Workspace::new();
    ws.file("tools/move.lua", MOVE_ALL);
    let error = ws.refused("move", &json!({}), "BUDGET_EXCEEDED");
    assert_eq!(error["details"]["limit"], "instructions", "{error}");
}

/// Starts `rein call tool`, sends SIGINT once the script runs, and returns the exit status and
/// the JSON it printed.
fn interrupted(ws: &Workspace, tool: &str) -> (i32, Value) {
    let child = ws
        .command(&["call", tool])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn rein call");
    let pid = child.id();
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    let started = ws.path(&format!("started-{tool}.txt"));
    let until = Instant::now() + WAIT;
    while !started.exists() {
        assert!(Instant::now() < until, "{tool} never started");
        std::thread::sleep(Duration::from_millis(10));
    }
    // SAFETY: kill(2) on the child this test started; its waiter has not reaped it (it runs).
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGINT) }, 0);
    let out = match finished.recv_timeout(STOPS_WITHIN) {
        Ok(out) => out.expect("wait for rein"),
        Err(_) => {
            // SAFETY: as above.
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("rein call {tool} still ran {STOPS_WITHIN:?} after Ctrl-C");
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let status = out.status.code().unwrap_or_else(|| panic!("rein died by a signal: {:?}", out.status));
    let value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {stdout}"));
    (status, value)
}

#[test]
fn ctrl_c_cancels_a_script_that_never_waits() {
    let ws = Workspace::new();
    ws.file("tools/spin.lua", SPIN);
    let (status, out) = interrupted(&ws, "spin");
    assert_refusal(status, &out, "CANCELLED", "rein call spin, then Ctrl-C");
}

#[test]
fn ctrl_c_stops_a_close_handler_that_spins_after_the_cancel() {
    let ws = Workspace::new();
    ws.file("tools/close.lua", CLOSE_SPIN);
    let (status, out) = interrupted(&ws, "close");
    assert_refusal(status, &out, "CANCELLED", "rein call close, then Ctrl-C");
}
