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

/// How one of a tool's `checks` went (see [`Host::run_checks`]).
#[derive(Debug, Clone, Serialize)]
pub struct CheckOutcome {
    /// The tool the check belongs to.
    pub tool: String,
    /// 1-based, in the order the tool declares them.
    pub check: usize,
    /// Whether the tool's result matched what the check expects.
    pub passed: bool,
    /// Why it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// Runs the checks of every tool `host` serves (the project's, its packs', the built-ins), or
/// only `only`'s, each against the sources the host serves.
pub(crate) fn run_all(host: &Host, only: Option<&str>) -> Result<Vec<CheckOutcome>, Failure> {
    if let Some(name) = only {
        if host.tool(name).is_none() {
            let tools = host.tools();
            let suggestions = crate::error::closest_names(name, tools.iter().map(|t| t.name.as_str()));
            let hint = crate::error::did_you_mean(&suggestions);
            return Err(Failure::new(
                Code::ToolNotFound,
                format!("no tool named {name:?}.{hint} `rein tools` lists the tools."),
            )
            .with_details(serde_json::json!({"tool": name, "suggestions": suggestions})));
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
        let problem = run_one(sources, tool, check).err().map(|p| p.to_string());
        outcomes.push(CheckOutcome { tool: tool.to_string(), check: i + 1, passed: problem.is_none(), problem });
    }
    Ok(outcomes)
}

/// Why a check did not pass.
#[derive(Debug, thiserror::Error)]
pub enum CheckProblem {
    #[error("cannot set up the scratch workspace: {0}")]
    Setup(String),
    #[error("files: {0:?} must be a relative path inside the scratch workspace")]
    OutsideScratch(String),
    #[error("expected error {want}, got {got}")]
    WrongError { want: String, got: Failure },
    #[error("expected error {want}, got the result {got}")]
    NoError { want: String, got: Value },
    #[error("failed: {0}")]
    Failed(Failure),
    #[error("{mismatch}; the result was {result}")]
    Mismatch { mismatch: Mismatch, result: Value },
}

/// The first place a result differs from the shape a check expects.
#[derive(Debug, thiserror::Error)]
pub enum Mismatch {
    #[error("{at} is missing")]
    Missing { at: String },
    #[error("{at} is {have}, expected {want}")]
    Differs { at: String, have: Value, want: Value },
}

fn run_one(sources: &Sources, tool: &str, check: &Value) -> Result<(), CheckProblem> {
    let setup = |e: std::io::Error| CheckProblem::Setup(e.to_string());
    let scratch = tempfile::tempdir().map_err(setup)?;
    for (path, text) in check.get("files").and_then(Value::as_object).into_iter().flatten() {
        if path.contains("..") || path.starts_with('/') {
            return Err(CheckProblem::OutsideScratch(path.clone()));
        }
        let target = scratch.path().join(path);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).map_err(setup)?;
        }
        std::fs::write(&target, text.as_str().unwrap_or_default()).map_err(setup)?;
    }
    let host = Host::builder()
        .workspace(scratch.path())
        .home(scratch.path().join(".home"))
        .sources(sources.clone())
        .build()
        .map_err(|f| CheckProblem::Setup(f.to_string()))?;
    let args = check.get("args").cloned().unwrap_or(Value::Object(Default::default()));
    let expect = check.get("expect").cloned().unwrap_or(Value::Null);
    let result = host.call(tool, args);
    match (expect.get("error").and_then(Value::as_str), result) {
        (Some(code), Err(failure)) if failure.code == crate::error::Code::parse(code) => Ok(()),
        (Some(code), Err(got)) => Err(CheckProblem::WrongError { want: code.to_string(), got }),
        (Some(code), Ok(got)) => Err(CheckProblem::NoError { want: code.to_string(), got }),
        (None, Err(failure)) => Err(CheckProblem::Failed(failure)),
        (None, Ok(result)) => {
            matches(&expect, &result, "result").map_err(|mismatch| CheckProblem::Mismatch { mismatch, result })
        }
    }
}

/// Whether `actual` has the shape `expected` asks for; the error names the first difference.
pub fn matches(expected: &Value, actual: &Value, at: &str) -> Result<(), Mismatch> {
    match (expected, actual) {
        (Value::Null, _) => Ok(()),
        (Value::Object(want), Value::Object(have)) => want.iter().try_for_each(|(key, value)| {
            let path = format!("{at}.{key}");
            match have.get(key) {
                Some(got) => matches(value, got, &path),
                None => Err(Mismatch::Missing { at: path }),
            }
        }),
        (Value::Array(want), Value::Array(have)) if want.len() == have.len() => {
            want.iter().zip(have).enumerate().try_for_each(|(i, (w, h))| matches(w, h, &format!("{at}[{i}]")))
        }
        (want, have) if want == have => Ok(()),
        (want, have) => Err(Mismatch::Differs { at: at.to_string(), have: have.clone(), want: want.clone() }),
    }
}
