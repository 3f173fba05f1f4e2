//! Who answers an `Ask`: nobody (headless), `--yes`, a person (the CLI's terminal prompt, an
//! MCP client's elicitation), or an embedder's own approver. Being asked by an agent never
//! approves anything by itself.

use super::rules::Rule;
use crate::kernel::{Access, ResolvedPath};
use crate::visible;

/// What the policy asks an [`Approver`] about: one side effect, in words for a person. The
/// texts rein makes are safe to show as they are (see [`visible`](crate::visible): nothing in
/// them moves a cursor or reorders text); show them whole — a yes means all of it.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    /// What would happen, on one line, a verb first: "run hdc -p install -r entry.hap" (the
    /// command as it will run), "write /home/me/notes.txt".
    pub what: String,
    /// Why the policy asks.
    pub why: String,
    /// What a yes means besides, a line each: the program that would run (its path as found)
    /// and where, every path outside the workspace absolute and as it resolves, and what the
    /// program may then write outside the workspace.
    pub context: Vec<String>,
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
    pub(crate) fn file(resolved: &ResolvedPath, access: Access) -> ApprovalRequest {
        let rule = Rule::for_path(&resolved.real, access);
        ApprovalRequest {
            what: format!("{} {}", access.verb(), visible::path(&resolved.real)),
            why: format!("it is {}", resolved.class.describe()),
            context: Vec::new(),
            who: Asked::Anyone,
            rule: Some(rule),
        }
    }
}

/// An [`Approver`]'s answer to one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Allow this action, this once.
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

/// Who answers when rein's policy asks (an embedder's own UI, say). Set it with
/// [`HostBuilder::approver`](crate::HostBuilder::approver).
///
/// rein asks only about what its policy leaves open (a file outside the workspace, a program
/// that installs on a device …); the bounds — the project's deny rules, what a pack declared —
/// are checked first and no answer lifts them. An approver must answer only what its user
/// answered: [`Asked`] says who may (a request for [`Asked::PersonAtTerminal`] is for a person
/// at rein's own terminal prompt, which an embedder's UI is not — answer [`Answer::No`]).
///
/// ```
/// use rein::{Answer, ApprovalRequest, Approver, Asked};
///
/// /// Allows what a person may allow through any UI, when the user's callback says yes.
/// struct AskTheUser(fn(&str) -> bool);
///
/// impl Approver for AskTheUser {
///     fn answer(&self, request: &ApprovalRequest) -> Answer {
///         if request.who == Asked::PersonAtTerminal {
///             return Answer::No;
///         }
///         let what_a_yes_means = request.context.join("\n  ");
///         match (self.0)(&format!("rein wants to {} ({})\n  {what_a_yes_means}", request.what, request.why)) {
///             true => Answer::Once,
///             false => Answer::Refused,
///         }
///     }
///
///     fn name(&self) -> &'static str {
///         "my IDE"
///     }
/// }
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let scratch = tempfile::tempdir()?;
/// let (app, home, elsewhere) = (scratch.path().join("app"), scratch.path().join("home"), scratch.path().join("x"));
/// std::fs::create_dir(&app)?;
/// std::fs::create_dir(&elsewhere)?;
/// let host = rein::Host::builder()
///     .workspace(&app)
///     .home(&home)
///     .approver(std::sync::Arc::new(AskTheUser(|_question| false)))
///     .build()?;
/// // Writing outside the workspace asks; this user says no.
/// let args = serde_json::json!({"path": elsewhere.join("notes.txt"), "content": "hi"});
/// let failure = host.call("write_file", args).unwrap_err();
/// assert_eq!(failure.code, rein::Code::ApprovalDenied);
/// assert!(!elsewhere.join("notes.txt").exists());
/// # Ok(())
/// # }
/// ```
pub trait Approver: Send + Sync {
    /// The answer to `request`. Called on the thread of the call that needs it, which waits.
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
        let request = ApprovalRequest {
            what: "hdc install".into(),
            why: "device".into(),
            context: Vec::new(),
            who: Asked::Anyone,
            rule,
        };
        assert_eq!(AssumeYes.answer(&request), Answer::Once);
        assert_eq!(AssumeYes.answer(&ApprovalRequest { who: Asked::Person, ..request.clone() }), Answer::No);
        assert_eq!(AssumeYes.answer(&ApprovalRequest { who: Asked::PersonAtTerminal, ..request.clone() }), Answer::No);
        assert_eq!(Headless.answer(&request), Answer::No);
    }
}
