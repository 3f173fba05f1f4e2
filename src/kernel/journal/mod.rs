//! The audit trail: every decision and every side effect, one JSON line each, in
//! `.rein/journal/<id>.jsonl`; the old content of every file rein replaced is kept under
//! `.rein/journal/pre/<sha256>` (a pre-image) so that `restore` can put it back.

pub mod collect;
pub mod restore;

use std::ffi::OsStr;
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::kernel::digest::sha256_hex;
use crate::kernel::files::dir::{Dir, Place};
use crate::kernel::files::write;
use crate::kernel::KernelError;
use crate::visible::shown_path;

pub use collect::{preimage_name, Collected};
// One line of the journal is defined below the call, which captures lines for a recipe step.
pub use crate::kernel::entry::{Action, Entry, Outcome, Planted, Verdict};

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
    ///
    /// A log is appended to, not replaced (`files::write` would rewrite it whole per entry):
    /// each entry is one line in one `write` to this process's own file, opened `O_APPEND`, so
    /// a killed rein leaves every line it wrote, and a crash can tear only its file's last
    /// line. Lines are not fsynced one by one (every call is journaled, reads too): a power cut
    /// may lose the last ones, while the changes they record, their pre-images and the run
    /// reports undo reads are each durable before rein answers.
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

    /// Keeps the current content of `place` (`display`), whose sha256 is `sha256`, as the
    /// pre-image named by it: a hard link to the old inode (free, since the write replaces the
    /// file by rename), or a copy where there can be none (another device, a filesystem without
    /// hard links). Either is durable before the change it makes undoable, and a copy is
    /// written whole under a temporary name first, so a crash never leaves a torn pre-image
    /// under a sha256 it does not have (later writes would trust it and undo would refuse it).
    /// Returns where it is, relative to the workspace.
    ///
    /// Linked only where the file is in the workspace and the inode has no other name: a link
    /// to a file outside would put that file's inode in the workspace, and an inode another
    /// name shares stays writable through that name. Whatever writes in place to a linked
    /// inode still (a program holding it open) changes the pre-image: restoring checks its
    /// sha256 and refuses (STALE_FILE) rather than put back other bytes.
    pub fn keep_preimage(&self, place: &Place, display: &str, sha256: &str) -> Result<String, KernelError> {
        let kept = format!("{PREIMAGE_DIR}/{sha256}");
        let failed = |e| KernelError::io("keep the old content of", display, e);
        let pre = self.root.create_beneath(Path::new(PREIMAGE_DIR)).map_err(failed)?;
        let name = OsStr::new(sha256);
        if pre.kind_of(name).map_err(failed)?.is_some() {
            return Ok(kept);
        }
        let linkable =
            place.dir.path().starts_with(self.root.path()) && place.dir.is_sole_name(&place.name).map_err(failed)?;
        if linkable && place.dir.hard_link(&place.name, &pre, name).is_ok() {
            pre.sync().map_err(failed)?;
            return Ok(kept);
        }
        let mut bytes = Vec::new();
        place.dir.open_read(&place.name).and_then(|mut file| file.read_to_end(&mut bytes)).map_err(failed)?;
        if sha256_hex(&bytes) != sha256 {
            return Err(failed(std::io::Error::other("it changed while rein was keeping it; try again")));
        }
        let copy = Place { dir: pre, name: name.to_os_string() };
        write::write_in(&copy, &kept, std::iter::once(&bytes[..]), || Ok(()))?;
        Ok(kept)
    }

    fn open_append(&self) -> std::io::Result<File> {
        let dir = self.root.create_beneath(Path::new(JOURNAL_DIR))?;
        dir.open_append(OsStr::new(&format!("{}.jsonl", self.id)), 0o644)
    }
}

fn warn_unjournaled(path: &Path, err: &std::io::Error) {
    tracing::error!("cannot write the journal {}: {err}; this action is not recorded", shown_path(path));
}
