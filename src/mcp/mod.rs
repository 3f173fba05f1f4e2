//! `rein serve`: every tool, and every recipe as `recipe_<name>`, offered to agents over MCP on
//! stdin/stdout (rmcp), and past runs' reports (the tool `run_reports`, the resources
//! `rein://runs/<run-id>/report.md` and `report.json`). stdout is the protocol; logs go to
//! stderr.
//!
//! ```no_run
//! let host = rein::Host::builder().workspace("/path/to/app");
//! rein::mcp::serve_stdio(host)?;
//! # Ok::<(), rein::Failure>(())
//! ```
//!
//! Being called by an agent never approves anything: an `Ask` goes to the person behind the
//! client through MCP elicitation when the client offers it, and is otherwise refused with
//! `APPROVAL_REQUIRED` and the command a person could run.

mod approver;
mod cancels;
mod host_slot;
mod json_text;
mod logging;
mod progress;
mod recipes;
mod runs;
mod server;
mod tools;
mod transport;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;

use crate::error::{Code, Failure};
use crate::host::{Host, HostBuilder, Subscription};
use crate::kernel::{Event, EventKind};

pub use approver::ElicitingApprover;
use server::ReinServer;
pub use transport::LineTransport;

/// How long calls still running when the client hangs up get to stop cleanly (a cancelled
/// recipe kills its programs, rolls its step back and writes its report).
const WIND_DOWN: Duration = Duration::from_secs(30);

/// Builds the host with the [`ElicitingApprover`] (replacing any other approver) and serves
/// MCP on stdin/stdout until the client hangs up. A host that cannot be built (rein.toml not
/// valid, a pack not installed) does not stop the server: it answers `initialize`, serves what
/// it can, and tells the client what is wrong.
pub fn serve_stdio(builder: HostBuilder) -> Result<(), Failure> {
    let server = match builder.approver(Arc::new(ElicitingApprover)).prepare(true) {
        Ok((prepared, mut notices)) => {
            // The agent may have edited rein.toml or rein.lock itself; say what waits for a person.
            let waiting = prepared.policy_warning();
            notices.extend(waiting.map(|warning| Failure::new(Code::ApprovalRequired, warning)));
            ReinServer::loading(prepared, notices)
        }
        Err(failure) => ReinServer::serving(Err(failure), Vec::new()),
    };
    for problem in server.startup_problems() {
        tracing::warn!("{}: {}", problem.code, problem.message);
    }
    // Multi-threaded, because the approver waits for the person's answer with
    // `block_in_place`; one worker, because every hand-off of a call between worker threads
    // costs more than the call (see docs/src/performance.md).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .map_err(|e| Failure::new(Code::InvalidConfig, format!("cannot start the async runtime: {e}")))?;
    // stdin and stdout are served by threads of their own (see mcp/transport and mcp/cancels.rs:
    // a cancel must get through while a script holds the worker).
    let stop = stop_on_signal(server.cancels().clone());
    let served = runtime.block_on(async {
        let transport = transport::LineTransport::stdio(server.cancels().clone())
            .map_err(|e| Failure::new(Code::InvalidConfig, format!("cannot start serving stdio: {e}")))?;
        serve_until(server, transport, async {
            let _ = stop.await;
        })
        .await
    });
    runtime.shutdown_timeout(Duration::from_secs(1));
    served
}

/// Serves `host` on any rmcp transport until the client hangs up, then waits for the calls
/// still running to wind down. Build the host with [`ElicitingApprover`] to let the person
/// behind the client answer approvals.
///
/// ```
/// # #[tokio::main(flavor = "multi_thread", worker_threads = 1)]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use rmcp::ServiceExt;
///
/// let workspace = tempfile::tempdir()?;
/// # let home = tempfile::tempdir()?;
/// let host = rein::Host::builder().workspace(workspace.path())
/// #   .home(home.path())
///     .build()?;
/// // Any rmcp transport: here one end of an in-memory pipe, with an MCP client on the other.
/// let (server_end, client_end) = tokio::io::duplex(64 * 1024);
/// let server = tokio::spawn(rein::mcp::serve(std::sync::Arc::new(host), server_end));
/// let client = ().serve(client_end).await?;
/// let tools = client.list_all_tools().await?;
/// assert!(tools.iter().any(|tool| tool.name == "edit_file"));
/// client.cancel().await?;
/// server.await??;
/// # Ok(())
/// # }
/// ```
pub async fn serve<T, E, A>(host: Arc<Host>, transport: T) -> Result<(), Failure>
where
    T: rmcp::transport::IntoTransport<rmcp::RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    serve_until(ReinServer::new(host), transport, std::future::pending()).await
}

/// Like [`serve`], and when `stop` completes, cancels what is running and ends the session.
async fn serve_until<T, E, A>(
    server: ReinServer,
    transport: T,
    stop: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Failure>
where
    T: rmcp::transport::IntoTransport<rmcp::RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    // Watching starts before the client is served, so no change made once the session is up
    // can be missed; outcomes wait in the channel until the client can be told.
    let (reloads, mut outcomes) = tokio::sync::mpsc::unbounded_channel();
    let host = server.clone();
    let listening = tokio::spawn(async move {
        let host = host.host().await.ok()?;
        Some((hear_reloads(&host, reloads), watch(&host)))
    });
    let running = match server.clone().serve(transport).await {
        Ok(running) => running,
        // A client that went away before it began (stdin closed, `rein serve </dev/null`) sent
        // nothing wrong: there is no session to serve, which is no error.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
            tracing::warn!(
                "the MCP client closed the connection before it initialized: no session to serve. `rein serve` \
                 speaks MCP on stdin and stdout and is started by an MCP client (README \"Connect your agent\": `rein mcp add`)"
            );
            drop(listening.await);
            return Ok(());
        }
        Err(e) => return Err(Failure::new(Code::InvalidArgs, format!("the MCP client did not initialize: {e}"))),
    };
    tracing::info!("MCP client connected");
    let peer = running.peer().clone();
    let log = server.log().clone();
    let forward = tokio::spawn(async move {
        while let Some(outcome) = outcomes.recv().await {
            tell_client(&peer, &log, outcome).await;
        }
    });
    let cancel = running.cancellation_token();
    let stopper = tokio::spawn(async move {
        stop.await;
        cancel.cancel();
    });
    if let Err(e) = running.waiting().await {
        tracing::warn!("the MCP session ended with an error: {e}");
    }
    stopper.abort();
    forward.abort();
    server.wind_down(WIND_DOWN).await;
    drop(listening.await);
    Ok(())
}

/// The host's reload events, for the session's client, until the session ends.
fn hear_reloads(host: &Arc<Host>, reloads: tokio::sync::mpsc::UnboundedSender<EventKind>) -> Subscription {
    host.listen(Arc::new(move |event: &Event| {
        if matches!(event.kind, EventKind::ReloadAccepted { .. } | EventKind::ReloadRejected { .. }) {
            let _ = reloads.send(event.kind.clone());
        }
    }))
}

/// Hot reload for the whole session (what it did reaches the client as events).
fn watch(host: &Arc<Host>) -> Option<crate::host::Watcher> {
    match host.watch(|_| {}) {
        Ok(watcher) => Some(watcher),
        Err(failure) => {
            tracing::warn!("hot reload is off: {failure}");
            None
        }
    }
}

/// A new generation tells the client its tool list changed (once per reload); what a reload
/// kept back is one log message naming each file with file:line.
async fn tell_client(peer: &rmcp::Peer<rmcp::RoleServer>, log: &logging::ClientLog, reload: EventKind) {
    if let EventKind::ReloadAccepted { loaded, generation, .. } = &reload {
        tracing::info!("reloaded {loaded:?}: generation {generation}");
        let _ = peer.notify_tool_list_changed().await;
    }
    if let EventKind::ReloadAccepted { kept, problems, .. } | EventKind::ReloadRejected { kept, problems, .. } = &reload
    {
        if !kept.is_empty() {
            tracing::error!("kept back: {}", problems.join("; "));
        }
    }
    if let Some((level, data)) = logging::reload_message(&reload) {
        log.send(peer, level, "rein.reload", data).await;
    }
}

/// SIGINT or SIGTERM (how MCP clients stop a stdio server that did not exit on EOF; Windows:
/// Ctrl-C, Ctrl-Break, console close — `kernel::platform::signals`): calls in flight are
/// cancelled cleanly instead of dying with the process. Heard on a thread of its
/// own, like the client's messages, so a script holding the worker is stopped too (at its next
/// budget check); the returned receiver then tells the session to end.
fn stop_on_signal(cancels: Arc<cancels::Cancels>) -> tokio::sync::oneshot::Receiver<()> {
    let (stopped, stop) = tokio::sync::oneshot::channel();
    let listen = move || {
        let runtime = match tokio::runtime::Builder::new_current_thread().enable_io().build() {
            Ok(runtime) => runtime,
            Err(e) => return tracing::warn!("SIGINT and SIGTERM will not stop calls cleanly: {e}"),
        };
        runtime.block_on(stop_signal());
        cancels.cancel_all();
        let _ = stopped.send(());
    };
    if let Err(e) = std::thread::Builder::new().name("rein-signals".to_string()).spawn(listen) {
        tracing::warn!("SIGINT and SIGTERM will not stop calls cleanly: {e}");
    }
    stop
}

async fn stop_signal() {
    match crate::kernel::platform::signals::stop_requested().await {
        Ok(()) => tracing::info!("stopping: asked to stop (SIGINT, SIGTERM or SIGHUP; Ctrl-C on Windows)"),
        Err(_) => std::future::pending().await,
    }
}
