//! The last line: a call whose Lua never comes back to the budget (here an embedder's native
//! function that blocks its thread for good, which no check inside Lua can reach) ends with
//! BUDGET_EXCEEDED at its wall clock plus a grace, or with CANCELLED within a second of a
//! cancel; its Lua state is given up and the next calls are served from fresh ones, over the
//! Host API and over MCP.

use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use rein::{CancellationToken, Host, Limits, NativeFunction, NativeModule};
use rmcp::model::{CallToolRequestParams, ClientRequest, Request};
use rmcp::service::PeerRequestOptions;
use rmcp::ServiceExt;
use serde_json::json;

use crate::common::Workspace;

/// Bound on every wait: the watchdog answers within about two seconds.
const WAIT: Duration = Duration::from_secs(30);

/// A module whose function tells `started` it runs, then blocks its thread for good.
fn stuck_module(started: mpsc::Sender<()>) -> NativeModule {
    let started = Mutex::new(started);
    NativeModule::new("stuck", "a native function that never returns").function(NativeFunction::new(
        "forever",
        "blocks its thread for good",
        move |_, _| {
            let _ = started.lock().unwrap().send(());
            loop {
                std::thread::park();
            }
        },
    ))
}

/// A host serving `stuck` (into the blocking native) and `ok`; the receiver hears each time
/// the native starts blocking.
fn host(ws: &Workspace, limits: Limits) -> (Host, mpsc::Receiver<()>) {
    ws.file(
        "tools/stuck.lua",
        "return { name = 'stuck', description = 'never comes back', run = function() rein.stuck.forever() end }",
    );
    ws.file(
        "tools/ok.lua",
        "return { name = 'ok', description = 'fine', run = function() return { fine = true } end }",
    );
    let (started, blocking) = mpsc::channel();
    let host = Host::builder().workspace(&ws.ws).home(&ws.home).limits(limits).module(stuck_module(started));
    (host.build().unwrap(), blocking)
}

/// A runtime that does not wait for its threads when dropped: where a stuck native function
/// held one of them, a failed test would otherwise hang instead of failing.
struct Runtime(Option<tokio::runtime::Runtime>);

impl std::ops::Deref for Runtime {
    type Target = tokio::runtime::Runtime;
    fn deref(&self) -> &tokio::runtime::Runtime {
        self.0.as_ref().expect("until dropped")
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if let Some(runtime) = self.0.take() {
            runtime.shutdown_background();
        }
    }
}

fn runtime() -> Runtime {
    Runtime(Some(tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()))
}

#[test]
fn a_call_stuck_past_its_wall_clock_ends_and_its_state_is_replaced() {
    let ws = Workspace::new();
    let (host, _blocking) = host(&ws, Limits { wall_time: Duration::from_secs(1), ..Limits::default() });
    // More stuck calls than states: each gives its state up, and the pool builds new ones.
    for round in 0..6 {
        let failure = runtime()
            .block_on(async { tokio::time::timeout(WAIT, host.call_async("stuck", json!({}))).await })
            .unwrap_or_else(|_| panic!("round {round}: the stuck call was not answered within {WAIT:?}"))
            .expect_err("a call whose Lua never comes back fails");
        assert_eq!(failure.code.as_str(), "BUDGET_EXCEEDED", "{failure}");
        assert_eq!(failure.details, json!({"limit": "wall_time", "state_given_up": true}), "{failure}");
        assert_eq!(host.call("ok", json!({})).unwrap(), json!({"fine": true}), "the next call is served");
    }
}

#[test]
fn a_cancel_ends_a_stuck_call_within_a_second() {
    let ws = Workspace::new();
    let (host, blocking) = host(&ws, Limits::default());
    let host = Arc::new(host);
    let runtime = runtime();
    let token = CancellationToken::new();
    let call = host.new_call().with_cancel(token.clone());
    let caller = host.clone();
    let stuck = runtime.spawn(async move { caller.call_with(call, "stuck", json!({})).await });
    blocking.recv_timeout(WAIT).expect("the native function runs");
    token.cancel();
    let failure = runtime
        .block_on(async { tokio::time::timeout(WAIT, stuck).await })
        .expect("the cancelled call is answered")
        .unwrap()
        .expect_err("it was cancelled");
    // The native never returns: the call was answered without it, long before its ten-minute
    // wall clock (the watchdog gives its state up within a second, lua/pool/watchdog.rs).
    assert_eq!(failure.code.as_str(), "CANCELLED", "{failure}");
    assert_eq!(host.call("ok", json!({})).unwrap(), json!({"fine": true}), "the next call is served");
}

#[test]
fn over_mcp_a_cancelled_stuck_call_leaves_the_session_serving() {
    let ws = Workspace::new();
    let (host, blocking) = host(&ws, Limits::default());
    let host = Arc::new(host);
    let runtime = runtime();
    runtime.block_on(async {
        let (server_end, client_end) = tokio::io::duplex(64 * 1024);
        let server = tokio::spawn(rein::mcp::serve(host, server_end));
        let client = ().serve(client_end).await.expect("initialize");
        let params = CallToolRequestParams::new("stuck").with_arguments(Default::default());
        let request = ClientRequest::CallToolRequest(Request::new(params));
        let handle = client.send_cancellable_request(request, PeerRequestOptions::no_options()).await.unwrap();
        let blocking = tokio::task::spawn_blocking(move || blocking.recv_timeout(WAIT));
        blocking.await.unwrap().expect("the native function runs");
        handle.cancel(Some("the person pressed stop".into())).await.expect("cancel sent");
        for tool in ["ok", "list_dir"] {
            let next = tokio::time::timeout(WAIT, client.call_tool(CallToolRequestParams::new(tool)))
                .await
                .unwrap_or_else(|_| panic!("{tool} was not answered after the cancel"))
                .unwrap();
            assert_eq!(next.is_error, Some(false), "{next:?}");
        }
        let listed = client.list_all_tools().await.unwrap();
        assert!(listed.iter().any(|t| t.name == "stuck"));
        client.cancel().await.unwrap();
        let _ = server.await;
    });
}

/// A tool file whose top-level code calls a function that never returns: the watchdog gave the
/// loading state up, and the whole host failed to build with BUDGET_EXCEEDED — `rein serve`
/// served nothing, and every command that loads tools failed, for one file (an agent's file
/// whose top level staged a package of gigabytes did the same). The file is set aside as a
/// load problem of its own, and the others are served.
#[test]
fn a_file_whose_load_never_comes_back_is_set_aside_and_the_others_serve() {
    let ws = Workspace::new();
    ws.file(
        "tools/stuck_at_load.lua",
        "rein.stuck.forever()\nreturn { name = 'stuck_at_load', description = 'd', run = function() end }",
    );
    ws.file(
        "tools/ok.lua",
        "return { name = 'ok', description = 'fine', run = function() return { fine = true } end }",
    );
    let (started, _blocking) = mpsc::channel();
    let built = Host::builder().workspace(&ws.ws).home(&ws.home).module(stuck_module(started)).build();
    let host = built.expect("the host starts without that file");
    assert_eq!(host.call("ok", json!({})).unwrap(), json!({"fine": true}));
    let problems = host.problems();
    let problem = problems.iter().find(|p| p.file == "tools/stuck_at_load.lua").expect("the file is a problem");
    assert!(problem.message.contains("never came back"), "{problem}");
    let refused = host.call("stuck_at_load", json!({})).unwrap_err();
    assert_eq!(refused.code, rein::Code::ToolInvalid, "{refused:?}");
}
