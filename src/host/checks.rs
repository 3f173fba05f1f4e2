//! The examples tools carry (`checks = { { args = {...}, expect = {...}, files = {...} } }`),
//! run against a scratch workspace: by `rein test`, and by hot reload before a changed tool
//! may replace the old one.
//!
//! `expect` is either `{ error = "CODE" }` or a JSON shape the result must contain (objects
//! match by their keys, arrays element by element, other values exactly). `files` seeds the
//! scratch workspace: `{ ["src/a.ets"] = "text" }`.

use serde::Serialize;
use serde_json::Value;

use super::sources::Sources;
use super::Host;
use crate::error::{Code, Failure};

#[derive(Debug, Clone, Serialize)]
pub struct CheckOutcome {
    pub tool: String,
    /// 1-based, in the order the tool declares them.
    pub check: usize,
    pub passed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Runs the checks of every tool `host` serves (the project's, its packs', the built-ins), or
/// only `only`'s, each against the sources the host serves.
pub fn run_all(host: &Host, only: Option<&str>) -> Result<Vec<CheckOutcome>, Failure> {
    if let Some(name) = only {
        if host.tool(name).is_none() {
            return Err(Failure::new(Code::ToolNotFound, format!("no tool named {name:?}")));
        }
    }
    let sources = host.sources();
    let mut outcomes = Vec::new();
    for tool in host.tools().into_iter().filter(|t| only.is_none_or(|n| n == t.name)) {
        outcomes.extend(run_tool_checks(&sources, &tool.name, &tool.checks)?);
    }
    Ok(outcomes)
}

/// Runs one tool's declared checks, each in a fresh scratch workspace.
pub fn run_tool_checks(sources: &Sources, tool: &str, checks: &Value) -> Result<Vec<CheckOutcome>, Failure> {
    let Some(list) = checks.as_array() else { return Ok(Vec::new()) };
    let mut outcomes = Vec::new();
    for (i, check) in list.iter().enumerate() {
        let problem = run_one(sources, tool, check).err();
        outcomes.push(CheckOutcome { tool: tool.to_string(), check: i + 1, passed: problem.is_none(), problem });
    }
    Ok(outcomes)
}

fn run_one(sources: &Sources, tool: &str, check: &Value) -> Result<(), String> {
    let scratch = tempfile::tempdir().map_err(|e| format!("cannot make a scratch workspace: {e}"))?;
    for (path, text) in check.get("files").and_then(Value::as_object).into_iter().flatten() {
        if path.contains("..") || path.starts_with('/') {
            return Err(format!("files: {path:?} must be a relative path inside the scratch workspace"));
        }
        let target = scratch.path().join(path);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        }
        std::fs::write(&target, text.as_str().unwrap_or_default()).map_err(|e| e.to_string())?;
    }
    let host = Host::builder()
        .workspace(scratch.path())
        .home(scratch.path().join(".home"))
        .sources(sources.clone())
        .build()
        .map_err(|f| f.to_string())?;
    let args = check.get("args").cloned().unwrap_or(Value::Object(Default::default()));
    let expect = check.get("expect").cloned().unwrap_or(Value::Null);
    let result = host.call(tool, args);
    match (expect.get("error").and_then(Value::as_str), result) {
        (Some(code), Err(failure)) if failure.code.as_str() == code => Ok(()),
        (Some(code), Err(failure)) => Err(format!("expected error {code}, got {failure}")),
        (Some(code), Ok(value)) => Err(format!("expected error {code}, got the result {value}")),
        (None, Err(failure)) => Err(format!("failed: {failure}")),
        (None, Ok(value)) => matches(&expect, &value, "result").map_err(|why| format!("{why}; the result was {value}")),
    }
}

/// Whether `actual` has the shape `expected` asks for; the error names the first difference.
pub fn matches(expected: &Value, actual: &Value, at: &str) -> Result<(), String> {
    match (expected, actual) {
        (Value::Null, _) => Ok(()),
        (Value::Object(want), Value::Object(have)) => want.iter().try_for_each(|(key, value)| {
            let path = format!("{at}.{key}");
            match have.get(key) {
                Some(got) => matches(value, got, &path),
                None => Err(format!("{path} is missing")),
            }
        }),
        (Value::Array(want), Value::Array(have)) if want.len() == have.len() => {
            want.iter().zip(have).enumerate().try_for_each(|(i, (w, h))| matches(w, h, &format!("{at}[{i}]")))
        }
        (want, have) if want == have => Ok(()),
        (want, have) => Err(format!("{at} is {have}, expected {want}")),
    }
}
