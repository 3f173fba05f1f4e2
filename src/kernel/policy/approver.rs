//! Who answers an `Ask`: nobody (headless), `--yes`, a person (the CLI's terminal prompt, an
//! MCP client's elicitation), or an embedder's own approver. Being asked by an agent never
//! approves anything by itself.

use super::rules::Rule;
use crate::kernel::{Access, ResolvedPath};

#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    /// What would happen, for a person to read: "hdc install -r entry.hap".
    pub what: String,
    /// Why the policy asks.
    pub why: String,
    /// Who may answer.
    pub who: Asked,
    /// The rule that would allow this again, offered as "persist" (only when anyone may answer).
    pub rule: Option<Rule>,
}

/// Who may answer a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Asked {
    /// A person, a rule a person made, a grant for this session, or `--yes`.
    Anyone,
    /// A person, once: at rein's terminal prompt or behind an MCP client.
    Person,
    /// A person at rein's own terminal prompt, once.
    PersonAtTerminal,
}

impl ApprovalRequest {
    /// Reading or writing `resolved`, which the policy asks about.
    pub fn file(resolved: &ResolvedPath, access: Access) -> ApprovalRequest {
        let rule = Rule::for_path(&resolved.real, access);
        ApprovalRequest {
            what: format!("{} {}", access.verb(), resolved.real.display()),
            why: format!("it is {}", resolved.class.describe()),
            who: Asked::Anyone,
            rule: Some(rule),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Once,
    /// Allow matching actions until rein exits.
    Session,
    /// Add the rule to home approvals.toml.
    Persist,
    /// Nobody could say yes (no one to ask, no answer in time): APPROVAL_REQUIRED, with the
    /// command a person could run.
    No,
    /// A person was asked and said no: APPROVAL_DENIED.
    Refused,
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
        match request.who {
            Asked::Anyone => Answer::Once,
            Asked::Person | Asked::PersonAtTerminal => Answer::No,
        }
    }

    fn name(&self) -> &'static str {
        "--yes"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yes_never_covers_what_only_a_person_may_allow() {
        let rule = Some(Rule::for_command("hdc", vec!["install".into()]));
        let request = ApprovalRequest { what: "hdc install".into(), why: "device".into(), who: Asked::Anyone, rule };
        assert_eq!(AssumeYes.answer(&request), Answer::Once);
        assert_eq!(AssumeYes.answer(&ApprovalRequest { who: Asked::Person, ..request.clone() }), Answer::No);
        assert_eq!(AssumeYes.answer(&ApprovalRequest { who: Asked::PersonAtTerminal, ..request.clone() }), Answer::No);
        assert_eq!(Headless.answer(&request), Answer::No);
    }
}
