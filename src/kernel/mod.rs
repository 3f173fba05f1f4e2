//! The kernel owns every side effect. Each operation takes the [`Call`] it serves, resolves
//! its path, asks the approval gate, and only then touches the disk or spawns a program; what
//! happened goes to the journal. Nothing in here knows about Lua, and nothing names a
//! toolchain: what the kernel needs to know about programs it asks the toolchain profile held
//! in [`SpawnSettings`] (`process::toolchain`; `crate::harmony` is HarmonyOS's).
//!
//! - `error`: every refusal with its code; `reported`: the plain data results carry
//! - `call`: the per-call context (who acts, budgets, capture, listeners, read ledger); what
//!   it holds is defined below it (`origin`, `entry`, `events`, `policy`), as the operations
//!   that take a call (files, journal, gate) are above it
//! - `origin`: where the code acting in a call comes from
//! - `entry`: one line of the journal, which a call captures for a recipe step
//! - `events`: what happens, typed, for the call's listeners
//! - `scope`: where a path really points, and its class; the protected names
//! - `secrets`: what must never be shown
//! - `digest`: the SHA-256 rein names content by
//! - `files/`: read, write, list, lock, read ledger
//! - `edit/`: exact replacements, candidates, the change, its diff, text shape
//! - `process/`: running programs: the toolchain profile, spawn, capture, environment, grants,
//!   confinement, redaction
//! - `policy/`: the engine's words, taking no call: command shapes, the file table, rules,
//!   pack permissions, annotations, controls, approvers, who decided
//! - `gate/`: the policy applied to a call (bounds, then the decision, asking an approver),
//!   and the rules a person made as approvals.toml stores them
//! - `journal/`: the audit log, pre-images, restore
//! - `platform/`: every call that differs between Linux, macOS and Windows

pub mod call;
pub mod digest;
pub mod edit;
pub mod entry;
pub mod error;
pub mod events;
pub mod files;
pub mod gate;
pub mod journal;
pub mod origin;
pub mod platform;
pub mod policy;
pub mod process;
pub mod reported;
pub mod scope;
pub mod secrets;

use std::path::Path;
use std::sync::Arc;

pub use call::{Actor, Call, Origin, PackGrant};
pub use edit::{Edit, EditOptions, EditOutput};
pub use error::KernelError;
pub use events::{CallId, Event, EventKind, Listener};
pub use files::{ListOptions, ListOutput, ReadLedger, ReadOptions, ReadOutput, TextFile, WriteOutput};
pub use journal::restore::FileChange;
// What each operation is, as it names itself to `Kernel::journaled`: the kernel's vocabulary,
// so the operations (files, edit, process) need not reach into the journal, which itself
// writes through `files`.
pub use entry::Action;
pub use process::{RunOptions, SpawnSettings};
pub use scope::{Access, PathClass, ResolvedPath, Scope};

use crate::visible::shown_path;
use entry::Entry;
use gate::Gate;
use journal::Journal;

#[derive(Debug, Clone)]
pub struct Kernel {
    pub(crate) scope: Scope,
    /// The workspace, held open: every file operation in it starts here.
    pub(crate) root: Arc<files::dir::Dir>,
    spawn: SpawnSettings,
    gate: Arc<Gate>,
    journal: Arc<Journal>,
}

impl Kernel {
    /// A kernel that can touch files but spawn nothing (see [`Kernel::with_spawn`]), with
    /// nobody to ask: every `Ask` is refused (see [`Kernel::with_gate`]).
    pub fn new(workspace: &Path, home: &Path) -> Result<Kernel, KernelError> {
        let scope = Scope::new(workspace, home)?;
        let root = files::dir::Dir::open_path(scope.workspace())
            .map_err(|e| KernelError::io("open the workspace", shown_path(scope.workspace()), e))?;
        let scope = hold_root(scope, &root)?;
        let root = Arc::new(root);
        let journal = Arc::new(Journal::new(root.clone()));
        Ok(Kernel { scope, root, spawn: SpawnSettings::default(), gate: Arc::new(Gate::headless()), journal })
    }

    /// The same kernel, its file operations following `strategy` (e.g.
    /// [`platform::Strategy::portable`], so tests on Linux exercise what Windows and macOS do).
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    pub fn with_strategy(mut self, strategy: std::sync::Arc<platform::Strategy>) -> Result<Kernel, KernelError> {
        let root = files::dir::Dir::open_with(self.scope.workspace(), strategy)
            .map_err(|e| KernelError::io("open the workspace", shown_path(self.scope.workspace()), e))?;
        self.scope = hold_root(self.scope, &root)?;
        self.root = Arc::new(root);
        self.journal = Arc::new(Journal::new(self.root.clone()));
        Ok(self)
    }

    /// Who answers when the policy asks, the rules people made, and the project's deny rules.
    pub fn with_gate(mut self, gate: Gate) -> Kernel {
        self.gate = Arc::new(gate);
        self
    }

    pub fn with_spawn(mut self, settings: SpawnSettings) -> Kernel {
        // The ACL entries a rein that crashed left are removed before this one spawns.
        #[cfg(windows)]
        process::windows_acl::clean_at_start(self.scope.home());
        self.spawn = settings;
        self
    }

    /// How the journal names the approver a call without one of its own asks.
    #[cfg(feature = "mcp")]
    pub(crate) fn approver_name(&self) -> &'static str {
        self.gate.approver_name()
    }

    /// The OS confinement spawned programs run under, as `rein doctor` shows it: the Landlock
    /// level, and who may send datagrams where the system-call filter runs (docs/src/confinement.md).
    pub fn confinement(&self) -> String {
        let level = process::confine::level().describe(self.spawn.confine);
        let udp = self.spawn.profile.datagram_programs();
        let names: Vec<&str> = udp.iter().map(String::as_str).collect();
        match process::confine::datagrams(self.spawn.confine, &names) {
            Some(datagrams) => format!("{level}; {datagrams}"),
            None => level,
        }
    }

    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    pub fn journal(&self) -> &Journal {
        &self.journal
    }

    /// Runs one operation for `call` and journals what happened, refusals included.
    pub(crate) fn journaled<T>(
        &self,
        call: &Call,
        action: journal::Action,
        target: &str,
        op: impl FnOnce(&mut Entry) -> Result<T, KernelError>,
    ) -> Result<T, KernelError> {
        let mut entry = Entry::new(action, target);
        let result = op(&mut entry);
        self.record(call, entry, &result);
        result
    }

    /// Completes `entry` with how the operation ended and appends it (to the journal, and to
    /// the call's capture when a recipe step is recording).
    fn record<T>(&self, call: &Call, mut entry: Entry, result: &Result<T, KernelError>) {
        entry.finish(result);
        entry.target = call.secrets().scrub(&entry.target);
        entry.reason = entry.reason.map(|reason| call.secrets().scrub(&reason));
        call.capture(&entry);
        self.journal.record(entry);
    }

    /// Resolves `path` and asks the gate about `access`, noting in `entry` who decided.
    pub(crate) fn authorize(
        &self,
        call: &Call,
        path: &str,
        access: Access,
        entry: &mut Entry,
    ) -> Result<(ResolvedPath, String), KernelError> {
        self.authorize_checked(call, path, access, entry, &|_, _| Ok(()))
    }

    /// [`Kernel::authorize`], running `before_asking` (the refusals that need no person: NOT_READ,
    /// STALE_FILE, an edit that cannot apply) before the policy asks anyone about a file it may
    /// read unasked (rein.toml, a `.git/` folder): a person is asked only about what would
    /// happen. The caller checks again once allowed; this only orders.
    pub(crate) fn authorize_checked(
        &self,
        call: &Call,
        path: &str,
        access: Access,
        entry: &mut Entry,
        before_asking: &dyn Fn(&ResolvedPath, &str) -> Result<(), KernelError>,
    ) -> Result<(ResolvedPath, String), KernelError> {
        let resolved = self.scope.resolve(path)?;
        let display = resolved.display(&self.scope);
        entry.target = display.clone();
        if access == Access::Write {
            // A file (or a link) there now is one a write would replace; a folder is not.
            let exists = std::fs::symlink_metadata(&resolved.real).is_ok_and(|m| !m.is_dir());
            self.held_to_annotation(call, exists, &display, entry)?;
        }
        let subject = policy::Subject::File { path: &resolved.real, access };
        let decision = policy::decide_file(access, resolved.class);
        if let Err(refusal) = self.gate.bounds(call, &subject, &display) {
            entry.decided_by = Some(refusal.by.clone());
            return Err(refusal.into_file_error(display, access, resolved.class));
        }
        // Only where reading the file needs no yes either: the checks read it, and what they
        // say (an edit's nearest candidates, whether it exists) must not tell what a read
        // outside the workspace would have had to be allowed first.
        let asks = !matches!(decision, policy::Decision::Allow | policy::Decision::Deny(_));
        if asks && matches!(policy::decide_file(Access::Read, resolved.class), policy::Decision::Allow) {
            // Only what no yes could change is said first; anything else (a missing file, a
            // folder where a file was named) comes after the question, as it did.
            if let Err(
                refused @ (KernelError::NotRead { .. }
                | KernelError::StaleFile { .. }
                | KernelError::OldStringNotFound { .. }
                | KernelError::OldStringNotUnique { .. }),
            ) = before_asking(&resolved, &display)
            {
                return Err(refused);
            }
        }
        let request = policy::ApprovalRequest::file(&resolved, access);
        let decided = self.gate.settle(call, decision, &subject, request);
        match decided {
            Ok(by) => {
                entry.decided_by = Some(by);
                Ok((resolved, display))
            }
            Err(refusal) => {
                entry.decided_by = Some(refusal.by.clone());
                Err(refusal.into_file_error(display, access, resolved.class))
            }
        }
    }
}

impl Kernel {
    /// Refuses a write the call's annotations forbid (`policy::annotated`): any write for a
    /// read-only tool, one over an existing file (`exists`) for a tool that destroys nothing.
    pub(crate) fn held_to_annotation(
        &self,
        call: &Call,
        exists: bool,
        display: &str,
        entry: &mut Entry,
    ) -> Result<(), KernelError> {
        let Some(bound) = call.bound() else { return Ok(()) };
        if bound.restriction.allows_write(exists) {
            return Ok(());
        }
        entry.decided_by = Some(policy::DecidedBy::Annotation(bound.tool.clone()));
        let verb = if exists { "overwrite" } else { "write" };
        Err(KernelError::Annotated {
            tool: bound.tool.clone(),
            restriction: bound.restriction,
            what: format!("{verb} {display}"),
        })
    }
}

/// `scope` holding the workspace folder `root` opened (Unix: Windows resolves every part of
/// each path anyway).
fn hold_root(scope: Scope, root: &files::dir::Dir) -> Result<Scope, KernelError> {
    #[cfg(not(windows))]
    {
        let identity =
            root.identity().map_err(|e| KernelError::io("inspect the workspace", shown_path(scope.workspace()), e))?;
        let named = match files::dir::Dir::open_following_no_link(scope.workspace()) {
            Ok(dir) => dir.identity(),
            // A folder above the workspace that may be passed through but not opened (mode 711)
            // stops the walk where Linux's one-call open (openat2) is missing: then two looks.
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => scope::named_by_looking(scope.workspace()),
            Err(e) => Err(e),
        };
        Ok(scope.holding(identity, named)?)
    }
    #[cfg(windows)]
    {
        let _ = root;
        Ok(scope)
    }
}
