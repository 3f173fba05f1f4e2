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
            decided_by: serde_json::to_value(&entry.decided_by).unwrap_or(Value::Null),
        });
    }
    for entry in entries.iter().filter(|e| e.action == Action::Spawn) {
        report.commands.push(CommandRecord {
            command: entry.target.clone(),
            decided_by: serde_json::to_value(&entry.decided_by).unwrap_or(Value::Null),
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

/// code, message, location (file:line, or the tool's own code), remedy and the last command.
pub fn summarise(step: &str, failure: &Failure, entries: &[Entry]) -> FailureSummary {
    let d = &failure.details;
    let location = match (d.get("file").and_then(Value::as_str), d.get("line")) {
        (Some(file), Some(line)) => Some(format!("{file}:{line}")),
        _ => first_error_location(d).or_else(|| d.get("code").map(|c| c.to_string().trim_matches('"').to_string())),
    };
    let remedy = d.get("remedy").and_then(Value::as_str).map(str::to_string);
    let command = entries.iter().rev().find(|e| e.action == Action::Spawn).map(|e| e.target.clone());
    FailureSummary {
        step: step.to_string(),
        code: failure.code.clone(),
        message: failure.message.clone(),
        location,
        remedy,
        command,
    }
}

fn first_error_location(details: &Value) -> Option<String> {
    let first = details.get("errors")?.get(0)?;
    Some(format!("{}:{}", first.get("file")?.as_str()?, first.get("line")?))
}
