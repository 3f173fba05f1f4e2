//! Words for what the journal records as data, so reports read as sentences: who approved a
//! command (`a person at the terminal`, `--yes`, `rule hdc install -r **/*.hap`), how a command
//! ended (`exited 255`, `refused by a person at the terminal`) and a run's arguments
//! (`reinstall = true, target = FMR0223`) — never `null` or a JSON object, and never more than
//! happened.
//!
//! The sentences are markdown (report.md's; report.html and the JUnit XML convert them, see
//! `markup::inline_html` and `markdown_text::plain`), and every text from outside rein in them
//! goes through `markdown_text`. [`arguments`] and [`skipped`] are plain text, for each format
//! to escape.

use serde_json::Value;

use super::markdown_text::{code, text};
use super::report::{CommandEnd, CommandRecord};
use crate::error::Code;
use crate::kernel::policy::DecidedBy;

/// How the approver that never asks anyone names itself (`Headless`).
const HEADLESS: &str = "headless";

/// Who let an action through (or refused it), in words.
pub fn decider(by: &Option<DecidedBy>) -> String {
    let Some(by) = by else { return "nobody recorded".to_string() };
    match by {
        DecidedBy::Policy => "rein's policy (no one was asked)".to_string(),
        DecidedBy::Rule(rule) => format!("rule {}", code(rule)),
        DecidedBy::Project(rule) => format!("the project's deny rule {}", code(rule)),
        DecidedBy::Pack(pack) => format!("pack {}'s permissions", code(pack)),
        DecidedBy::Annotation(tool) => format!("tool {}'s own annotations", code(tool)),
        DecidedBy::Session => "an earlier \"always\" this session".to_string(),
        DecidedBy::Approver(name) => match name.as_str() {
            "person" => "a person at the terminal".to_string(),
            "--yes" => "`--yes`".to_string(),
            "mcp elicitation" => "a person in the MCP client".to_string(),
            "person (confirmed `rein pack`)" => "a person confirming `rein pack`".to_string(),
            HEADLESS => "no one (nobody could be asked)".to_string(),
            other => text(other),
        },
    }
}

/// One program a step ran or tried to run, as a sentence: `ran `x` — allowed by …; exited 0`,
/// `did not run `x` — refused by a person at the terminal (APPROVAL_DENIED)`.
pub fn command(record: &CommandRecord) -> String {
    let cmd = code(&record.command);
    let by = decider(&record.decided_by);
    let code = record.code.as_ref().map_or("", Code::as_str);
    match record.result {
        CommandEnd::Exited => match record.exit_code {
            Some(0) => format!("ran {cmd} — allowed by {by}; exited 0"),
            Some(status) => format!("ran {cmd} — allowed by {by}; **exited {status}**"),
            None => format!("ran {cmd} — allowed by {by}; its exit status was not recorded"),
        },
        CommandEnd::Killed => {
            let signal = record.signal.map_or("a signal".to_string(), |s| format!("signal {s}"));
            format!("ran {cmd} — allowed by {by}; **killed by {signal}**")
        }
        CommandEnd::Refused => format!("did not run {cmd} — {} ({code})", refusal(record)),
        CommandEnd::Failed if record.decided_by.is_none() => format!("did not run {cmd}: {code}"),
        CommandEnd::Failed => format!("ran {cmd} — allowed by {by}; **it did not run to its end: {code}**"),
    }
}

/// Who refused a command, and how: a person or a rule said no, or nobody who could allow it
/// was there.
fn refusal(record: &CommandRecord) -> String {
    let approver = match &record.decided_by {
        Some(DecidedBy::Approver(name)) => Some(name.as_str()),
        _ => None,
    };
    match (record.code.as_ref(), approver) {
        (Some(Code::ApprovalRequired), Some(HEADLESS)) => "it needed approval and nobody could be asked".to_string(),
        (Some(Code::ApprovalRequired), _) => {
            format!("it needed a person's approval, which {} cannot give", decider(&record.decided_by))
        }
        _ => format!("refused by {}", decider(&record.decided_by)),
    }
}

/// What an attachment is, with the device it shows when it has a label: `screenshot (d1)`.
pub fn attachment_kind(attachment: &super::report::Attachment) -> String {
    match &attachment.label {
        Some(label) => format!("{} ({})", attachment.kind, text(label)),
        None => attachment.kind.to_string(),
    }
}

/// The steps that ran without a verify: nothing proved they worked.
pub fn unverified(steps: &[&str]) -> String {
    let named: Vec<String> = steps.iter().map(|s| code(s)).collect();
    match named.len() {
        1 => format!("Step {} declares no verify: it ran to its end, but nothing proved it worked.", named[0]),
        _ => format!(
            "Steps {} declare no verify: they ran to their end, but nothing proved they worked.",
            named.join(", ")
        ),
    }
}

/// Where the recipe came from, as report.md's line under its title: a recipe that replaces
/// another (the project's `sign-install-launch` over rein's) says so first, in bold, since
/// its name promises what the replaced one does.
pub fn recipe_source(source: &super::report::RecipeSource) -> String {
    match &source.replaces {
        Some(replaced) => format!(
            "**Recipe: {} code, {}. It replaces the {} recipe of this name ({}): what ran is the {} code, not the {}.**\n\n",
            text(&source.origin),
            code(&source.file),
            text(&replaced.origin),
            code(&replaced.file),
            text(&source.origin),
            text(&replaced.origin)
        ),
        None => format!("Recipe: {} ({}).\n\n", text(&source.origin), code(&source.file)),
    }
}

/// The tools a step ran and whose code each is: `` `hvigor_build` (project code,
/// `tools/hvigor_build.lua`) `` (markdown, whose outside names are escaped; JUnit takes it
/// through `markdown_text::plain`). A reviewer must see when code other than rein's served a
/// step.
pub fn served_tools(tools: &[super::served::ServedTool]) -> String {
    let each: Vec<String> = tools
        .iter()
        .map(|tool| {
            let whose = match tool.origin {
                crate::kernel::Origin::BuiltIn => "rein's built-in".to_string(),
                other => format!("**{other} code**"),
            };
            format!("{} ({whose}, {})", code(&tool.name), code(&tool.file))
        })
        .collect();
    format!("tools: {}", each.join(", "))
}

/// The steps project code served whose verify passed: rein vouches for none of it.
pub fn claimed(steps: &[&str]) -> String {
    let named: Vec<String> = steps.iter().map(|s| code(s)).collect();
    let (steps, them) = match named.len() {
        1 => (format!("Step {}", named[0]), "it"),
        _ => (format!("Steps {}", named.join(", ")), "them"),
    };
    format!(
        "**{steps} ran project code (the project's recipe, or the tools named below): {them} passed a verify that project code wrote or that read what project code returned, which rein does not vouch for. Not proven by rein.**"
    )
}

/// Why a step did not run: the step that failed before it, or the cancel.
pub fn skipped(report: &super::report::Report) -> String {
    match &report.failure {
        Some(f) => format!("did not run: step {} {} before it", f.step, report.status),
        None => format!("did not run: the run {}", report.status),
    }
}

/// A run's arguments as `key = value` pairs; `none` when there are none.
pub fn arguments(value: &Value) -> String {
    match value {
        Value::Object(map) if map.is_empty() => "none".to_string(),
        Value::Object(map) => map.iter().map(|(k, v)| format!("{k} = {}", inline(v))).collect::<Vec<_>>().join(", "),
        Value::Null => "none".to_string(),
        other => inline(other),
    }
}

fn inline(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => "none".to_string(),
        Value::Array(items) if items.iter().all(|i| !i.is_object() && !i.is_array()) => {
            items.iter().map(inline).collect::<Vec<_>>().join(" ")
        }
        Value::Array(items) => format!("{} items", items.len()),
        Value::Object(map) => format!("({})", arguments(&Value::Object(map.clone()))),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Who decided, as reports store it in JSON.
    fn stored(value: Value) -> Option<DecidedBy> {
        serde_json::from_value(value).expect("a decider as reports store it")
    }

    #[test]
    fn deciders_are_named_in_words() {
        assert_eq!(decider(&stored(json!({"approver": "person"}))), "a person at the terminal");
        assert_eq!(decider(&stored(json!({"approver": "--yes"}))), "`--yes`");
        assert_eq!(decider(&stored(json!({"rule": "hdc install -r **/*.hap"}))), "rule `hdc install -r **/*.hap`");
        assert_eq!(decider(&stored(json!("policy"))), "rein's policy (no one was asked)");
        assert_eq!(decider(&stored(json!("session"))), "an earlier \"always\" this session");
        assert_eq!(decider(&stored(Value::Null)), "nobody recorded");
    }

    fn record(decided_by: Value, result: CommandEnd, code: Option<Code>, exit_code: Option<i32>) -> CommandRecord {
        let decided_by = stored(decided_by);
        CommandRecord { command: "hvigorw clean".into(), decided_by, result, code, exit_code, signal: None }
    }

    #[test]
    fn a_command_reads_as_what_happened() {
        let policy = json!("policy");
        assert_eq!(
            command(&record(policy.clone(), CommandEnd::Exited, None, Some(255))),
            "ran `hvigorw clean` — allowed by rein's policy (no one was asked); **exited 255**"
        );
        assert_eq!(
            command(&record(policy.clone(), CommandEnd::Exited, None, Some(0))),
            "ran `hvigorw clean` — allowed by rein's policy (no one was asked); exited 0"
        );
        let killed = CommandRecord { signal: Some(9), ..record(policy.clone(), CommandEnd::Killed, None, None) };
        assert!(command(&killed).ends_with("; **killed by signal 9**"), "{}", command(&killed));
        assert_eq!(
            command(&record(json!({"approver": "person"}), CommandEnd::Refused, Some(Code::ApprovalDenied), None)),
            "did not run `hvigorw clean` — refused by a person at the terminal (APPROVAL_DENIED)"
        );
        assert_eq!(
            command(&record(json!({"approver": "headless"}), CommandEnd::Refused, Some(Code::ApprovalRequired), None)),
            "did not run `hvigorw clean` — it needed approval and nobody could be asked (APPROVAL_REQUIRED)"
        );
        assert_eq!(
            command(&record(json!({"approver": "--yes"}), CommandEnd::Refused, Some(Code::ApprovalRequired), None)),
            "did not run `hvigorw clean` — it needed a person's approval, which `--yes` cannot give (APPROVAL_REQUIRED)"
        );
        assert_eq!(
            command(&record(
                json!({"project": "hdc uninstall"}),
                CommandEnd::Refused,
                Some(Code::ApprovalDenied),
                None
            )),
            "did not run `hvigorw clean` — refused by the project's deny rule `hdc uninstall` (APPROVAL_DENIED)"
        );
        assert_eq!(
            command(&record(policy, CommandEnd::Failed, Some(Code::Timeout), None)),
            "ran `hvigorw clean` — allowed by rein's policy (no one was asked); **it did not run to its end: TIMEOUT**"
        );
        assert_eq!(
            command(&record(Value::Null, CommandEnd::Failed, Some(Code::ToolchainNotFound), None)),
            "did not run `hvigorw clean`: TOOLCHAIN_NOT_FOUND"
        );
    }

    #[test]
    fn arguments_read_as_pairs() {
        assert_eq!(arguments(&json!({})), "none");
        assert_eq!(
            arguments(&json!({"reinstall": true, "target": "X", "edits": [{"a": 1}]})),
            "edits = 1 items, reinstall = true, target = X"
        );
    }
}
