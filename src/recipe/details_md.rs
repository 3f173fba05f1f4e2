//! A failed step's details in report.md: what a reviewer needs to act without opening the
//! JSON — the ArkTS errors with file:line:column, the crash evidence (the fault log's first
//! lines), the log lines of the process, a row per device. All of it comes from tools, the
//! device and the app: every value goes through `markdown_text`.

use serde_json::Value;

use super::markdown_text::{code, fenced, text as inline};

/// ArkTS errors listed; the rest are counted.
const MAX_ERRORS: usize = 20;

pub fn render(details: &Value) -> String {
    let mut md = String::new();
    if let Some(errors) = details.get("errors").and_then(Value::as_array) {
        errors_md(&mut md, errors);
    }
    if let Some(marker) = details.get("marker").and_then(Value::as_str) {
        let pid = details.get("pid").map(|p| format!(" on pid {}", inline(&text(Some(p))))).unwrap_or_default();
        md.push_str(&format!("- awaited log text: {}{pid}\n", code(marker)));
    }
    if let Some(crash) = details.get("crash").filter(|c| c.is_object()) {
        crash_md(&mut md, crash);
    }
    if let Some(lines) = details.get("log").and_then(Value::as_array).filter(|l| !l.is_empty()) {
        md.push_str("- the process's last log lines since the launch:\n");
        block(&mut md, lines);
    }
    if let Some(rows) = details.get("rows").and_then(Value::as_array) {
        rows_md(&mut md, rows);
    }
    md
}

fn text(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

fn errors_md(md: &mut String, errors: &[Value]) {
    for error in errors.iter().take(MAX_ERRORS) {
        let mut at = text(error.get("file"));
        for part in ["line", "column"] {
            if let Some(n) = error.get(part).filter(|v| !v.is_null()) {
                at.push_str(&format!(":{n}"));
            }
        }
        let number = text(error.get("code"));
        let number = if number.is_empty() { String::new() } else { format!("{} ", inline(&number)) };
        md.push_str(&format!("- error {}: {number}{}\n", code(&at), inline(&text(error.get("message")))));
    }
    if errors.len() > MAX_ERRORS {
        md.push_str(&format!("- … and {} more errors (report.json has them all)\n", errors.len() - MAX_ERRORS));
    }
}

fn crash_md(md: &mut String, crash: &Value) {
    let what = [text(crash.get("error_name")), text(crash.get("error_message"))]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(": ");
    let what = if what.is_empty() { text(crash.get("reason")) } else { what };
    let pid = crash
        .get("pid")
        .filter(|p| !p.is_null())
        .map(|p| format!(", pid {}", inline(&text(Some(p)))))
        .unwrap_or_default();
    md.push_str(&format!("- crash: {} ({}{pid})\n", inline(&what), code(&text(crash.get("file")))));
    for frame in crash.get("stack").and_then(Value::as_array).into_iter().flatten() {
        md.push_str(&format!("  - {}\n", inline(&text(Some(frame)))));
    }
    if let Some(lines) = crash.get("first_lines").and_then(Value::as_array).filter(|l| !l.is_empty()) {
        md.push_str("- the fault log's first lines:\n");
        block(md, lines);
    }
}

/// Log lines as a fenced block inside the list item above.
fn block(out: &mut String, lines: &[Value]) {
    let lines: Vec<String> = lines.iter().map(|line| text(Some(line))).collect();
    out.push_str(&fenced(lines.iter().map(String::as_str), "  "));
}

fn rows_md(md: &mut String, rows: &[Value]) {
    md.push_str("\n| device | result | evidence or what to do |\n|---|---|---|\n");
    for row in rows {
        let (result, said) = if row.get("ok") == Some(&Value::Bool(true)) {
            match text(row.get("screen")) {
                screen if screen.is_empty() => ("passed".to_string(), text(row.get("evidence"))),
                screen => ("passed".to_string(), format!("{}; {screen}", text(row.get("evidence")))),
            }
        } else {
            let code = [text(row.get("code")), text(row.get("detail_code"))]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" ");
            let remedy = text(row.get("remedy"));
            let said = if remedy.is_empty() {
                text(row.get("message"))
            } else {
                format!("{} — {remedy}", text(row.get("message")))
            };
            (format!("failed: {code}"), said)
        };
        md.push_str(&format!("| {} | {} | {} |\n", inline(&text(row.get("target"))), inline(&result), inline(&said)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn errors_crash_log_and_rows_are_rendered() {
        let md = render(&json!({
            "errors": [{"file": "/p/Index.ets", "line": 5, "column": 28, "code": "10505001", "message": "Cannot find name 'x'."}],
            "crash": {"file": "jscrash-com.x-20010044-20250615100000", "pid": 2291, "error_name": "TypeError",
                      "error_message": "boom", "stack": ["at onCreate (EntryAbility.ets:7:5)"], "first_lines": ["Pid:2291"]},
            "log": ["06-15 10:00:00.000  2291  2291 I A00000/testTag: Ability onCreate"],
            "rows": [{"target": "D1", "ok": true, "evidence": "pid 2291 alive"},
                     {"target": "U1", "ok": false, "code": "DEVICE_UNAVAILABLE", "detail_code": "UNAUTHORIZED",
                      "message": "device U1 is Unauthorized", "remedy": "accept the dialog"}],
        }));
        assert!(md.contains("- error `/p/Index.ets:5:28`: 10505001 Cannot find name 'x'."), "{md}");
        assert!(md.contains("- crash: TypeError: boom (`jscrash-com.x-20010044-20250615100000`, pid 2291)"), "{md}");
        assert!(md.contains("  - at onCreate (EntryAbility.ets:7:5)") && md.contains("  Pid:2291"), "{md}");
        assert!(md.contains("I A00000/testTag: Ability onCreate"), "{md}");
        assert!(md.contains("| D1 | passed | pid 2291 alive |"), "{md}");
        assert!(
            md.contains(
                "| U1 | failed: DEVICE_UNAVAILABLE UNAUTHORIZED | device U1 is Unauthorized — accept the dialog |"
            ),
            "{md}"
        );
        assert_eq!(render(&Value::Null), "");
    }
}
