//! Past recipe runs for the agent, read-only: the tool `run_reports` and the resources
//! `rein://runs/<run-id>/report.md` (and `report.json`), so an agent can read why a recipe
//! failed — step by step, with each failure's code, location and remedy — without a shell.
//!
//! Undoing a run and pruning the saved copies are not offered: undo rewrites the files a record
//! in the workspace's `.rein/` names (which an agent may have written) without the
//! read-before-edit a session is held to, and pruning removes the person's way back. Both stay
//! with a person (`rein undo`, `rein runs prune`, or an embedder's own UI).

use std::borrow::Cow;
use std::sync::Arc;

use rmcp::model::{
    CallToolResult, ContentBlock, ErrorData, JsonObject, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate, Tool, ToolAnnotations,
};
use serde_json::{json, Value};

use super::tools::{refusal, success};
use crate::error::{Code, Failure};
use crate::host::Host;
use crate::recipe::runs::RunSummary;

/// The tool's MCP name. A tool or recipe the host serves under the same name wins, as a
/// project's tool wins over a built-in.
pub const TOOL: &str = "run_reports";
/// How many runs the tool and `resources/list` show, newest first.
const SHOWN: usize = 20;
const SCHEME: &str = "rein://runs/";

/// The tool, with its schema: `{run_id?: string}`.
pub fn tool() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "run_id": {
                "type": "string",
                "description": "A run id, or \"last\"; none lists the runs"
            }
        },
        "additionalProperties": false
    });
    let schema = match schema {
        Value::Object(schema) => schema,
        _ => JsonObject::new(),
    };
    Tool::new(
        Cow::Borrowed(TOOL),
        "Past recipe runs (id, recipe, status), newest first; with run_id (or \"last\") that run's report: \
         steps, approvals, changed files, any failure.",
        Arc::new(schema),
    )
    .annotate(ToolAnnotations::from_raw(None, Some(true), Some(false), Some(true), Some(false)))
}

/// Answers a call of the tool.
pub fn call(host: &Host, args: &Value) -> CallToolResult {
    match args.get("run_id") {
        None | Some(Value::Null) => listing(host),
        Some(Value::String(id)) => match host.run_report(id) {
            Ok(report) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(report.to_markdown())]);
                result.structured_content = serde_json::to_value(&report).ok();
                result
            }
            Err(failure) => refusal(&failure, None),
        },
        Some(_) => refusal(&Failure::new(Code::InvalidArgs, "run_id is a string: a run id, or \"last\""), None),
    }
}

fn listing(host: &Host) -> CallToolResult {
    let runs = newest(host);
    if runs.is_empty() {
        return success(json!({"runs": [], "message": "no recipe has run in this workspace yet"}));
    }
    success(json!({"runs": runs}))
}

/// The latest runs, newest first.
fn newest(host: &Host) -> Vec<RunSummary> {
    host.runs().into_iter().rev().take(SHOWN).collect()
}

/// The latest runs' reports as resources.
pub fn resources(host: &Host) -> Vec<Resource> {
    newest(host)
        .into_iter()
        .map(|run| {
            Resource::new(format!("{SCHEME}{}/report.md", run.run_id), format!("run {}", run.run_id))
                .with_title(format!("{} {}", run.recipe, run.status))
                .with_description(format!(
                    "The report of recipe {} run {} ({}), started {}",
                    run.recipe, run.run_id, run.status, run.started
                ))
                .with_mime_type("text/markdown")
        })
        .collect()
}

/// Every run's report, by id (or `last`), as markdown or JSON.
pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(format!("{SCHEME}{{run_id}}/report.md"), "run report")
            .with_description("A recipe run's report, as people read it (run_id: an id, or \"last\")")
            .with_mime_type("text/markdown"),
        ResourceTemplate::new(format!("{SCHEME}{{run_id}}/report.json"), "run report (JSON)")
            .with_description("A recipe run's report as data (run_id: an id, or \"last\")")
            .with_mime_type("application/json"),
    ]
}

/// Reads `rein://runs/<run-id>/report.md` or `.../report.json`.
pub fn read(host: &Host, uri: &str) -> Result<ReadResourceResult, ErrorData> {
    let not_found = |why: String| ErrorData::resource_not_found(why, Some(json!({"uri": uri})));
    let Some((run_id, file)) = uri.strip_prefix(SCHEME).and_then(|rest| rest.split_once('/')) else {
        return Err(not_found(format!(
            "{uri} is not a rein resource; they are {SCHEME}<run-id>/report.md and report.json"
        )));
    };
    let report = host.run_report(run_id).map_err(|failure| not_found(failure.message))?;
    let contents = match file {
        "report.md" => ResourceContents::text(report.to_markdown(), uri).with_mime_type("text/markdown"),
        "report.json" => {
            let text = serde_json::to_string_pretty(&report).unwrap_or_default();
            ResourceContents::text(text, uri).with_mime_type("application/json")
        }
        other => return Err(not_found(format!("a run has report.md and report.json, not {other}"))),
    };
    Ok(ReadResourceResult::new(vec![contents]))
}
