//! Embedding: a call or a recipe run made with a cancellation token stops promptly when the
//! token is cancelled — a script spinning in the VM, a call waiting on a program (which is
//! killed), a recipe step (rolled back, the report still written) — and the host serves the
//! next call normally.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::Workspace;
use rein::{CancellationToken, Host};

/// Far beyond what any test here waits: only the cancel can stop these calls in time.
fn patient_limits() -> rein::Limits {
    rein::Limits { instructions: u64::MAX, wall_time: Duration::from_secs(600), ..rein::Limits::default() }
}

fn host(ws: &Workspace) -> Arc<Host> {
    Arc::new(Host::builder().workspace(&ws.ws).home(&ws.home).limits(patient_limits()).build().expect("host"))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// Waits (bounded) until `ready` holds, then cancels `token` — from a thread of its own, as
/// the script may be holding the runtime's only thread.
fn cancel_when(token: &CancellationToken, what: &'static str, ready: impl Fn() -> bool + Send + 'static) {
    let token = token.clone();
    std::thread::spawn(move || {
        let until = Instant::now() + Duration::from_secs(30);
        while !ready() {
            assert!(Instant::now() < until, "{what} never happened");
            std::thread::sleep(Duration::from_millis(10));
        }
        token.cancel();
    });
}

/// The whole call, bounded far below the limits above.
fn within<T>(what: &str, runtime: &tokio::runtime::Runtime, work: impl std::future::Future<Output = T>) -> T {
    runtime
        .block_on(async { tokio::time::timeout(Duration::from_secs(60), work).await })
        .unwrap_or_else(|_| panic!("{what} was not stopped by its cancel within 60 s"))
}

fn code_of(result: Result<Value, rein::Failure>) -> String {
    match result {
        Ok(value) => panic!("the call succeeded instead of being cancelled: {value}"),
        Err(failure) => failure.code.to_string(),
    }
}

#[test]
fn a_cancel_stops_a_script_spinning_in_the_vm_and_the_next_call_is_served() {
    let ws = Workspace::new();
    ws.file(
        "tools/spin.lua",
        "return { name = 'spin', description = 'spins', run = function()\n  rein.fs.write('spinning', '')\n  while true do end\nend }\n",
    );
    ws.file(
        "tools/match.lua",
        "return { name = 'match', description = 'a pathological pattern', run = function()\n  rein.fs.write('matching', '')\n  return string.find(string.rep('a', 3000), '.-.-.-.-b')\nend }\n",
    );
    ws.file("notes.txt", "hello\n");
    let host = host(&ws);
    let runtime = runtime();
    for (tool, marker) in [("spin", "spinning"), ("match", "matching")] {
        let token = CancellationToken::new();
        let started = ws.path(marker);
        cancel_when(&token, "the script starting", move || started.exists());
        let call = host.new_call().with_cancel(token);
        let result = within(tool, &runtime, host.call_with(call, tool, json!({})));
        assert_eq!(code_of(result), "CANCELLED", "{tool}");
        let read = within("the next call", &runtime, host.call_async("read_file", json!({"path": "notes.txt"})));
        assert!(read.expect("the next call is served")["content"].as_str().unwrap().contains("hello"));
    }
}

#[test]
fn a_call_cancelled_before_it_starts_does_nothing() {
    let ws = Workspace::new();
    let host = host(&ws);
    let token = CancellationToken::new();
    token.cancel();
    let call = host.new_call().with_cancel(token);
    let result = runtime().block_on(host.call_with(call, "write_file", json!({"path": "a.txt", "content": "x"})));
    assert_eq!(code_of(result), "CANCELLED");
    assert!(!ws.path("a.txt").exists(), "a cancelled call wrote a file");
}

/// An hdc that sleeps with a marker no other process has, set in home config; returns the
/// marker to find it by.
#[cfg(unix)]
fn sleeping_hdc(ws: &Workspace) -> String {
    use std::os::unix::fs::PermissionsExt;
    let marker = format!("600.{}{:09}", std::process::id(), Instant::now().elapsed().subsec_nanos());
    let hdc = ws.root.join("bin/hdc");
    std::fs::create_dir_all(hdc.parent().unwrap()).unwrap();
    std::fs::write(&hdc, format!("#!/bin/sh\nexec sleep {marker}\n")).unwrap();
    std::fs::set_permissions(&hdc, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(ws.home.join("config.toml"), format!("[toolchain]\nhdc = {}\n", crate::common::toml_path(&hdc)))
        .unwrap();
    marker
}

/// The pids of processes whose command line contains `marker`.
#[cfg(unix)]
fn processes_with(marker: &str) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit())))
        .filter(|p| {
            std::fs::read(p.join("cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker))
                && std::fs::read_to_string(p.join("stat")).is_ok_and(|s| !s.contains(") Z "))
        })
        .collect()
}

#[cfg(unix)]
fn gone(marker: &str) -> bool {
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until {
        if processes_with(marker).is_empty() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

// Unix only for now: the program is a /bin/sh script found again through /proc.
#[cfg(unix)]
#[test]
fn a_cancel_stops_a_call_waiting_on_a_program_and_kills_it() {
    let ws = Workspace::new();
    let marker = sleeping_hdc(&ws);
    ws.file(
        "tools/wait.lua",
        "return { name = 'wait', description = 'waits on hdc', run = function()\n  return rein.proc.run('hdc', { 'list', 'targets' })\nend }\n",
    );
    let host = host(&ws);
    let token = CancellationToken::new();
    let watched = marker.clone();
    cancel_when(&token, "hdc starting", move || !processes_with(&watched).is_empty());
    let call = host.new_call().with_cancel(token);
    let result = within("the call waiting on hdc", &runtime(), host.call_with(call, "wait", json!({})));
    assert_eq!(code_of(result), "CANCELLED");
    assert!(gone(&marker), "hdc (sleep {marker}) survived the cancel");
}

#[test]
fn a_cancelled_recipe_run_rolls_its_step_back_and_writes_a_cancelled_report() {
    let ws = Workspace::new();
    ws.file(
        "recipes/spin.lua",
        r#"return {
  name = "spin",
  description = "writes, then spins",
  steps = {
    { name = "first", run = function() rein.fs.write("first.txt", "kept") end, verify = function() return true end },
    { name = "second", run = function()
        rein.fs.write("second.txt", "rolled back")
        rein.fs.write("spinning", "")
        while true do end
      end, verify = function() return true end },
  },
}
"#,
    );
    let host = host(&ws);
    let token = CancellationToken::new();
    let started = ws.path("spinning");
    cancel_when(&token, "the second step spinning", move || started.exists());
    let call = host.new_call().with_cancel(token);
    let run = host.run_recipe_with(call, "spin", json!({}), rein::RecipeOptions::default());
    let report = within("the recipe run", &runtime(), run).expect("the run ends with a report");
    let report = serde_json::to_value(report).unwrap();
    assert_eq!(report["status"], "cancelled", "{report:#}");
    // The recipe is the project's: its verify is project code, so rein vouches for nothing.
    assert_eq!(report["steps"][0]["status"], "claimed", "{report:#}");
    assert_eq!(report["steps"][1]["status"], "cancelled", "{report:#}");
    assert_eq!(std::fs::read_to_string(ws.path("first.txt")).unwrap(), "kept");
    assert!(!ws.path("second.txt").exists(), "the cancelled step's write is rolled back");
    let saved = saved_report(&ws.path(".rein/runs"));
    assert_eq!(saved["status"], "cancelled", "{saved:#}");
}

fn saved_report(runs: &Path) -> Value {
    let entries = std::fs::read_dir(runs).expect("a runs folder");
    let dir = entries.flatten().next().expect("one run").path();
    serde_json::from_slice(&std::fs::read(dir.join("report.json")).expect("report.json")).unwrap()
}

/// A script may hold a to-be-closed variable whose `__close` spins: Lua runs it when the call's
/// coroutine is closed, which happens when the call is dropped. A call dropped mid-way (an
/// embedder's timeout) or cancelled must not leave that handler running on a budget that is
/// no longer anyone's: the drop returns promptly and the host serves the next call.
#[test]
fn a_dropped_or_cancelled_call_does_not_run_its_close_handlers_unbounded() {
    let ws = Workspace::new();
    ws.file(
        "tools/closer.lua",
        "return { name = 'closer', description = 'spins when closed', run = function()\n  local guard <close> = setmetatable({}, { __close = function() while true do end end })\n  rein.fs.write('waiting', '')\n  rein.sleep(60000)\nend }\n",
    );
    ws.file("notes.txt", "hello\n");
    let host = host(&ws);
    let (tx, rx) = std::sync::mpsc::channel();
    let h = host.clone();
    let waiting = ws.path("waiting");
    std::thread::spawn(move || {
        let runtime = runtime();
        // Dropped by the embedder's own timeout: no token.
        let dropped = runtime.block_on(async {
            tokio::time::timeout(Duration::from_millis(300), h.call_async("closer", json!({}))).await
        });
        assert!(dropped.is_err(), "the call was still sleeping when it was dropped: {dropped:?}");
        std::fs::remove_file(&waiting).unwrap();
        // Cancelled through its token.
        let token = CancellationToken::new();
        let started = waiting.clone();
        cancel_when(&token, "the script waiting", move || started.exists());
        let cancelled = runtime.block_on(h.call_with(h.new_call().with_cancel(token), "closer", json!({})));
        let next = runtime.block_on(h.call_async("read_file", json!({"path": "notes.txt"})));
        let _ = tx.send((cancelled.map_err(|f| f.code.to_string()), next.is_ok()));
    });
    let (cancelled, next_served) =
        rx.recv_timeout(Duration::from_secs(60)).expect("a close handler kept the dropped call running for 60 s");
    assert_eq!(cancelled.unwrap_err(), "CANCELLED");
    assert!(next_served, "the host serves the next call");
}

/// On a multi-threaded runtime a call waiting for the Lua state may start the moment a
/// cancelled call lets go of it. Whatever the cancelled call does to put the state back must
/// happen before that: the waiting call keeps its own budget and is stopped by it.
#[test]
fn a_cancelled_call_never_clears_the_budget_of_the_call_after_it() {
    let ws = Workspace::new();
    ws.file(
        "tools/waits.lua",
        "return { name = 'waits', description = 'waits', params = { n = { type = 'integer' } }, run = function(a)\n  rein.fs.write('waiting-' .. a.n, '')\n  rein.sleep(60000)\nend }\n",
    );
    ws.file(
        "tools/spins.lua",
        "return { name = 'spins', description = 'spins after a nap', run = function()\n  rein.sleep(20)\n  while true do end\nend }\n",
    );
    let limits =
        rein::Limits { instructions: 2_000_000, wall_time: Duration::from_secs(600), ..rein::Limits::default() };
    let host = Arc::new(Host::builder().workspace(&ws.ws).home(&ws.home).limits(limits).build().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    let ws_path = ws.ws.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(4).enable_all().build().unwrap();
        let mut codes = Vec::new();
        for n in 0..20 {
            let token = CancellationToken::new();
            let marker = ws_path.join(format!("waiting-{n}"));
            let a = {
                let (host, token) = (host.clone(), token.clone());
                runtime.spawn(async move {
                    host.call_with(host.new_call().with_cancel(token), "waits", json!({"n": n})).await
                })
            };
            let until = Instant::now() + Duration::from_secs(30);
            while !marker.exists() {
                assert!(Instant::now() < until, "call {n} never started");
                std::thread::sleep(Duration::from_millis(2));
            }
            let b = {
                let host = host.clone();
                runtime.spawn(async move { host.call_async("spins", json!({})).await })
            };
            std::thread::sleep(Duration::from_millis(5));
            token.cancel();
            let a = runtime.block_on(a).unwrap();
            let b = runtime.block_on(b).unwrap();
            codes
                .push((a.map_err(|f| f.code.to_string()).unwrap_err(), b.map_err(|f| f.code.to_string()).unwrap_err()));
        }
        let _ = tx.send(codes);
    });
    let codes = rx.recv_timeout(Duration::from_secs(120)).expect("a call ran on without its budget for 120 s");
    for (a, b) in codes {
        assert_eq!((a.as_str(), b.as_str()), ("CANCELLED", "BUDGET_EXCEEDED"));
    }
}
