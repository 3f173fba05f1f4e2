//! The kernel owns every side effect. Each operation resolves its path, asks the approval
//! policy, and only then touches the disk. Nothing in here knows about Lua.

pub mod activity;
pub mod approval;
pub mod candidates;
pub mod capture;
pub mod change;
pub mod diff;
pub mod edit;
mod edit_file;
pub mod env;
pub mod error;
mod files;
pub mod journal;
pub mod list;
pub mod lock;
pub mod read;
pub mod reads;
pub mod redact;
pub mod restore;
pub mod run;
pub mod scope;
pub mod spawn;
pub mod text;
pub mod toolchain;
pub mod write;

use std::path::Path;

use serde::Serialize;

pub use edit::{Edit, EditReport};
pub use error::{Access, KernelError};
pub use list::{ListOptions, ListOutput};
pub use read::{ReadOptions, ReadOutput};
pub use scope::{PathClass, ResolvedPath, Scope};

/// Edits refuse files above this size: the whole file is held in memory twice.
pub const EDIT_MAX_BYTES: u64 = 512 * 1024 * 1024;

#[derive(Debug, Clone, Copy, Default)]
pub struct EditOptions<'a> {
    pub dry_run: bool,
    pub expected_sha256: Option<&'a str>,
}

#[derive(Debug, Clone, Serialize)]
pub struct EditOutput {
    pub path: String,
    pub replacements: usize,
    pub locations: Vec<error::Location>,
    /// One report per edit, in order (only for multi-edits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edits: Option<Vec<EditReport>>,
    pub sha256_before: String,
    pub sha256_after: String,
    pub diff: String,
    pub dry_run: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct WriteOutput {
    pub path: String,
    pub bytes: usize,
    pub sha256: String,
    pub created: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct TextFile {
    pub path: String,
    pub text: String,
    pub sha256: String,
}

/// What may be spawned, and which looks-secret environment variables a person lets through.
#[derive(Debug, Clone, Default)]
pub struct SpawnSettings {
    pub toolchain: toolchain::Toolchain,
    pub pass_env: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Kernel {
    scope: Scope,
    spawn: SpawnSettings,
    /// Spawns left in the current recipe's budget (None: no budget).
    spawns_left: std::sync::Arc<std::sync::Mutex<Option<u64>>>,
    gate: std::sync::Arc<approval::gate::Gate>,
    journal: std::sync::Arc<journal::Journal>,
    /// Set when changes need an earlier read in this session (MCP connections).
    reads: Option<std::sync::Arc<reads::ReadLedger>>,
}

impl Kernel {
    /// A kernel that can touch files but spawn nothing (see [`Kernel::with_spawn`]).
    pub fn new(workspace: &Path, home: &Path) -> Result<Kernel, KernelError> {
        let gate = std::sync::Arc::new(approval::gate::Gate::headless());
        let scope = Scope::new(workspace, home)?;
        let journal = std::sync::Arc::new(journal::Journal::new(scope.workspace()));
        Ok(Kernel {
            scope,
            spawn: SpawnSettings::default(),
            spawns_left: Default::default(),
            gate,
            journal,
            reads: None,
        })
    }

    /// From now on, existing files may be changed only after a read in this session, and only
    /// if unchanged since (NOT_READ, STALE_FILE).
    pub fn with_read_before_edit(mut self) -> Kernel {
        self.reads = Some(std::sync::Arc::new(reads::ReadLedger::default()));
        self
    }

    pub(crate) fn note_read(&self, real: &Path, sha256: &str) {
        if let Some(reads) = &self.reads {
            reads.note(real, sha256);
        }
    }

    pub(crate) fn check_read(&self, real: &Path, display: &str, current: Option<&str>) -> Result<(), KernelError> {
        match &self.reads {
            Some(reads) => reads.check(real, display, current),
            None => Ok(()),
        }
    }

    /// Limits how many programs may still be spawned (a recipe's budget); None lifts it.
    pub fn set_spawn_budget(&self, spawns: Option<u64>) {
        *self.spawns_left.lock().unwrap_or_else(|e| e.into_inner()) = spawns;
    }

    /// Takes one spawn from the budget, or refuses when it is spent.
    pub(crate) fn take_spawn(&self) -> Result<(), KernelError> {
        let mut left = self.spawns_left.lock().unwrap_or_else(|e| e.into_inner());
        match left.as_mut() {
            None => Ok(()),
            Some(0) => Err(KernelError::SpawnBudget),
            Some(n) => {
                *n -= 1;
                Ok(())
            }
        }
    }

    /// Records nothing in `.rein/journal` (for embedders that keep their own audit trail).
    pub fn without_journal(mut self) -> Kernel {
        self.journal = std::sync::Arc::new(journal::Journal::disabled());
        self
    }

    pub fn journal(&self) -> &journal::Journal {
        &self.journal
    }

    /// Runs one operation and appends what happened to the journal, refusals included.
    pub(crate) fn journaled<T>(
        &self,
        action: &'static str,
        target: &str,
        op: impl FnOnce(&mut journal::Entry) -> Result<T, KernelError>,
    ) -> Result<T, KernelError> {
        let mut entry = journal::Entry { action: action.to_string(), target: target.to_string(), ..Default::default() };
        let result = op(&mut entry);
        self.record_outcome(entry, &result);
        result
    }

    /// Completes a journal entry with how the operation ended, and appends it.
    pub(crate) fn record_outcome<T>(&self, mut entry: journal::Entry, result: &Result<T, KernelError>) {
        entry.decision = match result {
            Err(KernelError::ApprovalRequired { .. } | KernelError::SpawnApprovalRequired { .. }) => "refused",
            Err(KernelError::ApprovalDenied { .. } | KernelError::ProgramNotAllowed { .. }) => "refused",
            _ if entry.decided_by.is_some() => "allowed",
            _ => "not reached",
        }
        .to_string();
        entry.result = match result {
            Ok(_) => "ok".to_string(),
            Err(err) => err.code().as_str().to_string(),
        };
        self.journal.record(entry);
    }

    /// Keeps the current content of `real` (whose sha256 is `sha`) for undo.
    pub(crate) fn keep_preimage(&self, real: &Path, display: &str, sha: &str) -> Result<Option<String>, KernelError> {
        self.journal.keep_preimage(real, sha).map_err(|e| KernelError::io("keep the old content of", display, e))
    }

    /// Who answers when the policy asks, and the rules people made.
    pub fn with_gate(mut self, gate: approval::gate::Gate) -> Kernel {
        self.gate = std::sync::Arc::new(gate);
        self
    }

    pub(crate) fn gate(&self) -> &approval::gate::Gate {
        &self.gate
    }

    /// Asks the policy (and, when it asks, the rules and the approver) about a file access.
    fn check_file(&self, resolved: &ResolvedPath, access: Access) -> Result<approval::gate::DecidedBy, KernelError> {
        use approval::approver::ApprovalRequest;
        use approval::rules::{Rule, Subject};
        let display = resolved.display(&self.scope);
        let verb = match access {
            Access::Read => "read",
            Access::Write => "write",
        };
        let rule = Rule {
            program: None,
            args: Vec::new(),
            path: Some(resolved.real.display().to_string()),
            access: Some(access),
        };
        let request = ApprovalRequest {
            what: format!("{verb} {}", resolved.real.display()),
            why: format!("it is {}", resolved.class.describe()),
            human_only: false,
            rule: Some(rule),
        };
        let subject = Subject::File { path: &resolved.real, access };
        let decision = approval::decide_file(access, resolved.class);
        self.gate.settle(decision, &subject, request).map_err(|r| r.into_file_error(display, access, resolved.class))
    }

    pub fn with_spawn(mut self, settings: SpawnSettings) -> Kernel {
        self.spawn = settings;
        self
    }

    pub fn toolchain(&self) -> &toolchain::Toolchain {
        &self.spawn.toolchain
    }

    pub fn scope(&self) -> &Scope {
        &self.scope
    }
}
