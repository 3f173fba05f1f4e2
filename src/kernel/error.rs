//! Everything a kernel operation can refuse or fail with. Each variant maps to one stable code
//! and its message tells the caller what to do next.

use serde_json::{json, Value};

use crate::error::{Code, Failure};
use crate::kernel::reported::{Candidate, Location, Planted, SpawnOutput};
use crate::kernel::scope::{Access, PathClass, ScopeError};

#[derive(Debug, thiserror::Error)]
pub enum KernelError {
    #[error("{message}")]
    InvalidArgs { message: String },

    #[error("{} {path} needs a person's approval: it is {}. {}{}", access_verb(*access), class.describe(), approval_hint(*class), grant_hint(grant.as_deref()))]
    ApprovalRequired { path: String, access: Access, class: PathClass, grant: Option<String> },

    #[error("{path} does not exist. Check the path (relative paths start at the workspace root), or create the file with write_file.")]
    FileNotFound { path: String },

    #[error(
        "{path} is a {kind}, not a regular file. Give the path of a file (list_dir shows what a directory holds)."
    )]
    NotAFile { path: String, kind: &'static str },

    #[error("{path} looks binary ({reason}); rein only reads and edits UTF-8 text.")]
    BinaryFile { path: String, reason: String },

    #[error("{path} is {size} bytes, over the {limit}-byte limit for this operation. {hint}")]
    TooLarge { path: String, size: u64, limit: u64, hint: &'static str },

    #[error("old_string is empty{}. Give the exact text to replace; to create or overwrite a whole file use write_file.", edit_suffix(*edit_index))]
    EmptyOldString { edit_index: Option<usize> },

    #[error("old_string and new_string are identical{}, so the edit would change nothing. Give the new text in new_string.", edit_suffix(*edit_index))]
    NoChange { edit_index: Option<usize> },

    #[error("old_string was not found in {path}{}. Copy the exact text from read_file output (without the line-number prefix){}.", edit_suffix(*edit_index), candidates_hint(candidates))]
    OldStringNotFound { path: String, edit_index: Option<usize>, candidates: Vec<Candidate> },

    #[error("old_string occurs {count} times in {path}{}. Add surrounding lines to old_string so it matches exactly once, or set replace_all to true.", edit_suffix(*edit_index))]
    OldStringNotUnique { path: String, edit_index: Option<usize>, count: usize, locations: Vec<Location> },

    #[error("{path} has not been read in this session. Call read_file on it first, then edit what you read.")]
    NotRead { path: String },

    #[error("{path} changed since it was read (expected sha256 {expected}, found {}). Read it again and redo the change against the current content.", actual.as_deref().unwrap_or("no file"))]
    StaleFile { path: String, expected: String, actual: Option<String> },

    #[error("another program opened {path} for writing while rein was editing it; nothing was changed. Read it again and redo the change once that program is done with it.")]
    WrittenDuringEdit { path: String },

    #[error("the saved copy of {path} ({preimage}) no longer holds its old content (sha256 {expected}, found {actual}): something wrote to it in place since; nothing was restored. Put {path} back by hand (e.g. from version control)")]
    PreimageChanged { path: String, preimage: String, expected: String, actual: String },

    #[error("{command} did not run: what a yes lets it write outside the workspace changed after the question was shown (shown: {}; now: {}), so the yes approves nothing. Ask again if the new place is meant.", shown_list(shown), shown_list(now))]
    ChangedSinceShown { command: String, shown: Vec<String>, now: Vec<String> },

    #[error("{command} needs a person's approval ({why}).{}", grant_hint(grant.as_deref()))]
    SpawnApprovalRequired {
        command: String,
        why: String,
        grant: Option<String>,
        /// Only a person answers it (a kept start): `--yes` does not.
        person_only: bool,
    },

    #[error("{command} is refused: {reason}.")]
    ApprovalDenied { command: String, reason: String },

    #[error("{program}: {argument} holds a control character ({shown}), which no {program} command needs and which a person's screen would act on instead of showing. Give it without control characters")]
    ControlInArgument { program: String, argument: String, position: usize, shown: String },

    #[error("{program} is not a program rein may run. Tools may run {known}, and programs a person lists under [programs] in home config.toml.")]
    ProgramNotAllowed {
        program: String,
        /// The programs the toolchain profile runs, as people read a list of them.
        known: String,
    },

    #[error("{command} may not be kept running after the call that starts it: only what the toolchain profile names may (an emulator's start, with a person's yes); run it as a program of the call instead")]
    NotKept { command: String },

    #[error("{command} holds a value this call keeps secret, so a person would not see what stays running: a kept program's command line is shown whole; pass that value as an argument that is not secret")]
    KeptSecret { command: String },

    #[error("no kept program has the id {id}; `rein ps` lists them")]
    KeptNotFound { id: String },

    #[error("{command} cannot be kept running here: {why}")]
    KeepImpossible { command: String, why: String },

    #[error("{program} cannot run confined ({why}) and home config.toml says [spawn] confine = \"require\". Run rein on a Linux kernel with Landlock (ABI 3 or newer, Linux 6.2+), or set confine = \"auto\" to run programs unconfined.")]
    Unconfinable { program: String, why: String },

    #[error("{program} was not found: {fix}.")]
    ToolchainNotFound { program: String, tried: Vec<String>, fix: String },

    #[error("{command} made {} where it may write: a git repository, whose hooks and config (core.fsmonitor) git would run unconfined. rein stopped it and {}. A build never needs one: find what made it in {scripts} or its dependencies, and do not trust this build's output.", planted_paths(planted), planted_fate(planted))]
    ProtectedCreated {
        command: String,
        /// Where a project's own code runs in a build, as its toolchain profile names it.
        scripts: &'static str,
        planted: Vec<Planted>,
        /// What the program printed, when it ran to its end (a stopped one has none).
        output: Option<Box<SpawnOutput>>,
    },

    #[error("{command} did not finish within {timeout_ms} ms and was stopped with its child processes. Pass a larger timeout_ms (at most {cap_ms}) or find out why it hangs (the output so far is in details).")]
    Timeout { command: String, timeout_ms: u64, cap_ms: u64, output: Box<SpawnOutput> },

    /// A tool's own annotation refused what its code tried (`policy::annotated`).
    #[error("{tool} declares {} but tried to {what}; the kernel holds a tool to what it declares (clients run such a tool without asking anyone). If the tool changes things, declare {} in its annotations (a client will then ask before it runs); else drop this from its code", restriction.annotation(), fix_of(*restriction))]
    Annotated { tool: String, restriction: crate::kernel::policy::Restriction, what: String },

    #[error(
        "the recipe's budget of programs to run is spent; raise budget.spawns or make the steps run fewer programs"
    )]
    SpawnBudget,

    /// The caller stopped the program (its line callback failed or the call was cancelled).
    #[error("{command} was stopped: {reason}")]
    Stopped { command: String, reason: String },

    /// A refusal or failure of a toolchain profile's own (`process::toolchain`), typed there.
    #[error("{0}")]
    Toolchain(Box<dyn ToolchainFailure>),

    #[error("cannot {op} {path}: {source}")]
    Io {
        op: &'static str,
        path: String,
        #[source]
        source: std::io::Error,
    },
}

fn planted_paths(planted: &[Planted]) -> String {
    planted.iter().map(|p| p.path.as_str()).collect::<Vec<_>>().join(", ")
}

fn planted_fate(planted: &[Planted]) -> String {
    match planted.iter().filter(|p| !p.removed && p.kind != "gone").map(|p| p.path.as_str()).collect::<Vec<_>>() {
        failed if failed.is_empty() => "removed what it made".to_string(),
        failed => format!("could not remove {}: remove them yourself before running git there", failed.join(", ")),
    }
}

fn access_verb(access: Access) -> &'static str {
    match access {
        Access::Read => "reading",
        Access::Write => "writing",
    }
}

fn approval_hint(class: PathClass) -> &'static str {
    match class {
        PathClass::Protected => {
            "rein keeps .git/ folders, .rein/ and its transit folder .rein-received/ for git and itself; change them with git or rein's own commands."
        }
        PathClass::Policy => {
            "rein.toml and rein.lock are the project's policy: a person changes them (`rein pack`, or by hand and then `rein approvals policy` at a terminal)."
        }
        PathClass::Home => "rein's home holds its permissions; only a person at a terminal may change it.",
        _ => "Work inside the workspace, or start rein with --workspace set to the project that holds this path.",
    }
}

fn grant_hint(grant: Option<&str>) -> String {
    match grant {
        Some(grant) => format!(" Nobody could be asked here: a person can allow it with `{grant}`."),
        None => " Only a person can allow it, answering rein's question (at its terminal prompt, or for workspace files through the MCP client); not --yes, not a rule.".to_string(),
    }
}

fn edit_suffix(edit_index: Option<usize>) -> String {
    edit_index.map(|i| format!(" (edit {i})")).unwrap_or_default()
}

fn candidates_hint(candidates: &[Candidate]) -> String {
    match candidates.first() {
        Some(c) => format!("; the closest text starts at line {} ({})", c.line, c.reason),
        None => String::new(),
    }
}

/// What a toolchain profile's own error gives the kernel: its stable code and its details.
pub trait ToolchainFailure: std::error::Error + Send + Sync + 'static {
    fn code(&self) -> Code;
    fn details(&self) -> Value;
    /// The error itself, for its room to look at again.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// What a tool must declare instead to do what it tried.
fn fix_of(restriction: crate::kernel::policy::Restriction) -> &'static str {
    match restriction {
        crate::kernel::policy::Restriction::ReadOnly => "read_only = false",
        crate::kernel::policy::Restriction::NotDestructive => "destructive = true",
    }
}

impl KernelError {
    /// The toolchain profile's own error of type `T` this is, if it is one.
    pub fn toolchain_failure<T: ToolchainFailure>(&self) -> Option<&T> {
        match self {
            KernelError::Toolchain(failure) => failure.as_any().downcast_ref::<T>(),
            _ => None,
        }
    }

    pub fn io(op: &'static str, path: impl Into<String>, source: std::io::Error) -> KernelError {
        KernelError::Io { op, path: path.into(), source }
    }

    pub fn invalid(message: impl Into<String>) -> KernelError {
        KernelError::InvalidArgs { message: message.into() }
    }

    /// Whether the gate refused (rather than the operation failing once allowed).
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            KernelError::ApprovalRequired { .. }
                | KernelError::SpawnApprovalRequired { .. }
                | KernelError::ApprovalDenied { .. }
                | KernelError::ProgramNotAllowed { .. }
                | KernelError::Unconfinable { .. }
                | KernelError::NotKept { .. }
                | KernelError::KeptSecret { .. }
                | KernelError::Annotated { .. }
        )
    }

    pub fn code(&self) -> Code {
        match self {
            KernelError::InvalidArgs { .. } | KernelError::ControlInArgument { .. } => Code::InvalidArgs,
            KernelError::ApprovalRequired { .. } => Code::ApprovalRequired,
            KernelError::FileNotFound { .. } => Code::FileNotFound,
            KernelError::NotAFile { .. } => Code::NotAFile,
            KernelError::BinaryFile { .. } => Code::BinaryFile,
            KernelError::TooLarge { .. } => Code::TooLarge,
            KernelError::EmptyOldString { .. } => Code::EmptyOldString,
            KernelError::NoChange { .. } => Code::NoChange,
            KernelError::OldStringNotFound { .. } => Code::OldStringNotFound,
            KernelError::OldStringNotUnique { .. } => Code::OldStringNotUnique,
            KernelError::StaleFile { .. }
            | KernelError::WrittenDuringEdit { .. }
            | KernelError::ChangedSinceShown { .. }
            | KernelError::PreimageChanged { .. } => Code::StaleFile,
            KernelError::NotRead { .. } => Code::NotRead,
            KernelError::SpawnApprovalRequired { .. } => Code::ApprovalRequired,
            KernelError::ApprovalDenied { .. } => Code::ApprovalDenied,
            KernelError::ProgramNotAllowed { .. }
            | KernelError::Unconfinable { .. }
            | KernelError::NotKept { .. }
            | KernelError::KeptSecret { .. } => Code::ProgramNotAllowed,
            KernelError::KeptNotFound { .. } => Code::KeptNotFound,
            KernelError::KeepImpossible { .. } => Code::KeepImpossible,
            KernelError::ToolchainNotFound { .. } => Code::ToolchainNotFound,
            KernelError::Timeout { .. } => Code::Timeout,
            KernelError::ProtectedCreated { .. } => Code::ProtectedCreated,
            KernelError::Stopped { .. } => Code::Cancelled,
            KernelError::SpawnBudget => Code::BudgetExceeded,
            KernelError::Toolchain(failure) => failure.code(),
            KernelError::Annotated { restriction, .. } => match restriction {
                crate::kernel::policy::Restriction::ReadOnly => Code::ReadOnlyTool,
                crate::kernel::policy::Restriction::NotDestructive => Code::NotDestructiveTool,
            },
            KernelError::Io { .. } => Code::IoError,
        }
    }

    pub fn details(&self) -> Value {
        match self {
            KernelError::InvalidArgs { .. } => Value::Null,
            KernelError::ApprovalRequired { path, access, class, grant } => {
                json!({"path": path, "access": access, "class": class, "grant": grant})
            }
            KernelError::FileNotFound { path } => json!({"path": path}),
            KernelError::NotAFile { path, kind } => json!({"path": path, "kind": kind}),
            KernelError::BinaryFile { path, reason } => json!({"path": path, "reason": reason}),
            KernelError::TooLarge { path, size, limit, .. } => {
                json!({"path": path, "size": size, "limit": limit})
            }
            KernelError::EmptyOldString { edit_index } | KernelError::NoChange { edit_index } => {
                edit_index.map_or(Value::Null, |i| json!({"edit_index": i}))
            }
            KernelError::OldStringNotFound { path, edit_index, candidates } => {
                with_edit_index(json!({"path": path, "candidates": candidates}), *edit_index)
            }
            KernelError::OldStringNotUnique { path, edit_index, count, locations } => {
                with_edit_index(json!({"path": path, "count": count, "locations": locations}), *edit_index)
            }
            KernelError::NotRead { path } | KernelError::WrittenDuringEdit { path } => json!({"path": path}),
            KernelError::StaleFile { path, expected, actual } => {
                json!({"path": path, "expected_sha256": expected, "actual_sha256": actual})
            }
            KernelError::PreimageChanged { path, preimage, expected, actual } => {
                json!({"path": path, "preimage": preimage, "expected_sha256": expected, "actual_sha256": actual})
            }
            KernelError::ChangedSinceShown { command, shown, now } => {
                json!({"command": command, "shown_writes": shown, "writes_now": now})
            }
            KernelError::SpawnApprovalRequired { command, why, grant, person_only: false } => {
                json!({"command": command, "why": why, "grant": grant})
            }
            KernelError::SpawnApprovalRequired { command, why, grant, person_only: true } => {
                json!({"command": command, "why": why, "grant": grant, "person_only": true})
            }
            KernelError::ApprovalDenied { command, reason } => json!({"command": command, "reason": reason}),
            KernelError::ControlInArgument { program, argument, position, shown } => {
                json!({"program": program, "argument": argument, "position": position, "character": shown})
            }
            KernelError::ProgramNotAllowed { program, .. } => json!({"program": program}),
            KernelError::Unconfinable { program, why } => json!({"program": program, "confinement": why}),
            KernelError::NotKept { command } | KernelError::KeptSecret { command } => {
                json!({"command": command, "kept": false})
            }
            KernelError::KeptNotFound { id } => json!({"id": id}),
            KernelError::KeepImpossible { command, why } => json!({"command": command, "why": why}),
            KernelError::ToolchainNotFound { program, tried, fix } => {
                json!({"program": program, "tried": tried, "fix": fix})
            }
            KernelError::Timeout { command, timeout_ms, output, .. } => {
                json!({"command": command, "timeout_ms": timeout_ms, "output": output})
            }
            KernelError::ProtectedCreated { command, planted, output, .. } => {
                json!({"command": command, "removed": planted, "output": output})
            }
            KernelError::Stopped { command, reason } => json!({"command": command, "reason": reason}),
            KernelError::SpawnBudget => json!({"limit": "spawns"}),
            KernelError::Toolchain(failure) => failure.details(),
            KernelError::Annotated { tool, restriction, what } => {
                json!({"tool": tool, "annotation": restriction, "refused": what})
            }
            KernelError::Io { op, path, source } => {
                json!({"path": path, "operation": op, "os_error": source.to_string()})
            }
        }
    }

    /// The same refusal, attributed to one edit of a multi-edit.
    pub fn for_edit(self, index: usize) -> KernelError {
        match self {
            KernelError::EmptyOldString { .. } => KernelError::EmptyOldString { edit_index: Some(index) },
            KernelError::NoChange { .. } => KernelError::NoChange { edit_index: Some(index) },
            KernelError::OldStringNotFound { path, candidates, .. } => {
                KernelError::OldStringNotFound { path, edit_index: Some(index), candidates }
            }
            KernelError::OldStringNotUnique { path, count, locations, .. } => {
                KernelError::OldStringNotUnique { path, edit_index: Some(index), count, locations }
            }
            other => other,
        }
    }
}

/// ` (pid P, workspace W, since T)` for a known holder.
fn shown_list(paths: &[String]) -> String {
    if paths.is_empty() {
        return "nothing".to_string();
    }
    paths.join(", ")
}

fn with_edit_index(mut details: Value, edit_index: Option<usize>) -> Value {
    if let (Some(i), Some(map)) = (edit_index, details.as_object_mut()) {
        map.insert("edit_index".into(), json!(i));
    }
    details
}

impl From<ScopeError> for KernelError {
    fn from(err: ScopeError) -> KernelError {
        match err {
            ScopeError::ReadLink { path, source } => KernelError::io("read the link", path, source),
            other => KernelError::invalid(other.to_string()),
        }
    }
}

impl From<KernelError> for Failure {
    fn from(err: KernelError) -> Failure {
        Failure::new(err.code(), err.to_string()).with_details(err.details())
    }
}
