//! Calls run side by side, each on a Lua state of its own: a recipe waiting on a long step
//! holds one state while other calls are served on the others; no more calls run at once than
//! there are states (home config `[lua] states`, default 4); and no call's budget is shared
//! with another's. A call past as many as the machine has cores waits its 20 ms for a state
//! by real time, whatever executor polls it (no tokio at all, say).

use std::time::Duration;

use rein::{EventKind, Host, Limits};
use serde_json::{json, Value};

use crate::common::raw_server::Server;
use crate::common::Workspace;
use crate::mcp_cancel::wait_for;

/// The step marks its start and its end in the workspace, so the test reads the step's own
/// state rather than a clock.
const SLOW_RECIPE: &str = r#"return { name = "slow", description = "a step that takes 6 s", steps = {
  { name = "wait", run = function()
    rein.fs.write("started-slow.txt", "x")
    rein.sleep(6000)
    rein.fs.write("finished-slow.txt", "x")
    return { waited = true }
  end },
} }
"#;

#[test]
fn a_read_is_answered_at_once_while_a_recipe_step_sleeps_six_seconds() {
    let ws = Workspace::new();
    ws.file("recipes/slow.lua", SLOW_RECIPE);
    ws.file("notes.txt", "one\ntwo\n");
    let mut server = Server::start(&ws);
    server.call(1, "recipe_slow");
    wait_for(ws.path("started-slow.txt"));
    server.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "read_file", "arguments": {"path": "notes.txt"}}}));
    let read = server.reply_to(2, Duration::from_secs(60));
    assert_eq!(read["result"]["structuredContent"]["total_lines"], 2, "{read}");
    assert!(
        !ws.path("finished-slow.txt").exists(),
        "read_file was answered only after the recipe's 6 s step had ended: the recipe held it back"
    );
    let recipe = server.reply_to(1, Duration::from_secs(60));
    assert_eq!(recipe["result"]["structuredContent"]["status"], "succeeded", "{recipe}");
    assert!(server.finish().is_empty());
}

/// A tool spending `half` instructions, waiting, then spending `half` again: it overlaps the
/// others, and fits its budget only if nobody else's instructions count against it.
fn halves_tool(half: u64) -> String {
    format!(
        "return {{ name = 'halves', description = 'spends two halves of its budget', run = function()\n\
         for i = 1, {half} do end\nrein.sleep(300)\nfor i = 1, {half} do end\nreturn {{ done = true }} end }}"
    )
}

/// Runs `calls` concurrent calls of `halves`; returns their results and the most that ran at
/// once (from the tool events, in the order the host heard them).
fn run_concurrently(host: &Host, calls: usize) -> (Vec<Result<Value, rein::Failure>>, usize) {
    let events = host.subscribe();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let results = runtime.block_on(async {
        let calls = (0..calls).map(|_| host.call_async("halves", json!({})));
        tokio::time::timeout(Duration::from_secs(120), futures::future::join_all(calls))
            .await
            .expect("all the calls finish")
    });
    let (mut running, mut most) = (0usize, 0usize);
    for event in events.try_iter() {
        match event.kind {
            EventKind::ToolStarted { depth: 1, .. } => {
                running += 1;
                most = most.max(running);
            }
            EventKind::ToolEnded { depth: 1, .. } => running -= 1,
            _ => {}
        }
    }
    (results, most)
}

fn host(ws: &Workspace, limits: Limits) -> Host {
    Host::builder().workspace(&ws.ws).home(&ws.home).limits(limits).build().unwrap()
}

#[test]
fn eight_calls_on_four_states_all_finish_and_none_spends_another_s_budget() {
    let ws = Workspace::new();
    // Each call spends 1.2 M of its 2 M instructions: two sharing one budget would pass it.
    ws.file("tools/halves.lua", halves_tool(600_000));
    let host = host(&ws, Limits { instructions: 2_000_000, ..Limits::default() });
    let (results, most) = run_concurrently(&host, 8);
    for result in &results {
        assert_eq!(result.as_ref().expect("each call fits its own budget"), &json!({"done": true}));
    }
    assert_eq!(most, 4, "the default four states run four calls at once, and no more");
}

#[test]
fn home_config_bounds_how_many_calls_run_at_once() {
    let ws = Workspace::new();
    ws.file("tools/halves.lua", halves_tool(1000));
    std::fs::create_dir_all(&ws.home).unwrap();
    std::fs::write(ws.home.join("config.toml"), "[lua]\nstates = 2\n").unwrap();
    let (results, most) = run_concurrently(&host(&ws, Limits::default()), 6);
    assert!(results.iter().all(Result::is_ok), "{results:?}");
    assert_eq!(most, 2, "[lua] states = 2 runs two calls at once");
    std::fs::write(ws.home.join("config.toml"), "[lua]\nstates = 0\n").unwrap();
    let refused = Host::builder().workspace(&ws.ws).home(&ws.home).build().err().expect("0 states is refused");
    assert_eq!(refused.code.as_str(), "INVALID_CONFIG");
    assert!(refused.message.contains("[lua] states = 0"), "{refused}");
}

#[test]
fn a_burst_of_quick_calls_builds_no_more_states_than_the_machine_has_cores() {
    // Each state loads the tool file once: the table its top level makes names the state.
    let ws = Workspace::new();
    ws.file(
        "tools/which_state.lua",
        "local mine = tostring({})\nreturn { name = 'which_state', description = 'names its Lua state', run = function() return { state = mine } end }",
    );
    let host = host(&ws, Limits::default());
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let results = runtime.block_on(async {
        let calls = (0..400).map(|_| host.call_async("which_state", json!({})));
        tokio::time::timeout(Duration::from_secs(120), futures::future::join_all(calls))
            .await
            .expect("the calls finish")
    });
    let states: std::collections::HashSet<String> =
        results.into_iter().map(|r| r.expect("each call succeeds")["state"].as_str().unwrap().to_string()).collect();
    let cores = std::thread::available_parallelism().map_or(1, usize::from).min(4);
    assert!(
        states.len() <= cores,
        "400 calls that end in microseconds ran on {} states on a {cores}-core machine: each state beyond the cores is only its building",
        states.len()
    );
}

/// A host with one state more than the machine has cores, and a tool that holds its state 30 s.
fn past_the_cores() -> (Workspace, Host, usize) {
    let ws = Workspace::new();
    ws.file(
        "tools/hold.lua",
        "return { name = 'hold', description = 'holds its state 30 s', run = function()\n\
         rein.fs.write('started-' .. (tostring({}):gsub('%W', '')), 'x')\nrein.sleep(30000)\nreturn {} end }",
    );
    ws.file("notes.txt", "one\n");
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    std::fs::create_dir_all(&ws.home).unwrap();
    std::fs::write(ws.home.join("config.toml"), format!("[lua]\nstates = {}\n", cores + 1)).unwrap();
    let host = host(&ws, Limits { wall_time: Duration::from_secs(600), ..Limits::default() });
    (ws, host, cores)
}

/// One holding call per core, then a read once they all hold their states; the holders are
/// cancelled once the read is answered, or 20 s on whatever happens (the test's bound).
/// Asserts that the read was answered before that bound.
async fn read_beside_holders(ws: &Workspace, host: &Host, cores: usize) {
    let token = rein::CancellationToken::new();
    let bound = token.clone();
    std::thread::spawn(move || {
        std::thread::sleep(Duration::from_secs(20));
        bound.cancel();
    });
    let started = || {
        let entries = std::fs::read_dir(&ws.ws).unwrap().flatten();
        entries.filter(|e| e.file_name().to_string_lossy().starts_with("started-")).count()
    };
    let holders = futures::future::join_all(
        (0..cores).map(|_| host.call_with(host.new_call().with_cancel(token.clone()), "hold", json!({}))),
    );
    let quick = async {
        while started() < cores {
            yield_now().await;
            std::thread::sleep(Duration::from_millis(10));
        }
        let read = host.call_async("read_file", json!({"path": "notes.txt"})).await;
        let late = token.is_cancelled();
        token.cancel();
        (read, late)
    };
    let (holders, (read, late)) = futures::join!(holders, quick);
    assert_eq!(read.expect("the read succeeds")["total_lines"], 1);
    assert!(!late, "the read was answered only once the {cores} holding calls were cancelled 20 s on");
    assert!(holders.iter().all(|h| h.as_ref().is_err_and(|f| f.code.as_str() == "CANCELLED")), "{holders:?}");
}

/// Lets the other futures of a `join!` run, under any executor (woken again at once).
async fn yield_now() {
    let mut yielded = false;
    futures::future::poll_fn(|cx| {
        if yielded {
            return std::task::Poll::Ready(());
        }
        yielded = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    })
    .await;
}

#[test]
fn a_call_past_the_cores_is_served_under_an_executor_that_is_not_tokio() {
    // `futures::executor::block_on` has no timers and no reactor: the holders' leases, the
    // read's 20 ms wait and the state built for it go on without them.
    let (ws, host, cores) = past_the_cores();
    futures::executor::block_on(read_beside_holders(&ws, &host, cores));
}
