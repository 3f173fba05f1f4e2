//! Who answers an `Ask`: a person at a terminal, `--yes`, nobody (headless), or an embedder's
//! own approver. Being asked by an agent never approves anything by itself.

use std::io::{BufRead, BufReader, Write};

use super::rules::Rule;

#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    /// What would happen, for a person to read: "hdc install -r entry.hap".
    pub what: String,
    /// Why the policy asks.
    pub why: String,
    /// Only a person at an interactive prompt may allow it, and only once.
    pub human_only: bool,
    /// The rule that would allow this again, offered as "persist".
    pub rule: Option<Rule>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Once,
    /// Allow matching actions until rein exits.
    Session,
    /// Add the rule to home approvals.toml.
    Persist,
    No,
}

pub trait Approver: Send + Sync {
    fn answer(&self, request: &ApprovalRequest) -> Answer;
    /// How the journal names the decider.
    fn name(&self) -> &'static str;
    /// True only when a person answers at an interactive prompt.
    fn is_person(&self) -> bool {
        false
    }
}

/// No one to ask: every `Ask` is refused with the command that would allow it.
pub struct Headless;

impl Approver for Headless {
    fn answer(&self, _: &ApprovalRequest) -> Answer {
        Answer::No
    }

    fn name(&self) -> &'static str {
        "headless"
    }
}

/// `--yes`: allows what the policy asks about, never what only a person may allow.
pub struct AssumeYes;

impl Approver for AssumeYes {
    fn answer(&self, request: &ApprovalRequest) -> Answer {
        if request.human_only {
            Answer::No
        } else {
            Answer::Once
        }
    }

    fn name(&self) -> &'static str {
        "--yes"
    }
}

/// Asks the person at the controlling terminal (`/dev/tty`), so piped stdin/stdout and an
/// agent's output parsing are never involved.
pub struct TerminalPrompt;

impl TerminalPrompt {
    /// Available when this process has a controlling terminal.
    pub fn available() -> bool {
        std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty").is_ok()
    }
}

impl Approver for TerminalPrompt {
    fn answer(&self, request: &ApprovalRequest) -> Answer {
        let Ok(tty) = std::fs::OpenOptions::new().read(true).write(true).open("/dev/tty") else {
            return Answer::No;
        };
        let Ok(mut out) = tty.try_clone() else { return Answer::No };
        let choices = if request.human_only || request.rule.is_none() {
            "[y]es once / [n]o"
        } else {
            "[y]es once / [n]o / [a]lways this session / [p]ersist as a rule"
        };
        let _ = write!(out, "\nrein wants to {}\n  ({})\nAllow? {choices}: ", request.what, request.why);
        let _ = out.flush();
        let mut line = String::new();
        if BufReader::new(tty).read_line(&mut line).is_err() {
            return Answer::No;
        }
        parse_answer(&line, request)
    }

    fn name(&self) -> &'static str {
        "person"
    }

    fn is_person(&self) -> bool {
        true
    }
}

fn parse_answer(line: &str, request: &ApprovalRequest) -> Answer {
    let offers_more = !request.human_only && request.rule.is_some();
    match line.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" => Answer::Once,
        "a" | "always" if offers_more => Answer::Session,
        "p" | "persist" if offers_more => Answer::Persist,
        _ => Answer::No,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(human_only: bool) -> ApprovalRequest {
        let rule = Rule { program: Some("hdc".into()), args: vec!["install".into()], path: None, access: None };
        ApprovalRequest { what: "hdc install".into(), why: "device".into(), human_only, rule: Some(rule) }
    }

    #[test]
    fn answers_are_read_strictly() {
        assert_eq!(parse_answer("y\n", &request(false)), Answer::Once);
        assert_eq!(parse_answer("A\n", &request(false)), Answer::Session);
        assert_eq!(parse_answer("p", &request(false)), Answer::Persist);
        assert_eq!(parse_answer("maybe", &request(false)), Answer::No);
        assert_eq!(parse_answer("", &request(false)), Answer::No);
        assert_eq!(parse_answer("p", &request(true)), Answer::No, "home writes are never persisted");
        assert_eq!(parse_answer("a", &request(true)), Answer::No);
    }

    #[test]
    fn yes_never_covers_what_only_a_person_may_allow() {
        assert_eq!(AssumeYes.answer(&request(false)), Answer::Once);
        assert_eq!(AssumeYes.answer(&request(true)), Answer::No);
        assert_eq!(Headless.answer(&request(false)), Answer::No);
    }
}
