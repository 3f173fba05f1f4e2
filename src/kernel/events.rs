//! What happens, as typed events: tool calls, programs, approvals, written files, recipe runs
//! and reloads. The facts the journal records and the progress people see come from here, so
//! the CLI's progress display, the MCP server's notifications and an embedder's listener all
//! read one stream.
//!
//! Events travel with the [`Call`](super::Call) they belong to: whoever starts a call gives
//! it the listeners that must hear about it (an MCP request's progress, the host's
//! subscribers), and every event names the call, so one request's listener never hears
//! another's programs.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::Serialize;

use super::policy::{Asked, DecidedBy};
use crate::error::Code;

/// Who hears a call's events. Called synchronously where the fact happens: keep it short
/// (send to a channel, update a display), never block on the call itself.
pub type Listener = Arc<dyn Fn(&Event) + Send + Sync>;

/// Which top-level call an event belongs to (a tool call or a recipe run, with every nested
/// tool call and step it makes). Unique within the process.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct CallId(pub u64);

impl CallId {
    /// A fresh id, never handed out before in this process.
    pub fn next() -> CallId {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        CallId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

impl std::fmt::Display for CallId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "call-{}", self.0)
    }
}

/// One thing that happened.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Event {
    /// The call it happened in; None for what belongs to no call (a reload).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<CallId>,
    /// The innermost tool or recipe acting when it happened.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actor: Option<String>,
    /// What happened.
    #[serde(flatten)]
    pub kind: EventKind,
}

/// How an operation ended: `ok`, or the error code it failed with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Ended {
    /// It succeeded.
    Ok,
    /// It failed with this code (CANCELLED when its call was dropped mid-way).
    Failed(Code),
}

/// What happened, by kind. Secret values are already scrubbed from every text here. Every
/// `duration_ms` is wall-clock milliseconds.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EventKind {
    /// A tool started, called by the host or by another tool (`rein.tool`).
    ToolStarted {
        /// As it is called: `read_file`, `team-kit.greet`.
        tool: String,
        /// 1 for a tool the host called, 2 for one it called, and so on.
        depth: usize,
        /// Whose code it is: `built-in`, `embedder`, `pack` or `project`.
        #[serde(skip_serializing_if = "Option::is_none")]
        origin: Option<super::Origin>,
        /// The file that defines it (`tools/x.lua`, `<built-in>/tools/x.lua`).
        #[serde(skip_serializing_if = "Option::is_none")]
        file: Option<String>,
    },
    /// A tool ended, with its result or its failure's code.
    ToolEnded {
        /// As it is called.
        tool: String,
        /// As in [`EventKind::ToolStarted`].
        depth: usize,
        /// How it ended.
        ended: Ended,
        /// How long it ran.
        duration_ms: u64,
    },
    /// A program was allowed and is starting.
    ProgramSpawned {
        /// Its name, as scripts name it: `hdc`, `hvigorw`.
        program: String,
        /// Its arguments as the journal shows them (secrets redacted).
        argv: Vec<String>,
        /// `program argv…` as one line.
        command: String,
    },
    /// The program ended.
    ProgramExited {
        /// Its name.
        program: String,
        /// Its exit status (None when a signal ended it, or it never started).
        code: Option<i32>,
        /// The signal that ended it.
        signal: Option<i32>,
        /// It ran past its deadline and was stopped.
        timed_out: bool,
        /// Why rein stopped it early or could not start it (its line callback failed, say).
        #[serde(skip_serializing_if = "Option::is_none")]
        stopped: Option<String>,
        /// How long it ran.
        duration_ms: u64,
    },
    /// The policy asks about something.
    ApprovalAsked {
        /// What would happen: a command line, or `write /abs/path`.
        what: String,
        /// Why the policy asks.
        why: String,
        /// Who may answer.
        who: Asked,
    },
    /// Who decided something the built-in policy alone did not: a person's rule, a grant for
    /// this session, the approver (a person, `--yes`, headless), a pack's permissions or the
    /// project's deny rules.
    ApprovalAnswered {
        /// As in [`EventKind::ApprovalAsked`] (for a pack's or the project's refusal, the
        /// command line or path refused).
        what: String,
        /// Whether it may go ahead.
        allowed: bool,
        /// Who decided.
        by: DecidedBy,
        /// A person answered just now (at rein's prompt, an MCP client's question, an
        /// embedder's approver that says it is one).
        person: bool,
    },
    /// A file was written or edited.
    FileWritten {
        /// As callers see it: relative inside the workspace, absolute elsewhere.
        path: String,
        /// Its new size.
        bytes: u64,
    },
    /// A recipe run started.
    RecipeStarted {
        /// The recipe's name.
        recipe: String,
        /// The run's id (its report is `.rein/runs/<run_id>/`).
        run_id: String,
        /// How many steps it has.
        steps: usize,
    },
    /// A step started.
    StepStarted {
        /// The recipe's name.
        recipe: String,
        /// The step's name.
        step: String,
        /// 1-based.
        number: usize,
        /// How many steps the recipe has.
        total: usize,
    },
    /// A step ended (after its retries and verify).
    StepEnded {
        /// The recipe's name.
        recipe: String,
        /// The step's name.
        step: String,
        /// 1-based.
        number: usize,
        /// How many steps the recipe has.
        total: usize,
        /// How it ended.
        status: StepStatus,
        /// How long it ran, retries included.
        duration_ms: u64,
    },
    /// A recipe run ended (its report is written next).
    RecipeEnded {
        /// The recipe's name.
        recipe: String,
        /// The run's id.
        run_id: String,
        /// How it ended.
        status: RunStatus,
        /// How long it ran.
        duration_ms: u64,
    },
    /// A reload went in: a new generation serves.
    ReloadAccepted {
        /// The generation serving now.
        generation: u64,
        /// The changed files now served, relative to the project.
        loaded: Vec<String>,
        /// Tools and recipes that are new.
        added: Vec<String>,
        /// Tools and recipes that are gone.
        removed: Vec<String>,
        /// Tools and recipes that changed.
        updated: Vec<String>,
        /// Changed files held back (their old version serves).
        kept: Vec<KeptFile>,
        /// Why, as `file:line: message`.
        problems: Vec<String>,
    },
    /// A reload changed nothing that serves: every changed file was kept back.
    ReloadRejected {
        /// The generation still serving.
        generation: u64,
        /// The changed files held back.
        kept: Vec<KeptFile>,
        /// Why, as `file:line: message`.
        problems: Vec<String>,
    },
}

/// A changed file whose new text a reload did not take.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeptFile {
    /// Relative to the project.
    pub file: String,
    /// What serves instead.
    pub serving: Serving,
    /// Why: `file:line: message`, or the check that failed.
    pub problem: String,
}

/// What serves instead of a file kept back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Serving {
    /// Its last good version goes on serving.
    PreviousVersion,
    /// It never loaded, so nothing of it is served.
    Nothing,
}

/// How a recipe run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Only while it runs; a saved report never says so.
    Running,
    /// Every step ended well: verified, or done where the step declares no verify.
    Succeeded,
    /// A step failed; the steps after it were skipped.
    Failed,
    /// Cancelled (Ctrl-C, an MCP cancel): the step rolled back, the report written.
    Cancelled,
}

/// How a recipe step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StepStatus {
    /// It ran and its verify passed.
    Verified,
    /// Its verify passed, but project code served the step (a tool the project defines, or the
    /// step is the project's recipe's own, verify included): rein proved nothing.
    Claimed,
    /// It ran to its end without an error, but declares no verify: nothing proved it worked.
    Done,
    /// Its last attempt failed (and was rolled back).
    Failed,
    /// A step before it failed.
    Skipped,
    /// Taken from an earlier run (`--from`).
    Reused,
    /// The run was cancelled while it ran.
    Cancelled,
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RunStatus::Running => "running",
            RunStatus::Succeeded => "succeeded",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
        })
    }
}

impl std::fmt::Display for StepStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StepStatus::Verified => "verified",
            StepStatus::Claimed => "claimed by project code (not proven)",
            StepStatus::Done => "done (no verify)",
            StepStatus::Failed => "failed",
            StepStatus::Skipped => "skipped",
            StepStatus::Reused => "reused",
            StepStatus::Cancelled => "cancelled",
        })
    }
}

impl StepStatus {
    /// Whether the run goes on after it: verified, claimed, done (no verify) or reused.
    pub fn ended_well(self) -> bool {
        matches!(self, StepStatus::Verified | StepStatus::Claimed | StepStatus::Done | StepStatus::Reused)
    }
}

/// The listeners of one call tree and the call's id.
#[derive(Clone, Default)]
pub(crate) struct Listeners {
    pub id: Option<CallId>,
    pub list: Vec<Listener>,
}

impl Listeners {
    pub fn tell(&self, actor: Option<&str>, kind: EventKind) {
        let event = Event { call: self.id, actor: actor.map(str::to_string), kind };
        for listener in &self.list {
            hear(listener, &event);
        }
    }
}

/// Tells `listener` about `event`. A listener that panics is the embedder's bug, but it is
/// called in the middle of rein's work (a file just renamed into place, its journal entry not
/// yet written): its panic is logged and stops there, so the call still ends as it happened
/// and the other listeners still hear the event.
pub(crate) fn hear(listener: &Listener, event: &Event) {
    let heard = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| listener(event)));
    if heard.is_err() {
        tracing::error!(?event, "an event listener panicked; rein went on without it");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_serializes_flat_with_its_kind_and_call() {
        let event = Event {
            call: Some(CallId(7)),
            actor: Some("build".into()),
            kind: EventKind::ProgramExited {
                program: "hvigorw".into(),
                code: Some(0),
                signal: None,
                timed_out: false,
                stopped: None,
                duration_ms: 5,
            },
        };
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(json["event"], "program_exited");
        assert_eq!(json["call"], 7);
        assert_eq!(json["actor"], "build");
        assert_eq!(json["code"], 0);
        assert!(json.get("stopped").is_none());
        let failed = serde_json::to_value(Ended::Failed(Code::Timeout)).unwrap();
        assert_eq!(failed, serde_json::json!({"failed": "TIMEOUT"}));
    }

    #[test]
    fn call_ids_are_never_reused() {
        let a = CallId::next();
        let b = CallId::next();
        assert!(b > a);
    }
}
