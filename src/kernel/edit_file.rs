//! Edits: exact replacements applied in memory, written as pieces of the file as read, with
//! the old content kept for undo.

use std::path::Path;

use super::files::{check_fresh, refuse_directory_syntax};
use super::journal::Entry;
use super::{
    change, edit, lock, read, write, Access, Edit, EditOptions, EditOutput, Kernel, KernelError, EDIT_MAX_BYTES,
};

impl Kernel {
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
        self.journaled("edit", path, |entry| self.apply_journaled(path, edits, opts, multi, entry))
    }

    fn apply_journaled(
        &self,
        path: &str,
        edits: &[Edit],
        opts: EditOptions,
        multi: bool,
        entry: &mut Entry,
    ) -> Result<EditOutput, KernelError> {
        let resolved = self.scope.resolve(path)?;
        entry.target = resolved.display(&self.scope);
        entry.decided_by = Some(self.check_file(&resolved, Access::Write)?);
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
        let mut preimage = None;
        // Hashing runs beside the write, which mostly waits on the disk; the stale check and
        // the pre-image happen once the new bytes are durable but before they become visible.
        std::thread::scope(|s| {
            let hashing = s.spawn(|| change.hashes(&before));
            let verify = || {
                let (sha_before, sha_after) = hashing.join().expect("hashing does not panic");
                if let Some(expected) = opts.expected_sha256 {
                    check_fresh(&display, expected, Some(&sha_before))?;
                }
                self.check_read(&resolved.real, &display, Some(&sha_before))?;
                if !opts.dry_run {
                    preimage = self.keep_preimage(&resolved.real, &display, &sha_before)?;
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
        if !opts.dry_run {
            self.note_read(&resolved.real, &sha256_after);
            entry.sha256_before = Some(sha256_before.clone());
            entry.sha256_after = Some(sha256_after.clone());
            entry.preimage = preimage;
        }
        let diff = change.diff(&display, &before);
        let replacements = applied.reports.iter().map(|r| r.replacements).sum();
        let locations = applied.reports.iter().flat_map(|r| r.locations.iter().copied()).take(20).collect();
        Ok(EditOutput {
            path: display,
            replacements,
            locations,
            edits: multi.then_some(applied.reports),
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
