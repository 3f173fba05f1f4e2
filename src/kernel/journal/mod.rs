//! The audit trail: every decision and every side effect, one JSON line each, in
//! `.rein/journal/<id>.jsonl`; the old content of every file rein replaced is kept under
//! `.rein/journal/pre/<sha256>` (a pre-image) so that `restore` can put it back.

pub mod entry;
pub mod restore;

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

pub use entry::{Action, Entry, Outcome, Verdict};

#[derive(Debug)]
pub struct Journal {
    /// `<workspace>/.rein/journal`.
    dir: PathBuf,
    /// This process's journal file is `<id>.jsonl`.
    id: String,
    file: Mutex<Option<File>>,
}

impl Journal {
    pub fn new(workspace: &Path) -> Journal {
        let now = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
        let id = format!("{}-{}", now.replace([':', '-'], "").trim_end_matches('Z'), std::process::id());
        Journal { dir: workspace.join(".rein/journal"), id, file: Mutex::new(None) }
    }

    pub fn path(&self) -> PathBuf {
        self.dir.join(format!("{}.jsonl", self.id))
    }

    /// Appends one entry. A journal that cannot be written is reported on stderr, loudly, but
    /// does not undo what already happened.
    pub fn record(&self, mut entry: Entry) {
        entry.time = humantime::format_rfc3339_millis(SystemTime::now()).to_string();
        let path = self.path();
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

    /// Keeps `real`'s current content as the pre-image named by its sha256: a hard link to the
    /// old inode (free, since the write replaces the file by rename), or a copy across devices.
    /// Returns where it is, relative to the workspace.
    pub fn keep_preimage(&self, real: &Path, sha256: &str) -> std::io::Result<String> {
        let pre = self.dir.join("pre");
        std::fs::create_dir_all(&pre)?;
        let target = pre.join(sha256);
        if !target.exists() && std::fs::hard_link(real, &target).is_err() {
            std::fs::copy(real, &target)?;
        }
        Ok(format!(".rein/journal/pre/{sha256}"))
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
