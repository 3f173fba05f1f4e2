//! One line of the journal: what was attempted, who decided, and how it ended.

use serde::{Deserialize, Serialize};

use crate::error::Code;
use crate::kernel::policy::DecidedBy;
pub use crate::kernel::reported::Planted;
use crate::kernel::KernelError;

/// What a journaled operation did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Read a file.
    Read,
    /// Asked whether a path exists.
    Exists,
    /// Listed a folder.
    List,
    /// Wrote a file.
    Write,
    /// Made a folder.
    Mkdir,
    /// Edited a file.
    Edit,
    /// Ran a program.
    Spawn,
    /// Put a file back as it was (`rein undo`, a step's rollback).
    Restore,
}

impl Action {
    /// Its name in the journal: `"read"`, `"spawn"` …
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Read => "read",
            Action::Exists => "exists",
            Action::List => "list",
            Action::Write => "write",
            Action::Mkdir => "mkdir",
            Action::Edit => "edit",
            Action::Spawn => "spawn",
            Action::Restore => "restore",
        }
    }

    /// Whether the action changes a file (and so may be undone).
    pub fn changes_a_file(self) -> bool {
        matches!(self, Action::Write | Action::Edit)
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the gate said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Verdict {
    #[serde(rename = "allowed")]
    Allowed,
    #[serde(rename = "refused")]
    Refused,
    /// The operation failed before the gate was asked (a malformed path, say).
    #[serde(rename = "not reached")]
    NotReached,
}

/// How the operation ended: `"ok"`, or the error code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It happened.
    Ok,
    /// It was refused or failed, with this code.
    Failed(Code),
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Ok => f.write_str("ok"),
            Outcome::Failed(code) => f.write_str(code.as_str()),
        }
    }
}

impl Serialize for Outcome {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Outcome::Ok => serializer.serialize_str("ok"),
            Outcome::Failed(code) => code.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for Outcome {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Outcome, D::Error> {
        let text = String::deserialize(deserializer)?;
        Ok(if text == "ok" { Outcome::Ok } else { Outcome::Failed(Code::parse(&text)) })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub time: String,
    pub action: Action,
    /// The path (as shown to callers) or the command line (secrets redacted).
    pub target: String,
    pub decision: Verdict,
    /// Who allowed it, or who refused it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<DecidedBy>,
    pub result: Outcome,
    /// Why it was refused, for a person reading the journal.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256_before: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256_after: Option<String>,
    /// Where the old content is kept, relative to the workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preimage: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended a spawned program, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// What a spawned program ran under: `landlock-abi<N>` (Linux), `seatbelt` (macOS), or
    /// `none: <why>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confinement: Option<String>,
    /// How many processes a spawned program left running, killed when it ended or was stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stragglers_killed: Option<usize>,
    /// The names of the first of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stragglers: Vec<String>,
    /// The git repositories a spawned program made where it may write, which rein removed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub planted: Vec<Planted>,
}

impl Entry {
    pub fn new(action: Action, target: &str) -> Entry {
        Entry {
            time: String::new(),
            action,
            target: target.to_string(),
            decision: Verdict::NotReached,
            decided_by: None,
            result: Outcome::Ok,
            reason: None,
            sha256_before: None,
            sha256_after: None,
            preimage: None,
            exit_code: None,
            signal: None,
            duration_ms: None,
            confinement: None,
            stragglers_killed: None,
            stragglers: Vec::new(),
            planted: Vec::new(),
        }
    }

    /// Records how the operation ended. A refusal is one the gate (or a budget) made; anything
    /// else that failed after the gate was asked still counts as allowed.
    pub fn finish<T>(&mut self, result: &Result<T, KernelError>) {
        self.decision = match result {
            Err(err) if err.is_refusal() => Verdict::Refused,
            _ if self.decided_by.is_some() => Verdict::Allowed,
            _ => Verdict::NotReached,
        };
        if let Err(err) = result {
            self.result = Outcome::Failed(err.code());
            if err.is_refusal() {
                self.reason = Some(err.to_string());
            }
        }
    }

    /// Whether the gate let this through (and not only the policy's default).
    pub fn was_approved(&self) -> bool {
        self.decision == Verdict::Allowed && self.decided_by.as_ref().is_some_and(|by| *by != DecidedBy::Policy)
    }
}
