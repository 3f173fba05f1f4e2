//! The kernel owns every side effect. Each operation resolves its path, asks the approval
//! policy, and only then touches the disk. Nothing in here knows about Lua.

pub mod approval;
pub mod candidates;
pub mod capture;
pub mod change;
pub mod diff;
pub mod edit;
pub mod env;
pub mod error;
pub mod list;
pub mod lock;
pub mod read;
pub mod redact;
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
    gate: std::sync::Arc<approval::gate::Gate>,
}

impl Kernel {
    /// A kernel that can touch files but spawn nothing (see [`Kernel::with_spawn`]).
    pub fn new(workspace: &Path, home: &Path) -> Result<Kernel, KernelError> {
        let gate = std::sync::Arc::new(approval::gate::Gate::headless());
        Ok(Kernel { scope: Scope::new(workspace, home)?, spawn: SpawnSettings::default(), gate })
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
    fn check_file(&self, resolved: &ResolvedPath, access: Access) -> Result<(), KernelError> {
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
        self.gate
            .settle(decision, &subject, request)
            .map(drop)
            .map_err(|r| r.into_file_error(display, access, resolved.class))
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

    /// Resolves `path` and checks the policy allows `access` to it.
    pub fn authorize(&self, path: &str, access: Access) -> Result<(ResolvedPath, String), KernelError> {
        let resolved = self.scope.resolve(path)?;
        self.check_file(&resolved, access)?;
        let display = resolved.display(&self.scope);
        Ok((resolved, display))
    }

    pub fn read(&self, path: &str, opts: ReadOptions) -> Result<ReadOutput, KernelError> {
        let (resolved, display) = self.authorize(path, Access::Read)?;
        refuse_directory_syntax(path, &display)?;
        read::read_numbered(&resolved.real, &display, opts)
    }

    pub fn read_text(&self, path: &str) -> Result<TextFile, KernelError> {
        let (resolved, display) = self.authorize(path, Access::Read)?;
        let (text, sha256) = read::read_text(&resolved.real, &display)?;
        Ok(TextFile { path: display, text, sha256 })
    }

    pub fn exists(&self, path: &str) -> Result<bool, KernelError> {
        let (resolved, _) = self.authorize(path, Access::Read)?;
        Ok(std::fs::symlink_metadata(&resolved.real).is_ok())
    }

    pub fn list(&self, path: &str, opts: ListOptions) -> Result<ListOutput, KernelError> {
        let (resolved, display) = self.authorize(path, Access::Read)?;
        list::list(&self.scope, &resolved.real, &display, opts)
    }

    pub fn write(&self, path: &str, content: &[u8], expected_sha256: Option<&str>) -> Result<WriteOutput, KernelError> {
        let (resolved, display) = self.authorize(path, Access::Write)?;
        refuse_directory_syntax(path, &display)?;
        let parent = resolved.real.parent().unwrap_or(Path::new("/"));
        if expected_sha256.is_some() && !parent.is_dir() {
            // The file cannot exist, so it cannot have the expected content: refuse before
            // creating any directory.
            check_fresh(&display, expected_sha256.unwrap_or_default(), None)?;
        }
        write::create_parents(&resolved.real, &display)?;
        let _lock = lock::lock_dir(parent)?;
        if let Some(expected) = expected_sha256 {
            let actual = match std::fs::read(&resolved.real) {
                Ok(bytes) => Some(text::sha256_hex(&bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(KernelError::io("read", display, e)),
            };
            check_fresh(&display, expected, actual.as_deref())?;
        }
        let created = write::write_atomic(&resolved.real, &display, content)?;
        Ok(WriteOutput { path: display, bytes: content.len(), sha256: text::sha256_hex(content), created })
    }

    /// Applies `edits` in order, all or nothing. Refusals come in the order of DESIGN.md and
    /// leave the file byte-identical.
    pub fn edit(&self, path: &str, edit: Edit, opts: EditOptions) -> Result<EditOutput, KernelError> {
        self.apply_edits(path, std::slice::from_ref(&edit), opts, false)
    }

    /// Like [`Kernel::edit`] for several edits, applied in order; refusals always name the
    /// edit (`edit_index`), even when there is only one.
    pub fn multi_edit(&self, path: &str, edits: &[Edit], opts: EditOptions) -> Result<EditOutput, KernelError> {
        match self.apply_edits(path, edits, opts, true) {
            Err(err) if edits.len() == 1 => Err(err.for_edit(0)),
            result => result,
        }
    }

    fn apply_edits(
        &self,
        path: &str,
        edits: &[Edit],
        opts: EditOptions,
        multi: bool,
    ) -> Result<EditOutput, KernelError> {
        edit::check_edits(edits)?;
        let resolved = self.scope.resolve(path)?;
        self.check_file(&resolved, Access::Write)?;
        let display = resolved.display(&self.scope);
        refuse_directory_syntax(path, &display)?;
        let parent = resolved.real.parent().unwrap_or(Path::new("/"));
        if !parent.is_dir() {
            return Err(KernelError::FileNotFound { path: display });
        }
        let _lock = if opts.dry_run { None } else { Some(lock::lock_dir(parent)?) };
        let before = read_for_edit(&resolved.real, &display)?;
        let applied = edit::apply_edits(&display, &before, edits)?;
        let change = change::Change::of(&before, &applied.result);
        let mut hashes = None;
        // Hashing runs beside the write, which mostly waits on the disk; the stale check
        // happens once the new bytes are durable but before they become visible.
        std::thread::scope(|s| {
            let hashing = s.spawn(|| change.hashes(&before));
            let verify = || {
                let (sha_before, sha_after) = hashing.join().expect("hashing does not panic");
                if let Some(expected) = opts.expected_sha256 {
                    check_fresh(&display, expected, Some(&sha_before))?;
                }
                hashes = Some((sha_before, sha_after));
                Ok(())
            };
            if opts.dry_run {
                verify()
            } else {
                write::write_atomic_checked(&resolved.real, &display, applied.result.chunks(), verify).map(drop)
            }
        })?;
        let (sha256_before, sha256_after) = hashes.expect("set by verify");
        let diff = change.diff(&display, &before);
        let replacements = applied.reports.iter().map(|r| r.replacements).sum();
        let locations = applied.reports.iter().flat_map(|r| r.locations.iter().copied()).take(20).collect();
        let reports = applied.reports;
        Ok(EditOutput {
            path: display,
            replacements,
            locations,
            edits: multi.then_some(reports),
            sha256_before,
            sha256_after,
            diff,
            dry_run: opts.dry_run,
        })
    }
}

fn read_for_edit(real: &Path, display: &str) -> Result<Vec<u8>, KernelError> {
    let hint = "Edit it with a program made for files this size, or split the file.";
    read::read_whole_text(real, display, EDIT_MAX_BYTES, hint)
}

fn check_fresh(display: &str, expected: &str, actual: Option<&str>) -> Result<(), KernelError> {
    if actual.is_some_and(|a| expected.eq_ignore_ascii_case(a)) {
        return Ok(());
    }
    Err(KernelError::StaleFile {
        path: display.to_string(),
        expected: expected.to_string(),
        actual: actual.map(str::to_string),
    })
}

/// `dir/` names a directory; resolution would drop the slash and act on a file named `dir`.
fn refuse_directory_syntax(requested: &str, display: &str) -> Result<(), KernelError> {
    if requested.ends_with('/') || requested.ends_with("/.") || requested.ends_with("/..") {
        return Err(KernelError::NotAFile { path: display.to_string(), kind: "directory path" });
    }
    Ok(())
}
