//! The JSON contract and exit statuses: 0 ok, 1 the tool failed, 2 usage or configuration.

use serde::Serialize;
use serde_json::json;

use rein::{Code, Failure, LoadProblem};

use super::render;
use super::screen::{self, say, tell};

pub struct Output {
    pub json: bool,
    /// `-v`: failures for people show their Lua traceback too.
    pub verbose: bool,
}

impl Output {
    pub fn success<T: Serialize>(&self, result: &T) -> u8 {
        say!("{}", screen::json(&json!({"ok": true, "result": result})));
        0
    }

    pub fn failure(&self, failure: &Failure) -> u8 {
        let failure = &with_yes_hint(failure.clone());
        if self.json {
            say!("{}", screen::json(&json!({"ok": false, "error": failure})));
        } else {
            render::failure(failure, self.verbose);
        }
        if failure.is_usage_error() {
            2
        } else {
            1
        }
    }

    /// Broken tool files are reported on stderr (`file:line: message`), so they are never
    /// silent.
    pub fn warn_problems(&self, problems: &[LoadProblem]) {
        let problem = render::style::paint(render::style::WARN, "problem");
        for p in problems {
            let at = p.line.map(|line| format!("{}:{line}", p.file)).unwrap_or_else(|| p.file.clone());
            tell!("{at}: {problem}: {}", p.message);
        }
    }
}

/// What the command line adds to a refusal nobody could answer: `--yes` (which only the CLI
/// has) would have answered it. Only where a rule could allow it too (`details.grant`) and
/// anyone may answer (not `details.person_only`, a kept start): what only a person may allow,
/// `--yes` never does.
pub fn with_yes_hint(mut failure: Failure) -> Failure {
    let refusal = match failure.code {
        Code::ApprovalRequired => &failure.details,
        Code::StepFailed => &failure.details["failure"],
        _ => return failure,
    };
    let code = refusal.get("code").and_then(|c| c.as_str());
    let grant = match failure.code {
        Code::ApprovalRequired => refusal.get("grant"),
        _ if code == Some(Code::ApprovalRequired.as_str()) => refusal.pointer("/details/grant"),
        _ => None,
    };
    let person_only = match failure.code {
        Code::ApprovalRequired => refusal.get("person_only"),
        _ => refusal.pointer("/details/person_only"),
    };
    if grant.is_some_and(|g| g.is_string()) && person_only != Some(&serde_json::Value::Bool(true)) {
        failure
            .message
            .push_str(" Or run this rein command again with --yes, which answers yes to what the policy asks about.");
    }
    failure
}
