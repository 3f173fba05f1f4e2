//! The plain data the kernel's results and refusals carry: what an edit found instead, where a
//! match sits, what a program printed, what a program planted. Defined here, below every layer
//! that reports them, so that `error` names nothing above it; each is re-exported where it is
//! made.

use serde::{Deserialize, Serialize};

/// A span of the file that resembles an `old_string` that was not found. Shown, never applied.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    pub line: usize,
    pub end_line: usize,
    pub text: String,
    /// 0.0 ..= 1.0, how close the span is to `old_string`.
    pub similarity: f64,
    /// Why it was chosen: "whitespace differs", "line endings differ", "similar text" ...
    pub reason: String,
}

/// Where a match or a candidate sits in a file: byte offset, 1-based line and column
/// (column counted in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Location {
    /// Byte offset in the file.
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// A repository (a `.git`, or a folder git takes for one) a spawned program made where it may
/// write, and what rein did with it
/// (`process::planted`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Planted {
    /// Where it was: relative to the workspace inside it, else absolute.
    pub path: String,
    /// `folder`, `file`, `link` or `other`; `repository` for a folder git takes for one without
    /// the name (`HEAD`, `objects/`, `refs/`), of which only its `HEAD` is removed; `gone` when
    /// it was moved away (or stopped being one) before the sweep.
    pub kind: String,
    /// Where it pointed git: a link's target, or a `.git` file's first line (`gitdir: …`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points_to: Option<String>,
    /// Whether rein removed it (false: already gone, or removing failed: `error`).
    pub removed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// How a program ended and what it printed (secrets replaced).
#[derive(Debug, Clone, Serialize)]
pub struct SpawnOutput {
    /// Its exit code, when it exited.
    pub code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    /// What it printed on stdout.
    pub stdout: String,
    /// What it printed on stderr.
    pub stderr: String,
    /// Whether it overstayed its deadline and was stopped.
    pub timed_out: bool,
    /// How long it ran.
    pub duration_ms: u64,
    /// Whether output was dropped (see `dropped_bytes`).
    pub truncated: bool,
    /// Bytes of output not kept (the middle of a long output).
    pub dropped_bytes: u64,
    /// Processes the program left running, killed when it ended (or was stopped).
    pub stragglers: usize,
    /// The names of the first of them, for the journal.
    #[serde(skip)]
    pub straggler_names: Vec<String>,
}
