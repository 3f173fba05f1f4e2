//! The audit trail: every decision and every side effect, one JSON line each, in
//! `.rein/journal/<id>.jsonl`; the old content of every file rein replaced is kept under
//! `.rein/journal/pre/<sha256>` so a later undo can restore it.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use serde::Serialize;

use crate::kernel::approval::gate::DecidedBy;

#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
pub struct Entry {
    pub time: String,
    /// read, write, edit, list, spawn.
    pub action: String,
    /// The path (as shown to callers) or the command line (secrets redacted).
    pub target: String,
    /// allowed, or refused.
    pub decision: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<DecidedBy>,
    /// "ok", or the error code.
    pub result: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256_before: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256_after: Option<String>,
    /// Where the old content is kept, relative to the workspace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preimage: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

#[derive(Debug)]
pub struct Journal {
    /// `<workspace>/.rein/journal`, or None when journaling is off (embedders' choice).
    dir: Option<PathBuf>,
    id: String,
    file: Mutex<Option<File>>,
    /// Entries also kept in memory while a recipe step runs (for its rollback and report).
    capture: Mutex<Option<Vec<Entry>>>,
}

impl Journal {
    pub fn new(workspace: &Path) -> Journal {
        let now = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
        let id = format!("{}-{}", now.replace([':', '-'], "").trim_end_matches('Z'), std::process::id());
        Journal { dir: Some(workspace.join(".rein/journal")), id, file: Mutex::new(None), capture: Mutex::new(None) }
    }

    pub fn disabled() -> Journal {
        Journal { dir: None, id: String::new(), file: Mutex::new(None), capture: Mutex::new(None) }
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn path(&self) -> Option<PathBuf> {
        self.dir.as_ref().map(|d| d.join(format!("{}.jsonl", self.id)))
    }

    /// Appends one entry. A journal that cannot be written is reported on stderr, loudly, but
    /// does not undo what already happened.
    pub fn record(&self, mut entry: Entry) {
        entry.time = humantime::format_rfc3339_millis(SystemTime::now()).to_string();
        if let Some(captured) = self.capture.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            captured.push(entry.clone());
        }
        let Some(path) = self.path() else { return };
        let mut line = serde_json::to_string(&entry).unwrap_or_default();
        line.push('\n');
        let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
        if file.is_none() {
            *file = open_append(&path).map_err(|e| warn_unjournaled(&path, &e)).ok();
        }
        if let Some(f) = file.as_mut() {
            if let Err(e) = f.write_all(line.as_bytes()) {
                warn_unjournaled(&path, &e);
            }
        }
    }

    /// Starts keeping entries in memory too, until [`Journal::take_capture`].
    pub fn start_capture(&self) {
        *self.capture.lock().unwrap_or_else(|e| e.into_inner()) = Some(Vec::new());
    }

    pub fn take_capture(&self) -> Vec<Entry> {
        self.capture.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default()
    }

    /// Keeps `real`'s current content as the pre-image named by its sha256: a hard link to the
    /// old inode (free, since the write replaces the file by rename), or a copy across devices.
    pub fn keep_preimage(&self, real: &Path, sha256: &str) -> std::io::Result<Option<String>> {
        let Some(dir) = &self.dir else { return Ok(None) };
        let pre = dir.join("pre");
        std::fs::create_dir_all(&pre)?;
        let target = pre.join(sha256);
        if !target.exists() && std::fs::hard_link(real, &target).is_err() {
            std::fs::copy(real, &target)?;
        }
        Ok(Some(format!(".rein/journal/pre/{sha256}")))
    }
}

fn open_append(path: &Path) -> std::io::Result<File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    OpenOptions::new().create(true).append(true).open(path)
}

fn warn_unjournaled(path: &Path, err: &std::io::Error) {
    tracing::error!("cannot write the journal {}: {err}; this action is not recorded", path.display());
}
