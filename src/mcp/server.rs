//! The rmcp handler: lists the host's tools and recipes under their MCP names, routes each
//! call to one of them, and keeps what the declared capabilities promise (`logging/setLevel`
//! filters the log messages rein sends). A host that could not start serves nothing but
//! still answers, and says why in its instructions and a log message.
// MCP logging (setLevel, log messages) is deprecated upstream (SEP-2577) but still how clients
// show a server's messages, and rein declares it, so it must work.
#![allow(deprecated)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, LoggingLevel, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, SetLevelRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};

use super::cancels::Cancels;
use super::host_slot::HostSlot;
use super::logging::ClientLog;
use super::{approver, recipes, runs, tools};
use crate::error::Failure;
use crate::host::{Host, Prepared};

const INSTRUCTIONS: &str = "rein drives a HarmonyOS/OpenHarmony project safely. Read files with \
read_file and change them with exact edits (edit_file, multi_edit); every refusal carries a code \
and says what to do next. recipe_* tools run verified multi-step workflows (build, sign, install, \
launch) and write a report; run_reports (and the resources rein://runs/<run-id>/report.md) reads a past \
run's report: why it failed and what to do next. Actions outside the workspace need a person's approval.";

#[derive(Clone)]
pub struct ReinServer {
    /// The host serving (once its tools are loaded), or why there is none.
    host: HostSlot,
    /// What is missing although the host serves (a pack not installed, ...).
    notices: Arc<Vec<Failure>>,
    log: Arc<ClientLog>,
    /// Held (shared) by each call in flight; taken whole to wait for them at shutdown.
    in_flight: Arc<tokio::sync::RwLock<()>>,
    /// The token of each call in flight, by request id, for cancels heard off the worker.
    cancels: Arc<Cancels>,
}

impl ReinServer {
    pub fn new(host: Arc<Host>) -> ReinServer {
        ReinServer::serving(Ok(host), Vec::new())
    }

    /// Serves `host` (or, when it could not start, nothing but the reason), telling the client
    /// about `notices`.
    pub fn serving(host: Result<Arc<Host>, Failure>, notices: Vec<Failure>) -> ReinServer {
        ReinServer::with_slot(HostSlot::ready(host), notices)
    }

    /// Serves the host `prepared` becomes: `initialize` is answered while its tools load.
    pub(crate) fn loading(prepared: Prepared, notices: Vec<Failure>) -> ReinServer {
        ReinServer::with_slot(HostSlot::loading(prepared), notices)
    }

    fn with_slot(host: HostSlot, notices: Vec<Failure>) -> ReinServer {
        ReinServer {
            host,
            notices: Arc::new(notices),
            log: Arc::new(ClientLog::default()),
            in_flight: Arc::new(tokio::sync::RwLock::new(())),
            cancels: Arc::new(Cancels::default()),
        }
    }

    /// The host, once its tools are loaded, or why there is none.
    pub(crate) async fn host(&self) -> Result<Arc<Host>, Failure> {
        self.host.get().await
    }

    pub fn log(&self) -> &Arc<ClientLog> {
        &self.log
    }

    pub(crate) fn cancels(&self) -> &Arc<Cancels> {
        &self.cancels
    }

    /// Waits until no call is running, at most `limit`.
    pub async fn wind_down(&self, limit: Duration) {
        if tokio::time::timeout(limit, self.in_flight.write()).await.is_err() {
            tracing::warn!("calls still running {} s after the client left; stopping them", limit.as_secs());
        }
    }

    /// Every problem found at start so far, the host's own first.
    pub fn startup_problems(&self) -> Vec<Failure> {
        self.problems()
    }

    fn problems(&self) -> Vec<Failure> {
        let not_started = match self.host.now() {
            Some(Err(failure)) => Some(failure),
            _ => None,
        };
        not_started.into_iter().chain(self.notices.iter().cloned()).collect()
    }

    /// Whether the host serves (or is loading its tools to serve).
    fn starts(&self) -> bool {
        !matches!(self.host.now(), Some(Err(_)))
    }

    fn instructions(&self) -> String {
        let problems = self.problems();
        if problems.is_empty() {
            return INSTRUCTIONS.to_string();
        }
        let mut text = INSTRUCTIONS.to_string();
        text.push_str(if self.starts() {
            "\n\nProblems found at start (rein serves everything else):"
        } else {
            "\n\nrein could not start and serves no tools until this is fixed and the server restarted:"
        });
        for problem in problems {
            text.push_str(&format!("\n- {}: {}", problem.code, problem.message));
        }
        text
    }
}

impl ServerHandler for ReinServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_logging()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("rein", env!("CARGO_PKG_VERSION")))
        .with_instructions(self.instructions())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        // The tools' load, too, may have failed.
        let _ = self.host.get().await;
        for problem in self.problems() {
            let level = if self.starts() { LoggingLevel::Warning } else { LoggingLevel::Error };
            let data = json!({"message": problem.message, "code": problem.code, "details": problem.details});
            self.log.send(&context.peer, level, "rein.start", data).await;
        }
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.log.set_level(request.level);
        Ok(())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let host = self.host().await.ok();
        let mut listed = host.as_deref().map(tools::list).unwrap_or_default();
        if host.as_deref().is_some_and(serves_run_reports) {
            listed.push(runs::tool());
        }
        Ok(ListToolsResult::with_all_items(listed))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let host = self.host().await.ok();
        Ok(ListResourcesResult::with_all_items(host.as_deref().map(runs::resources).unwrap_or_default()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(runs::templates()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let host = self.host().await.map_err(|failure| {
            ErrorData::resource_not_found(format!("rein could not start: {}", failure.message), None)
        })?;
        runs::read(&host, &request.uri).map(Into::into)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let _in_flight = self.in_flight.read().await;
        // The call's token (which stops its script at the next budget check) can also be
        // cancelled by the stdin reader, while this call holds the worker.
        let _registered = self.cancels.register(&context.id, context.ct.clone());
        let started = Instant::now();
        let name = request.name.as_ref();
        let args = Value::Object(request.arguments.unwrap_or_default());
        let host = match self.host().await {
            Ok(host) => host,
            Err(failure) => return Ok(tools::refusal(&not_started(&failure), None).into()),
        };
        let host = &host;
        // Boxed: the call's future is large, and rmcp moves the handler's future into a task.
        let call = Box::pin(async {
            if name == runs::TOOL && serves_run_reports(host) {
                return runs::call(host, &args);
            }
            match host.recipe_for(name) {
                Some(recipe) => recipes::run(host, &recipe, args, &context).await,
                None => match self.missing_pack(host, name) {
                    Some(failure) => tools::refusal(failure, None),
                    None => tools::call(host, name, args, &context).await,
                },
            }
        });
        let result = approver::serving(context.clone(), call).await;
        tracing::debug!(
            tool = name,
            micros = started.elapsed().as_micros() as u64,
            outcome = outcome(&result),
            "tools/call"
        );
        Ok(result.into())
    }
}

impl ReinServer {
    /// Why `name` is not served when it belongs to a pack that could not be loaded.
    fn missing_pack(&self, host: &Host, name: &str) -> Option<&Failure> {
        if self.notices.is_empty() || host.has_tool(name) {
            return None;
        }
        self.notices.iter().find(|failure| {
            let Some(pack) = failure.details.get("pack").and_then(Value::as_str) else { return false };
            let mapped = crate::host::registry::mcp_name(pack, false);
            name.starts_with(&format!("{pack}.")) || name.starts_with(&format!("{mapped}__"))
        })
    }
}

/// Whether rein's own `run_reports` tool is served: unless the host serves a tool or recipe of
/// that name (the project's name wins, as over a built-in).
fn serves_run_reports(host: &Host) -> bool {
    !host.has_tool(runs::TOOL) && host.recipe_for(runs::TOOL).is_none()
}

/// `ok`, or the code of the failure (for the log).
fn outcome(result: &rmcp::model::CallToolResult) -> &str {
    if result.is_error != Some(true) {
        return "ok";
    }
    result.structured_content.as_ref().and_then(|s| s.get("code")).and_then(Value::as_str).unwrap_or("error")
}

fn not_started(failure: &Failure) -> Failure {
    Failure::new(
        failure.code.clone(),
        format!("rein could not start, so it serves no tools: {}. Fix it and restart the server.", failure.message),
    )
    .with_details(failure.details.clone())
}
