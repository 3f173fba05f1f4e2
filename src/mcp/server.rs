//! The rmcp handler: lists the host's tools and recipes, and routes each call to one of them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

use super::{approver, recipes, tools};
use crate::host::Host;

const INSTRUCTIONS: &str = "rein drives a HarmonyOS/OpenHarmony project safely. Read files with \
read_file and change them with exact edits (edit_file, multi_edit); every refusal carries a code \
and says what to do next. recipe_* tools run verified multi-step workflows (build, sign, install, \
launch) and write a report. Actions outside the workspace need a person's approval.";

#[derive(Clone)]
pub struct ReinServer {
    host: Arc<Host>,
    /// Held (shared) by each call in flight; taken whole to wait for them at shutdown.
    in_flight: Arc<tokio::sync::RwLock<()>>,
}

impl ReinServer {
    pub fn new(host: Arc<Host>) -> ReinServer {
        ReinServer { host, in_flight: Arc::new(tokio::sync::RwLock::new(())) }
    }

    pub fn host(&self) -> &Arc<Host> {
        &self.host
    }

    /// Waits until no call is running, at most `limit`.
    pub async fn wind_down(&self, limit: Duration) {
        if tokio::time::timeout(limit, self.in_flight.write()).await.is_err() {
            tracing::warn!("calls still running {} s after the client left; stopping them", limit.as_secs());
        }
    }
}

impl ServerHandler for ReinServer {
    // MCP logging is deprecated upstream but is still how clients show a rejected reload.
    #[allow(deprecated)]
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder().enable_tools().enable_tool_list_changed().enable_logging().build(),
        )
        .with_server_info(Implementation::new("rein", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::list(&self.host)))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let _in_flight = self.in_flight.read().await;
        let started = Instant::now();
        let name = request.name.as_ref();
        let args = Value::Object(request.arguments.unwrap_or_default());
        let call = async {
            match tools::recipe_named(&self.host, name) {
                Some(recipe) => recipes::run(&self.host, &recipe, args, &context).await,
                None => tools::call(&self.host, name, args, &context).await,
            }
        };
        let result = approver::serving(context.clone(), call).await;
        tracing::debug!(tool = name, micros = started.elapsed().as_micros() as u64, "tools/call");
        Ok(result.into())
    }
}
