//! Human-friendly output: a diff for edits, numbered text for reads, a table for tools.

use serde_json::Value;

use rein::host::registry::ToolInfo;
use rein::Failure;

pub fn tool_table(tools: &[ToolInfo]) {
    let width = tools.iter().map(|t| t.name.len()).max().unwrap_or(4).max(4);
    println!("{:<width$}  {:<8}  DESCRIPTION", "NAME", "ORIGIN");
    for tool in tools {
        println!("{:<width$}  {:<8}  {}", tool.name, tool.origin.to_string(), first_sentence(&tool.description));
    }
}

fn first_sentence(text: &str) -> &str {
    match text.find(". ") {
        Some(end) => &text[..=end],
        None => text,
    }
}

/// Picks a rendering by the result's shape, so project tools that return the same shapes
/// print the same way.
pub fn result(value: &Value) {
    let text = |key: &str| value.get(key).and_then(Value::as_str);
    let number = |key: &str| value.get(key).and_then(Value::as_u64).unwrap_or(0);
    if let (Some(diff), Some(path)) = (text("diff"), text("path")) {
        print!("{diff}");
        let dry = if value.get("dry_run").and_then(Value::as_bool) == Some(true) {
            " (dry run, nothing written)"
        } else {
            ""
        };
        eprintln!("{path}: {} replacement(s){dry}", number("replacements"));
    } else if let (Some(content), Some(_)) = (text("content"), value.get("start_line")) {
        if !content.is_empty() {
            println!("{content}");
        }
        let more = if value.get("truncated").and_then(Value::as_bool) == Some(true) { ", truncated" } else { "" };
        eprintln!("lines {}-{} of {}{more}", number("start_line"), number("end_line"), number("total_lines"));
    } else if let Some(entries) = value.get("entries").and_then(Value::as_array) {
        for entry in entries {
            let kind = entry.get("kind").and_then(Value::as_str).unwrap_or("");
            let path = entry.get("path").and_then(Value::as_str).unwrap_or("");
            let suffix = if kind == "dir" {
                "/"
            } else if kind == "symlink" {
                "@"
            } else {
                ""
            };
            println!("{path}{suffix}");
        }
    } else if let (Some(path), Some(sha)) = (text("path"), text("sha256")) {
        let created = if value.get("created").and_then(Value::as_bool) == Some(true) { " (created)" } else { "" };
        println!("wrote {} bytes to {path}{created}, sha256 {sha}", number("bytes"));
    } else {
        println!("{}", serde_json::to_string_pretty(value).unwrap_or_default());
    }
}

pub fn failure(failure: &Failure) {
    eprintln!("error[{}]: {}", failure.code, failure.message);
    if let Some(locations) = failure.details.get("locations").and_then(Value::as_array) {
        for loc in locations {
            eprintln!("  at line {} column {}", loc["line"], loc["column"]);
        }
    } else if let Some(candidates) = failure.details.get("candidates").and_then(Value::as_array) {
        for c in candidates {
            eprintln!("  candidate at line {} ({}):", c["line"], c["reason"].as_str().unwrap_or(""));
            for line in c["text"].as_str().unwrap_or("").lines() {
                eprintln!("    | {line}");
            }
        }
    } else if !failure.details.is_null() {
        eprintln!("{}", serde_json::to_string_pretty(&failure.details).unwrap_or_default());
    }
}

pub fn doctor(reports: &[rein::host::doctor::ProgramReport]) {
    for r in reports {
        if r.found {
            let version = r.version.as_deref().unwrap_or("version unknown");
            println!(
                "{:<14} {}  ({}, via {})",
                r.program,
                r.path.as_deref().unwrap_or(""),
                version,
                r.via.as_deref().unwrap_or("")
            );
            if let Some(jar) = &r.jar {
                println!("{:<14} jar {jar}", "");
            }
            if let Some(problem) = &r.problem {
                println!("{:<14} problem: {problem}", "");
            }
        } else {
            println!("{:<14} MISSING: {}", r.program, r.problem.as_deref().unwrap_or(""));
            for place in &r.tried {
                println!("{:<14} looked at {place}", "");
            }
        }
    }
}
