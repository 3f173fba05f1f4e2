//! `rein approvals list|grant|revoke|policy`: the rules in home approvals.toml, and the
//! project's policy files as a person approved them. Both change what agents may do, so a
//! person must confirm at the terminal; rein never grants headless.

use serde_json::{json, Value};

use rein::{Access, ApprovalRules, Code, Failure, Host, Rule};

use super::args::ApprovalsAction;
use super::output::Output;
use super::screen::say;

/// `approvals policy` needs the project (a host); the rules are home's alone.
pub fn run(
    rules: &ApprovalRules,
    host: impl FnOnce() -> Result<Host, Failure>,
    action: &ApprovalsAction,
    out: &Output,
) -> u8 {
    let result = match action {
        ApprovalsAction::List => rules.list().map(|list| listing(&list)),
        ApprovalsAction::Grant { path: glob, access, command } => {
            grant(rules, glob.as_deref(), access.as_deref(), command)
        }
        ApprovalsAction::Revoke { number } => revoke(rules, *number),
        ApprovalsAction::Policy => host().and_then(|host| policy(&host)),
    };
    match result {
        Ok(value) if out.json => out.success(&value),
        Ok(value) if matches!(action, ApprovalsAction::Policy) => {
            print_policy(&value);
            0
        }
        Ok(value) => {
            print_rules(&value);
            0
        }
        Err(failure) => out.failure(&failure),
    }
}

/// Shows what of rein.toml and rein.lock waits for a person, with each file's diff, and
/// approves exactly what was shown when they say yes. Files that changed while the person
/// read are not approved: they are shown again, as they are now, for a new yes.
fn policy(host: &Host) -> Result<Value, Failure> {
    let mut review = host.policy_review()?;
    let mut changed = None;
    while !review.is_empty() {
        let question = match changed.take() {
            Some(why) => format!("{why}\nThis is what they hold now.\n\n{}", review.text()),
            None => review.text(),
        };
        super::prompt::confirm(&question, "approving the project's policy files")
            .map_err(|failure| failure.with_details(json!({"pending": review.pending()})))?;
        match host.approve_policy(&review) {
            Ok(()) => return Ok(json!({"pending": [], "approved": review.pending()})),
            Err(failure) if failure.code == Code::StaleFile => {
                let file = failure.details["path"].as_str().unwrap_or("a policy file").to_string();
                changed = Some(format!("\n{file} changed after it was shown, so nothing was approved."));
                review = host.policy_review()?;
            }
            Err(failure) => return Err(failure),
        }
    }
    Ok(json!({"pending": [], "approved": []}))
}

fn print_policy(value: &Value) {
    let approved = value["approved"].as_array().cloned().unwrap_or_default();
    if approved.is_empty() {
        say!("rein.toml and rein.lock are served as they are; nothing waits for approval");
    }
    for change in approved {
        say!("approved: {}", change.as_str().unwrap_or_default());
    }
}

fn listing(rules: &[Rule]) -> Value {
    let numbered: Vec<_> = rules
        .iter()
        .enumerate()
        .map(|(i, r)| json!({"number": i + 1, "rule": r, "grant": r.grant_command()}))
        .collect();
    json!({ "rules": numbered })
}

fn print_rules(value: &Value) {
    let rules = value["rules"].as_array().cloned().unwrap_or_default();
    if rules.is_empty() {
        say!("no rules");
    }
    for rule in rules {
        let text = rule["grant"].as_str().unwrap_or("").trim_start_matches("rein approvals grant ").to_string();
        say!("{:>3}  {text}", rule["number"]);
    }
}

fn grant(
    rules: &ApprovalRules,
    glob: Option<&str>,
    access: Option<&str>,
    command: &[String],
) -> Result<Value, Failure> {
    let rule = rule_from(glob, access, command)?;
    rules.check(&rule)?;
    let question = format!("Add this rule to {}?\n  {}", rein::visible::path(rules.path()), rule.describe());
    super::prompt::confirm(&question, "granting a rule")?;
    Ok(listing(&rules.grant(rule)?))
}

fn rule_from(glob: Option<&str>, access: Option<&str>, command: &[String]) -> Result<Rule, Failure> {
    let access = match access {
        None => None,
        Some("read") => Some(Access::Read),
        Some("write") => Some(Access::Write),
        Some(other) => {
            return Err(Failure::new(Code::InvalidArgs, format!("--access is read or write, not {other:?}")))
        }
    };
    match (glob, command.split_first()) {
        (Some(glob), None) => Ok(Rule { program: None, args: Vec::new(), path: Some(glob.to_string()), access }),
        (None, Some((program, args))) if access.is_none() => {
            Ok(Rule { program: Some(program.clone()), args: args.to_vec(), path: None, access: None })
        }
        _ => Err(Failure::new(
            Code::InvalidArgs,
            "give either a program and argument globs (rein approvals grant hdc install -r '*.hap') or --path GLOB [--access read|write]",
        )),
    }
}

fn revoke(rules: &ApprovalRules, number: usize) -> Result<Value, Failure> {
    let list = rules.list()?;
    let Some(rule) = number.checked_sub(1).and_then(|index| list.get(index)) else {
        return Err(Failure::new(
            Code::InvalidArgs,
            format!("there is no rule {number}; `rein approvals list` numbers the {} rule(s)", list.len()),
        ));
    };
    Ok(listing(&rules.revoke(rule)?))
}
