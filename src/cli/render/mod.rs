//! Output for people: what each command prints without `--json`. Nothing here prints JSON;
//! colour only reaches a terminal (see `style`).
//!
//! - `text`: any value as indented `key: value` lines
//! - `diff`, `style`: a coloured unified diff; statuses and colours
//! - `recipe`, `packs`, `doctor`: those commands' results

pub mod diff;
pub mod doctor;
pub mod packs;
pub mod recipe;
pub mod style;
pub mod text;

use serde_json::Value;

use rein::Failure;
use rein::ToolInfo;

use crate::cli::screen::{say, tell};
use style::{paint, BAD, DIM, HEAD};

pub fn tool_table(tools: &[ToolInfo]) {
    let width = tools.iter().map(|t| t.name.len()).max().unwrap_or(4).max(4);
    // A definition that replaces one of a lower layer says so: a project recipe named like a
    // built-in one is the project's code, whatever its name promises.
    let origin = |t: &ToolInfo| match t.overrides_origin {
        Some(replaced) => format!("{} (replaces {replaced})", t.origin),
        None => t.origin.to_string(),
    };
    let origins = tools.iter().map(|t| origin(t).len()).max().unwrap_or(8).max(8);
    say!("{}", paint(HEAD, format!("{:<width$}  {:<origins$}  DESCRIPTION", "NAME", "ORIGIN")));
    for tool in tools {
        say!("{:<width$}  {:<origins$}  {}", tool.name, origin(tool), first_sentence(&tool.description));
    }
}

fn first_sentence(text: &str) -> &str {
    match text.find(". ") {
        Some(end) => &text[..=end],
        None => text,
    }
}

/// A tool's result, by its shape: an edit's diff, a read's numbered lines, a listing, a write;
/// anything else as indented text — and a `diff` field, whatever else the result holds, as a
/// diff after the rest.
pub fn result(value: &Value) {
    let text = |key: &str| value.get(key).and_then(Value::as_str);
    let number = |key: &str| value.get(key).and_then(Value::as_u64).unwrap_or(0);
    // An edit's own result (edit_file, multi_edit): the diff is the result.
    if let (Some(diff), Some(path), Some(_)) = (text("diff"), text("path"), value.get("sha256_after")) {
        diff::print(diff);
        let dry = if value.get("dry_run").and_then(Value::as_bool) == Some(true) {
            " (dry run, nothing written)"
        } else {
            ""
        };
        tell!("{path}: {} replacement(s){dry}", number("replacements"));
    } else if let Some(diff) = text("diff") {
        let mut rest = value.clone();
        if let Some(map) = rest.as_object_mut() {
            map.remove("diff");
        }
        if rest.as_object().is_some_and(|m| !m.is_empty()) {
            print_lines(&text::lines(&rest, 0));
        }
        diff::print(diff);
    } else if let (Some(content), Some(_)) = (text("content"), value.get("start_line")) {
        if !content.is_empty() {
            say!("{content}");
        }
        let more = if value.get("truncated").and_then(Value::as_bool) == Some(true) { ", truncated" } else { "" };
        tell!("lines {}-{} of {}{more}", number("start_line"), number("end_line"), number("total_lines"));
    } else if let Some(entries) = value.get("entries").and_then(Value::as_array) {
        for entry in entries {
            let kind = entry.get("kind").and_then(Value::as_str).unwrap_or("");
            let path = entry.get("path").and_then(Value::as_str).unwrap_or("");
            let suffix = match kind {
                "dir" => "/",
                "symlink" => "@",
                _ => "",
            };
            say!("{path}{suffix}");
        }
    } else if let (Some(path), Some(sha), Some(_)) = (text("path"), text("sha256"), value.get("bytes")) {
        let created = if value.get("created").and_then(Value::as_bool) == Some(true) { " (created)" } else { "" };
        say!("wrote {} bytes to {path}{created}, sha256 {sha}", number("bytes"));
    } else if value.is_null() || value.as_object().is_some_and(|m| m.is_empty()) {
        say!("ok");
    } else {
        print_lines(&text::lines(value, 0));
    }
}

fn print_lines(lines: &[String]) {
    for line in lines {
        say!("{line}");
    }
}

/// A failure on stderr: the code and message, then its details as text (the closest names
/// instead of every name there is).
/// `error[CODE]: message` on stderr, the code in colour on a terminal.
/// The message may carry text from outside rein (a step's error, a device's): it stays on its
/// line, with what a screen would act on shown escaped.
pub fn failure_line(code: &rein::Code, message: &str) {
    tell!("{}: {}", paint(BAD, format!("error[{code}]")), rein::visible::line(message));
}

/// A failure for people; a script error's traceback (`details.traceback`, wherever the failure
/// nests it) only with `-v`, the message already names the script's line.
pub fn failure(failure: &Failure, verbose: bool) {
    failure_line(&failure.code, &failure.message);
    let mut details = failure.details.clone();
    if !verbose && without_tracebacks(&mut details) {
        tell!("  {}", paint(DIM, "(-v shows the Lua traceback)"));
    }
    let details = &details;
    if let Some(locations) = details.get("locations").and_then(Value::as_array) {
        for loc in locations {
            tell!("  at line {} column {}", loc["line"], loc["column"]);
        }
    } else if let Some(candidates) = details.get("candidates").and_then(Value::as_array) {
        for c in candidates {
            tell!("  candidate at line {} ({}):", c["line"], c["reason"].as_str().unwrap_or(""));
            for line in c["text"].as_str().unwrap_or("").lines() {
                tell!("    {} {line}", paint(DIM, "|"));
            }
        }
    } else if let Some(map) = details.as_object() {
        let mut shown = details.clone();
        if let Some(shown) = shown.as_object_mut() {
            // The message already names the closest ones; the whole list is for --json.
            shown.remove("available");
            shown.remove("suggestions");
        }
        if !map.is_empty() && shown.as_object().is_some_and(|m| !m.is_empty()) {
            for line in text::lines(&shown, 2) {
                tell!("{line}");
            }
        }
    } else if !details.is_null() {
        for line in text::lines(details, 2) {
            tell!("{line}");
        }
    }
}

/// The Lua traceback a failure carries (wherever it nests it), for a failure whose details are
/// not printed: shown with `-v`, else a line saying `-v` shows it.
pub fn traceback(details: &Value, verbose: bool) {
    let Some(traceback) = find_traceback(details) else { return };
    if verbose {
        tell!("  traceback:");
        for line in traceback.lines() {
            tell!("    {line}");
        }
    } else {
        tell!("  {}", paint(DIM, "(-v shows the Lua traceback)"));
    }
}

fn find_traceback(value: &Value) -> Option<&str> {
    match value {
        Value::Object(map) => {
            map.get("traceback").and_then(Value::as_str).or_else(|| map.values().find_map(find_traceback))
        }
        Value::Array(items) => items.iter().find_map(find_traceback),
        _ => None,
    }
}

/// Removes every `traceback` entry from `value`; whether there was one.
fn without_tracebacks(value: &mut Value) -> bool {
    match value {
        Value::Object(map) => {
            let mut removed = map.remove("traceback").is_some();
            for nested in map.values_mut() {
                removed |= without_tracebacks(nested);
            }
            removed
        }
        // Every item, not only up to the first that had one.
        Value::Array(items) => items.iter_mut().map(without_tracebacks).filter(|removed| *removed).count() > 0,
        _ => false,
    }
}
