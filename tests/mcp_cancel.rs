//! An MCP cancel stops a script that never gives the server's worker back — spinning in the Lua
//! VM, or in the pattern engine — over the real stdio server (`rein serve` as a child process,
//! driven with raw JSON-RPC lines): the next call is answered at once, far below the budget's
//! own limits (2·10⁹ instructions, 10 minutes), and the cancelled call gets no response (MCP
//! cancellation: the receiver "SHOULD not send a response for the cancelled request").

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::raw_server::Server;
use crate::common::Workspace;

/// How long the server may take to answer the call after a cancel. The cancelled scripts would
/// otherwise run for seconds to minutes before their budget stopped them; a cancel stops them
/// within 1000 VM instructions or 16,384 pattern steps (well under a millisecond).
const ANSWERED_WITHIN: Duration = Duration::from_secs(10);
/// Bound on every other wait.
const WAIT: Duration = Duration::from_secs(60);

const SPIN: &str = r#"return { name = "spin", description = "spins in the VM",
  run = function() rein.fs.write("started-spin.txt", "x"); while true do end end }
"#;
const PATTERN: &str = r#"return { name = "pattern", description = "spins in the pattern engine",
  run = function()
    rein.fs.write("started-pattern.txt", "x")
    return { found = string.find(string.rep("a", 3000), ".-.-.-.-b") }
  end }
"#;

/// The outcome `rein serve` logged (at debug level) for each call of `tool`: `ok` or a code.
fn outcomes(ws: &Workspace, tool: &str) -> Vec<String> {
    let needle = format!("tool=\"{tool}\"");
    std::fs::read_to_string(ws.root.join("serve.log"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("tools/call") && l.contains(&needle))
        .filter_map(|l| l.split("outcome=\"").nth(1).and_then(|rest| rest.split('"').next()).map(String::from))
        .collect()
}

/// Waits until `path` exists: the script is running (and holds the server's worker).
pub(crate) fn wait_for(path: PathBuf) {
    let until = Instant::now() + WAIT;
    while !path.exists() {
        assert!(Instant::now() < until, "{} never appeared: the tool did not start", path.display());
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Loops in C: one Lua instruction, 2^63 element moves.
const MOVE_ALL: &str = r#"return { name = "move", description = "moves every index there is",
  run = function() rein.fs.write("started-move.txt", "x"); table.move({}, 1, math.maxinteger, 1) end }
"#;
/// Once the cancel stops the coroutine, Lua closes it: the handler spins on a thread whose
/// hooks the budget error switched off.
const CLOSE_SPIN: &str = r#"return { name = "close", description = "a <close> handler that spins",
  run = function()
    rein.fs.write("started-close.txt", "x")
    coroutine.wrap(function()
      local guard <close> = setmetatable({}, { __close = function() while true do end end })
      while true do end
    end)()
  end }
"#;

const SPINNING_RECIPE: &str = r#"return { name = "spinner", description = "a step that spins", steps = {
  { name = "spin", run = function() rein.fs.write("started-recipe.txt", "x"); while true do end end },
} }
"#;

fn workspace() -> Workspace {
    let ws = Workspace::new();
    ws.file("tools/spin.lua", SPIN);
    ws.file("tools/pattern.lua", PATTERN);
    ws.file("recipes/spinner.lua", SPINNING_RECIPE);
    ws.file("tools/move.lua", MOVE_ALL);
    ws.file("tools/close.lua", CLOSE_SPIN);
    ws
}

/// Calls `tool`, cancels it once it runs, and asks for another call: answered within
/// [`ANSWERED_WITHIN`], with nothing ever sent for the cancelled call.
fn a_cancel_frees_the_server_from(tool: &str) {
    let ws = workspace();
    let mut server = Server::start(&ws);
    server.call(1, tool);
    wait_for(ws.path(&format!("started-{tool}.txt")));
    let cancelled = Instant::now();
    server.cancel(1);
    server.call(2, "list_dir");
    let reply = server.reply_to(2, ANSWERED_WITHIN);
    let freed = cancelled.elapsed();
    assert_eq!(reply["result"]["isError"], json!(false), "{reply}");
    eprintln!("{tool}: the next call was answered {} ms after the cancel", freed.as_millis());
    let rest = server.finish();
    drop(server);
    assert!(rest.is_empty(), "nothing more is sent, above all no response to the cancelled call: {rest:?}");
    assert_eq!(outcomes(&ws, tool), ["CANCELLED"], "the script stopped because of the cancel, not its budget");
}

#[test]
fn a_cancelled_script_spinning_in_the_vm_frees_the_server() {
    a_cancel_frees_the_server_from("spin");
}

#[test]
fn a_cancelled_script_spinning_in_the_pattern_engine_frees_the_server() {
    a_cancel_frees_the_server_from("pattern");
}

#[test]
fn a_cancel_of_a_call_still_waiting_behind_a_spinning_one_is_not_lost() {
    let ws = workspace();
    let mut server = Server::start(&ws);
    server.call(1, "spin");
    wait_for(ws.path("started-spin.txt"));
    // Call 2 waits behind call 1 (the server reads it, but cannot start it yet); its cancel
    // arrives before it is registered.
    server.call(2, "pattern");
    server.cancel(2);
    server.cancel(1);
    server.call(3, "list_dir");
    let reply = server.reply_to(3, ANSWERED_WITHIN);
    assert_eq!(reply["result"]["isError"], json!(false), "{reply}");
    let rest = server.finish();
    drop(server);
    assert!(rest.is_empty(), "no response to either cancelled call: {rest:?}");
    assert_eq!(outcomes(&ws, "spin"), ["CANCELLED"]);
    assert_eq!(outcomes(&ws, "pattern"), ["CANCELLED"], "call 2 was stopped before or as it started");
    assert!(!ws.path("started-pattern.txt").exists(), "call 2's script never ran");
}

#[test]
fn sigterm_stops_a_server_whose_worker_a_script_holds() {
    let ws = workspace();
    let mut server = Server::start(&ws);
    server.call(1, "spin");
    wait_for(ws.path("started-spin.txt"));
    // SAFETY: kill(2) on the pid of the child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(server.child.id() as i32, libc::SIGTERM) }, 0);
    let until = Instant::now() + ANSWERED_WITHIN;
    while server.child.try_wait().expect("wait").is_none() {
        assert!(
            Instant::now() < until,
            "rein serve still runs {ANSWERED_WITHIN:?} after SIGTERM:\n{}",
            server.log_text()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(server);
    assert_eq!(outcomes(&ws, "spin"), ["CANCELLED"], "the script was stopped, not killed with the process");
}

#[test]
fn a_cancelled_recipe_step_spinning_in_the_vm_frees_the_server_and_is_reported() {
    let ws = workspace();
    let mut server = Server::start(&ws);
    server.call(1, "recipe_spinner");
    wait_for(ws.path("started-recipe.txt"));
    server.cancel(1);
    server.call(2, "list_dir");
    let reply = server.reply_to(2, ANSWERED_WITHIN);
    assert_eq!(reply["result"]["isError"], json!(false), "{reply}");
    let rest = server.finish();
    drop(server);
    assert!(rest.is_empty(), "no response to the cancelled run: {rest:?}");
    let reports: Vec<Value> = std::fs::read_dir(ws.path(".rein/runs"))
        .expect("the run has a folder")
        .flatten()
        .filter_map(|run| std::fs::read_to_string(run.path().join("report.json")).ok())
        .filter_map(|text| serde_json::from_str(&text).ok())
        .collect();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!(reports[0]["status"], "cancelled", "{}", reports[0]);
    assert_eq!(reports[0]["steps"][0]["status"], "cancelled", "{}", reports[0]);
}

/// Calls `tool`, cancels it once it runs and asks for another call: the call is answered, and
/// the stopped one either sent nothing (cancelled) or, stopped by its budget before the cancel
/// arrived, a BUDGET_EXCEEDED result. Returns what the log says stopped it.
fn the_next_call_is_answered_after(tool: &str) -> Vec<String> {
    let ws = workspace();
    let mut server = Server::start(&ws);
    server.call(1, tool);
    wait_for(ws.path(&format!("started-{tool}.txt")));
    server.cancel(1);
    server.call(2, "list_dir");
    let until = Instant::now() + ANSWERED_WITHIN;
    let reply = loop {
        let left = until.saturating_duration_since(Instant::now());
        let reply = server.replies.recv_timeout(left).unwrap_or_else(|_| {
            panic!(
                "no response to the next call within {ANSWERED_WITHIN:?}: {tool} holds the server\n{}",
                server.log_text()
            )
        });
        match reply.get("id") {
            Some(id) if id == &json!(2) => break reply,
            Some(id) if id == &json!(1) => {
                let code = &reply["result"]["structuredContent"]["code"];
                assert_eq!(code, "BUDGET_EXCEEDED", "only a budget's own stop answers the call: {reply}");
            }
            _ => {}
        }
    };
    assert_eq!(reply["result"]["isError"], json!(false), "{reply}");
    server.finish();
    drop(server);
    outcomes(&ws, tool)
}

#[test]
fn a_library_function_looping_in_c_does_not_hold_the_server() {
    // Its 2^63 moves are charged before the first: it stops at once, by its budget or, when
    // the cancel came first, by the cancel.
    let stopped = the_next_call_is_answered_after("move");
    assert!(matches!(stopped.as_slice(), [o] if o == "BUDGET_EXCEEDED" || o == "CANCELLED"), "{stopped:?}");
}

#[test]
fn a_close_handler_run_after_a_cancel_does_not_hold_the_server() {
    assert_eq!(the_next_call_is_answered_after("close"), ["CANCELLED"]);
}
