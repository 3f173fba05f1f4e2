//! A recipe run as one MCP call: progress per step (from the run's events), cancellation that stops the step cleanly,
//! and the report as the result.

use std::path::Path;
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde_json::Value;

use super::progress::{PeerProgress, Shows};
use super::tools;
use crate::host::Host;
use crate::recipe::report::Report;
use crate::recipe::RecipeOptions;

/// Runs `recipe`. When the client cancels the request, the engine stops the step's programs,
/// rolls the step back and still writes the report; a step's script running in the VM sees the
/// cancel at its next budget check (the call carries the token).
pub async fn run(host: &Host, recipe: &str, args: Value, context: &RequestContext<RoleServer>) -> CallToolResult {
    let progress = Arc::new(PeerProgress::start(context));
    // The engine watches the token: a cancel stops the step's programs, rolls the step back
    // and still writes the report, so the run is awaited to its end.
    let mut call = host.new_call().with_listener(progress.listener(Shows::Steps)).with_cancel(context.ct.clone());
    if let Some(approver) = super::approver::for_request(host, context) {
        call = call.with_approver(approver);
    }
    let outcome = host.run_recipe_with(call, recipe, args, RecipeOptions::default()).await;
    // The call (and with it the listener's hold on the progress) ended with the run.
    if let Ok(progress) = Arc::try_unwrap(progress) {
        progress.finish().await;
    }
    match outcome {
        Ok(report) => outcome_of(host.workspace(), &report),
        Err(failure) => tools::refusal(&failure, None),
    }
}

/// What `rein --json recipe` prints, as an MCP result: the report's markdown as text.
fn outcome_of(workspace: &Path, report: &Report) -> CallToolResult {
    let markdown = report.to_markdown();
    match report.as_failure(workspace) {
        None => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(markdown)]);
            result.structured_content = Some(report.summary(workspace));
            result
        }
        Some(failure) => tools::refusal(&failure, Some(&markdown)),
    }
}
