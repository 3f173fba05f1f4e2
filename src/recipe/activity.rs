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
    report.commands.extend(entries.iter().filter(|e| e.action == Action::Spawn).map(CommandRecord::of));
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
        message: without_remedy(&failure.message, remedy.as_deref()),
        location,
        remedy,
        command,
        details,
    }
}

/// A tool's message often ends with its remedy (`install failed 9568332: …. uninstall it
/// first`); the summary carries the remedy on its own, so the message stops before it.
fn without_remedy(message: &str, remedy: Option<&str>) -> String {
    match remedy.and_then(|r| message.strip_suffix(r)) {
        Some(rest) if !rest.trim().is_empty() => {
            let rest = rest.trim_end().trim_end_matches(['.', ':', ';', ',']).trim_end();
            format!("{rest}.")
        }
        _ => message.to_string(),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_ending_with_its_remedy_stops_before_it() {
        let remedy = "uninstall it first (app_uninstall), then install again";
        let message = format!("install failed 9568332: install sign info inconsistent.. {remedy}");
        assert_eq!(without_remedy(&message, Some(remedy)), "install failed 9568332: install sign info inconsistent.");
        assert_eq!(without_remedy(&format!("no device. {remedy}"), Some(remedy)), "no device.");
        assert_eq!(without_remedy("the build failed", Some(remedy)), "the build failed", "no remedy in it");
        assert_eq!(without_remedy(remedy, Some(remedy)), remedy, "nothing but the remedy: kept");
        assert_eq!(without_remedy("x", None), "x");
    }
}
