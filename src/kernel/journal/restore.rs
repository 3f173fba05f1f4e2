//! Putting files back: a failed recipe step is rolled back, and `rein undo` reverts a run.
//! Each file goes back to the bytes it had before the first recorded change, taken from the
//! journal's pre-image and checked against its sha256.

use serde::Serialize;

use super::{Action, Entry, Outcome};
use crate::kernel::digest::sha256_hex;
use crate::kernel::files::{self, write};
use crate::kernel::policy::DecidedBy;
use crate::kernel::{Access, Call, Kernel, KernelError};

/// One file's net change over a series of journal entries.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct FileChange {
    /// The file, relative to the workspace.
    pub path: String,
    /// None: the file did not exist before.
    pub sha256_before: Option<String>,
    /// Its sha256 afterwards.
    pub sha256_after: String,
    /// Where the old bytes are kept (relative to the workspace).
    pub preimage: Option<String>,
}

/// The files `entries` changed, in the order first touched, each with its first "before" and
/// last "after".
pub fn net_changes(entries: &[Entry]) -> Vec<FileChange> {
    let mut changes: Vec<FileChange> = Vec::new();
    for entry in entries {
        let is_change = entry.action.changes_a_file() && entry.result == Outcome::Ok;
        let Some(after) = entry.sha256_after.clone().filter(|_| is_change) else { continue };
        match changes.iter_mut().find(|c| c.path == entry.target) {
            Some(change) => change.sha256_after = after,
            None => changes.push(FileChange {
                path: entry.target.clone(),
                sha256_before: entry.sha256_before.clone(),
                sha256_after: after,
                preimage: entry.preimage.clone(),
            }),
        }
    }
    changes
}

/// What restoring did to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Restored {
    /// The file, relative to the workspace.
    pub path: String,
    /// What was done to it.
    pub action: RestoreAction,
}

/// What restoring a file did (`"restored"`, `"removed"`, `"unchanged"` in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RestoreAction {
    /// Its old bytes were put back.
    Restored,
    /// It did not exist before, so it was removed.
    Removed,
    /// It was already as before.
    Unchanged,
}

impl std::fmt::Display for RestoreAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RestoreAction::Restored => "restored",
            RestoreAction::Removed => "removed",
            RestoreAction::Unchanged => "unchanged",
        })
    }
}

impl Kernel {
    /// Restores every change (latest first): a failed step's rollback, rein's own writes of a
    /// moment ago, so no gate is asked. Without `force`, refuses (STALE_FILE) if a file
    /// changed since — checked for every file before any is touched.
    /// A saved copy that was collected refuses the whole restore, also before anything is touched.
    pub fn restore(&self, call: &Call, changes: &[FileChange], force: bool) -> Result<Vec<Restored>, KernelError> {
        self.restore_as(call, changes, force, &[])
    }

    /// Undoes a run: [`Kernel::restore`], but its list of files comes from a record in the
    /// workspace's `.rein/`, which an agent able to write the workspace may have forged. So each
    /// file is first allowed as a write of it would be (the gate asks about anything but a
    /// plain workspace file: outside, protected, rein's home), and one refusal refuses the
    /// whole undo before any file is touched.
    pub fn undo(&self, call: &Call, changes: &[FileChange], force: bool) -> Result<Vec<Restored>, KernelError> {
        let mut deciders = Vec::with_capacity(changes.len());
        for change in changes {
            let mut entry = Entry::new(Action::Restore, &change.path);
            if let Err(refusal) = self.authorize(call, &change.path, Access::Write, &mut entry) {
                let refused = Err(refusal);
                self.record(call, entry, &refused);
                return refused;
            }
            deciders.push(entry.decided_by.unwrap_or(DecidedBy::Policy));
        }
        self.restore_as(call, changes, force, &deciders)
    }

    /// Restores `changes`, each journaled as decided by its entry of `deciders` (the policy
    /// where there is none).
    fn restore_as(
        &self,
        call: &Call,
        changes: &[FileChange],
        force: bool,
        deciders: &[DecidedBy],
    ) -> Result<Vec<Restored>, KernelError> {
        for change in changes {
            let Some(preimage) = change.preimage.as_deref().filter(|_| change.sha256_before.is_some()) else {
                continue;
            };
            let saved = self.place(&self.scope.workspace().join(preimage), preimage, false)?;
            let kept = saved
                .dir
                .kind_of(&saved.name)
                .map_err(|e| KernelError::io("look for the saved copy of", &change.path, e))?;
            if kept.is_none() {
                return Err(KernelError::invalid(format!(
                    "the saved copy of {} ({preimage}) is gone: it was collected as older than the journal keeps \
                     (see `rein runs prune`); nothing was restored",
                    change.path
                )));
            }
        }
        if !force {
            for change in changes {
                let current = self.current_sha(&change.path)?;
                if current.as_deref() != Some(change.sha256_after.as_str()) && current != change.sha256_before {
                    return Err(KernelError::StaleFile {
                        path: change.path.clone(),
                        expected: change.sha256_after.clone(),
                        actual: current,
                    });
                }
            }
        }
        let decided_by = |index: usize| deciders.get(index).cloned().unwrap_or(DecidedBy::Policy);
        changes
            .iter()
            .enumerate()
            .rev()
            .map(|(index, change)| self.restore_one(call, change, decided_by(index)))
            .collect()
    }

    fn current_sha(&self, path: &str) -> Result<Option<String>, KernelError> {
        let resolved = self.scope.resolve(path)?;
        match self.place(&resolved.real, path, false) {
            Ok(place) => files::current_sha(&place, path),
            Err(KernelError::FileNotFound { .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Puts back what rein itself changed, as `decided_by` allowed.
    fn restore_one(&self, call: &Call, change: &FileChange, decided_by: DecidedBy) -> Result<Restored, KernelError> {
        self.journaled(call, Action::Restore, &change.path, |entry| {
            let resolved = self.scope.resolve(&change.path)?;
            entry.decided_by = Some(decided_by);
            let current = self.current_sha(&change.path)?;
            entry.sha256_before = current.clone();
            entry.sha256_after = change.sha256_before.clone();
            if current == change.sha256_before {
                return Ok(Restored { path: change.path.clone(), action: RestoreAction::Unchanged });
            }
            let place = self.place(&resolved.real, &change.path, change.sha256_before.is_some())?;
            let Some(before) = &change.sha256_before else {
                place.dir.remove_file(&place.name).map_err(|e| KernelError::io("remove", &change.path, e))?;
                return Ok(Restored { path: change.path.clone(), action: RestoreAction::Removed });
            };
            let preimage = change
                .preimage
                .as_deref()
                .ok_or_else(|| KernelError::invalid(format!("no saved copy of {} to restore from", change.path)))?;
            let saved = self.place(&self.scope.workspace().join(preimage), preimage, false)?;
            let mut bytes = Vec::new();
            saved
                .dir
                .open_read(&saved.name)
                .and_then(|mut file| std::io::Read::read_to_end(&mut file, &mut bytes))
                .map_err(|e| KernelError::io("read the saved copy of", &change.path, e))?;
            let kept = sha256_hex(&bytes);
            if &kept != before {
                return Err(KernelError::PreimageChanged {
                    path: change.path.clone(),
                    preimage: preimage.to_string(),
                    expected: before.clone(),
                    actual: kept,
                });
            }
            write::write_in(&place, &change.path, std::iter::once(bytes.as_slice()), || Ok(()))?;
            Ok(Restored { path: change.path.clone(), action: RestoreAction::Restored })
        })
    }
}
