//! `rein approvals list|grant|revoke|policy`: the rules in home approvals.toml, and the
//! project's policy files as a person approved them. Both change what agents may do, so a
//! person must confirm at the terminal; rein never grants headless.

use std::path::Path;

use serde_json::json;

use rein::host::policy_files;
use rein::kernel::policy::{Rule, RuleFile};
use rein::kernel::Access;
use rein::{Code, Failure};

use super::args::ApprovalsAction;
use super::output::Output;
use crate::kernel::files::names::shown;

pub fn run(workspace: &Path, home: &Path, action: &ApprovalsAction, out: &Output) -> u8 {
    let path = home.join("approvals.toml");
    let result = match action {
        ApprovalsAction::List => list(&path),
        ApprovalsAction::Grant { path: glob, access, command } => {
            grant(home, &path, glob.as_deref(), access.as_deref(), command)
        }
        ApprovalsAction::Revoke { number } => revoke(&path, *number),
        ApprovalsAction::Policy => policy(workspace, home),
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

/// Shows what of rein.toml and rein.lock waits for a person, and approves it when they say yes.
fn policy(workspace: &Path, home: &Path) -> Result<serde_json::Value, Failure> {
    let workspace = std::fs::canonicalize(workspace).map_err(|e| {
        Failure::new(Code::InvalidConfig, format!("workspace {} cannot be used: {e}", shown(workspace)))
    })?;
    let files = policy_files::load(&workspace, home)?;
    if files.pending.is_empty() {
        return Ok(json!({"pending": [], "approved": []}));
    }
    let question = format!(
        "The project's policy files changed in ways a person has not approved:\n  {}\nApprove rein.toml and rein.lock of {} as they are now?",
        files.pending.join("\n  "),
        shown(&workspace)
    );
    super::prompt::confirm(&question, "approving the project's policy files")
        .map_err(|failure| failure.with_details(json!({"pending": files.pending})))?;
    policy_files::approve_current(&workspace, home)?;
    Ok(json!({"pending": [], "approved": files.pending}))
}

fn print_policy(value: &serde_json::Value) {
    let approved = value["approved"].as_array().cloned().unwrap_or_default();
    if approved.is_empty() {
        println!("rein.toml and rein.lock are served as they are; nothing waits for approval");
    }
    for change in approved {
        println!("approved: {}", change.as_str().unwrap_or_default());
    }
}

fn load(path: &Path) -> Result<RuleFile, Failure> {
    RuleFile::load(path).map_err(|e| Failure::new(Code::InvalidConfig, e.to_string()))
}

fn listing(rules: &RuleFile) -> serde_json::Value {
    let numbered: Vec<_> = rules
        .rules
        .iter()
        .enumerate()
        .map(|(i, r)| json!({"number": i + 1, "rule": r, "grant": r.grant_command()}))
        .collect();
    json!({ "rules": numbered })
}

fn print_rules(value: &serde_json::Value) {
    let rules = value["rules"].as_array().cloned().unwrap_or_default();
    if rules.is_empty() {
        println!("no rules");
    }
    for rule in rules {
        let text = rule["grant"].as_str().unwrap_or("").trim_start_matches("rein approvals grant ").to_string();
        println!("{:>3}  {text}", rule["number"]);
    }
}

fn list(path: &Path) -> Result<serde_json::Value, Failure> {
    Ok(listing(&load(path)?))
}

fn grant(
    home: &Path,
    path: &Path,
    glob: Option<&str>,
    access: Option<&str>,
    command: &[String],
) -> Result<serde_json::Value, Failure> {
    let rule = rule_from(glob, access, command)?;
    rule.check().map_err(|e| Failure::new(Code::InvalidArgs, e.to_string()))?;
    refuse_home_writes(home, &rule)?;
    confirm(&rule, path)?;
    let mut rules = load(path)?;
    rules.rules.push(rule);
    rules.save(path).map_err(|e| Failure::new(Code::IoError, e.to_string()))?;
    Ok(listing(&rules))
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

/// No rule may let anything write rein's home: that is where permissions live.
fn refuse_home_writes(home: &Path, rule: &Rule) -> Result<(), Failure> {
    let Some(glob) = &rule.path else { return Ok(()) };
    if rule.access == Some(Access::Read) {
        return Ok(());
    }
    let home_text = shown(std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf()));
    let pattern = glob::Pattern::new(glob).map_err(|e| Failure::new(Code::InvalidArgs, e.to_string()))?;
    let covers_home = pattern.matches(&home_text)
        || pattern.matches(&format!("{home_text}/approvals.toml"))
        || home_text.starts_with(glob.trim_end_matches(['*', '/', '\\']));
    if covers_home {
        return Err(Failure::new(
            Code::ApprovalDenied,
            format!("a rule may never allow writing rein's home ({home_text}); use --access read, or a narrower path"),
        ));
    }
    Ok(())
}

fn confirm(rule: &Rule, path: &Path) -> Result<(), Failure> {
    let grant = rule.grant_command().trim_start_matches("rein approvals grant ").to_string();
    super::prompt::confirm(&format!("Add this rule to {}?\n  {grant}", shown(path)), "granting a rule")
}

fn revoke(path: &Path, number: usize) -> Result<serde_json::Value, Failure> {
    let mut rules = load(path)?;
    if number == 0 || number > rules.rules.len() {
        return Err(Failure::new(
            Code::InvalidArgs,
            format!("there is no rule {number}; `rein approvals list` numbers the {} rule(s)", rules.rules.len()),
        ));
    }
    rules.rules.remove(number - 1);
    rules.save(path).map_err(|e| Failure::new(Code::IoError, e.to_string()))?;
    Ok(listing(&rules))
}
