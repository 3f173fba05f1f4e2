//! What a step did, read from the journal entries it produced: commands, approvals, file
//! changes, and its failure summarised for people.

use serde_json::Value;

use super::report::{ApprovalRecord, CommandRecord, FailureSummary, StepReport};
use crate::error::Failure;
use crate::kernel::journal::restore::net_changes;
use crate::kernel::journal::{Action, Entry};

pub fn record_activity(report: &mut StepReport, entries: &[Entry]) {
    for entry in entries.iter().filter(|e| e.was_approved()) {
        report.approvals.push(ApprovalRecord {
            action: entry.action,
            target: entry.target.clone(),
            decided_by: entry.decided_by.clone(),
        });
    }
    for entry in entries.iter().filter(|e| e.action == Action::Spawn) {
        report.commands.push(CommandRecord {
            command: entry.target.clone(),
            decided_by: entry.decided_by.clone(),
            result: entry.result.clone(),
            exit_code: entry.exit_code,
        });
    }
    for change in net_changes(entries) {
        match report.files.iter_mut().find(|f| f.path == change.path) {
            Some(existing) => existing.sha256_after = change.sha256_after,
            None => report.files.push(change),
        }
    }
}

/// Details that are raw program output: a summary never carries them (they stay in the journal).
const RAW_OUTPUT: [&str; 2] = ["output", "output_tail"];

/// code, message, location (file:line, the tool's own code, or the fault log), remedy, the last
/// command, and the tool's details without raw output.
pub fn summarise(step: &str, failure: &Failure, entries: &[Entry]) -> FailureSummary {
    let d = &failure.details;
    let location = match (d.get("file").and_then(Value::as_str), d.get("line")) {
        (Some(file), Some(line)) => Some(format!("{file}:{line}")),
        _ => first_error_location(d)
            .or_else(|| d.get("code").map(|c| c.to_string().trim_matches('"').to_string()))
            .or_else(|| d.pointer("/crash/file").and_then(Value::as_str).map(str::to_string)),
    };
    let remedy = d.get("remedy").and_then(Value::as_str).map(str::to_string);
    let command = entries.iter().rev().find(|e| e.action == Action::Spawn).map(|e| e.target.clone());
    let details = match d {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| !RAW_OUTPUT.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        _ => Value::Null,
    };
    FailureSummary {
        step: step.to_string(),
        code: failure.code.clone(),
        message: failure.message.clone(),
        location,
        remedy,
        command,
        details,
    }
}

fn first_error_location(details: &Value) -> Option<String> {
    let first = details.get("errors")?.get(0)?;
    let file = first.get("file")?.as_str()?;
    let line = first.get("line")?;
    Some(match first.get("column").filter(|c| !c.is_null()) {
        Some(column) => format!("{file}:{line}:{column}"),
        None => format!("{file}:{line}"),
    })
}
