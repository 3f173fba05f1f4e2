//! The audit trail: every decision and every side effect, one JSON line each, in
//! `.rein/journal/<id>.jsonl`; the old content of every file rein replaced is kept under
//! `.rein/journal/pre/<sha256>` (a pre-image) so that `restore` can put it back.

pub mod collect;
pub mod entry;
pub mod restore;

use std::ffi::OsStr;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::kernel::files::dir::{Dir, Place};
use crate::kernel::files::names::shown;

pub use collect::{preimage_name, Collected};
pub use entry::{Action, Entry, Outcome};

/// The journal's folder, relative to the workspace.
const JOURNAL_DIR: &str = ".rein/journal";
const PREIMAGE_DIR: &str = ".rein/journal/pre";

#[derive(Debug)]
pub struct Journal {
    /// The workspace, held open: the journal's folders are opened beneath it, never through a
    /// link.
    root: Arc<Dir>,
    /// This process's journal file is `<id>.jsonl`.
    id: String,
    file: Mutex<Option<File>>,
}

impl Journal {
    pub fn new(root: Arc<Dir>) -> Journal {
        let now = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
        let id = format!("{}-{}", now.replace([':', '-'], "").trim_end_matches('Z'), std::process::id());
        Journal { root, id, file: Mutex::new(None) }
    }

    pub fn path(&self) -> PathBuf {
        self.root.path().join(JOURNAL_DIR).join(format!("{}.jsonl", self.id))
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
            *file = self.open_append().map_err(|e| warn_unjournaled(&path, &e)).ok();
        }
        if let Some(f) = file.as_mut() {
            if let Err(e) = f.write_all(line.as_bytes()) {
                warn_unjournaled(&path, &e);
            }
        }
    }

    /// Keeps the current content of `place` as the pre-image named by its sha256: a hard link
    /// to the old inode (free, since the write replaces the file by rename), or a copy across
    /// devices. Returns where it is, relative to the workspace.
    pub fn keep_preimage(&self, place: &Place, sha256: &str) -> std::io::Result<String> {
        let pre = self.root.create_beneath(Path::new(PREIMAGE_DIR))?;
        let name = OsStr::new(sha256);
        if pre.kind_of(name)?.is_none() && place.dir.hard_link(&place.name, &pre, name).is_err() {
            let mut from = place.dir.open_read(&place.name)?;
            let mut to = pre.create_new(name, 0o644)?;
            std::io::copy(&mut from, &mut to)?;
            to.sync_all()?;
        }
        Ok(format!("{PREIMAGE_DIR}/{sha256}"))
    }

    fn open_append(&self) -> std::io::Result<File> {
        let dir = self.root.create_beneath(Path::new(JOURNAL_DIR))?;
        dir.open_append(OsStr::new(&format!("{}.jsonl", self.id)), 0o644)
    }
}

fn warn_unjournaled(path: &Path, err: &std::io::Error) {
    tracing::error!("cannot write the journal {}: {err}; this action is not recorded", shown(path));
}
