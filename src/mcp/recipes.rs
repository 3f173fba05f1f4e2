//! A recipe run as one MCP call: progress per step, cancellation that stops the step cleanly,
//! and the report as the result.

use std::path::Path;

use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use serde_json::{json, Value};

use super::progress::PeerProgress;
use super::tools;
use crate::error::{Code, Failure};
use crate::host::Host;
use crate::recipe::report::{runs_dir, Report};
use crate::recipe::RecipeOptions;

/// Runs `recipe`. When the client cancels the request, the run's cancel flag flips: the engine
/// stops the step's programs, rolls the step back and still writes the report.
pub async fn run(host: &Host, recipe: &str, args: Value, context: &RequestContext<RoleServer>) -> CallToolResult {
    let (cancel, cancelled) = tokio::sync::watch::channel(false);
    let progress = PeerProgress::start(context);
    let options = RecipeOptions { from: None, cancel: Some(cancelled) };
    let outcome = {
        let run = host.run_recipe_async(recipe, args, options, &progress);
        tokio::pin!(run);
        tokio::select! {
            outcome = &mut run => outcome,
            _ = context.ct.cancelled() => {
                tracing::info!("recipe {recipe} cancelled (by the client, or it left); stopping it");
                let _ = cancel.send(true);
                run.await
            }
        }
    };
    progress.finish().await;
    match outcome {
        Ok(report) => outcome_of(host.workspace(), &report),
        Err(failure) => tools::refusal(&failure, None),
    }
}

/// What `rein --json recipe` prints, as an MCP result: the report's markdown as text.
fn outcome_of(workspace: &Path, report: &Report) -> CallToolResult {
    let path = runs_dir(workspace).join(&report.run_id).join("report.json");
    let markdown = report.to_markdown();
    if report.status == "succeeded" {
        let structured =
            json!({"run_id": report.run_id, "status": report.status, "report": path, "steps": report.steps});
        let mut result = CallToolResult::success(vec![ContentBlock::text(markdown)]);
        result.structured_content = Some(structured);
        return result;
    }
    tools::refusal(&failure_of(report, &path), Some(&markdown))
}

/// The run's failure as the CLI reports it: CANCELLED, VERIFY_FAILED or STEP_FAILED.
fn failure_of(report: &Report, path: &Path) -> Failure {
    let failure = report.failure.clone();
    let code = match (report.status.as_str(), &failure) {
        ("cancelled", _) => Code::Cancelled.as_str(),
        (_, Some(f)) if f.code == Code::VerifyFailed.as_str() => Code::VerifyFailed.as_str(),
        _ => Code::StepFailed.as_str(),
    };
    let message = match &failure {
        Some(f) => format!("recipe {} {} at step {}: {} {}", report.recipe, report.status, f.step, f.code, f.message),
        None => format!("recipe {} {}", report.recipe, report.status),
    };
    let details = json!({"run_id": report.run_id, "status": report.status, "failure": failure, "report": path});
    Failure { code: code.to_string(), message, details }
}
