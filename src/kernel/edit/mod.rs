//! Edits: exact replacements applied in memory, written as pieces of the file as read, with
//! the old content kept for undo.
//!
//! - `replace`: the exact-match engine (pure, no I/O)
//! - `candidates`: the nearest spans to show when `old_string` is not found (`bigrams`: the
//!   cheap first ranking of a file's windows)
//! - `change`: what an edit changed, without a second copy of the file
//! - `filling`: the old content: the file mapped under its lease, or a buffer hashed as it fills
//! - `old_hash`: the sha256 of the old and new content, hashed beside the search and the write
//! - `diff`: the unified diff of that change
//! - `write_change`: the new content written, big unchanged parts copied from the old file
//! - `text`: BOM, line endings, line/column locations

mod bigrams;
pub mod candidates;
pub mod change;
pub mod diff;
mod filling;
mod old_hash;
pub mod replace;
pub mod text;
mod write_change;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use replace::{Edit, EditReport};
pub use text::Location;

use super::files::dir::Place;
use super::files::{ledger, lock, read, refuse_directory_syntax, write};
use super::journal::{Action, Entry};
use super::platform::held_read::HeldRead;
use super::{Access, Call, EventKind, Kernel, KernelError};
use filling::Filling;
use old_hash::OldHashing;

/// Edits refuse files above this size: the whole file is held in memory twice.
pub const EDIT_MAX_BYTES: u64 = 512 * 1024 * 1024;

/// How an edit is applied (the same for one edit and for several).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditOptions {
    /// Show the diff, write nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// Refuse (STALE_FILE) unless the file has exactly this content now.
    pub expected_sha256: Option<String>,
}

/// What an edit did (or, with `dry_run`, would do): the result `edit_file` and `multi_edit`
/// give.
#[derive(Debug, Clone, Serialize)]
pub struct EditOutput {
    /// The file, as the caller named it.
    pub path: String,
    /// How many places were replaced (all edits together).
    pub replacements: usize,
    /// Where each replacement was.
    pub locations: Vec<Location>,
    /// One report per edit, in order (only for multi-edits).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edits: Option<Vec<EditReport>>,
    /// The file's sha256 before the edit.
    pub sha256_before: String,
    /// Its sha256 after (what it would be, for a dry run).
    pub sha256_after: String,
    /// The change as a unified diff.
    pub diff: String,
    /// Whether nothing was written.
    pub dry_run: bool,
}

impl Kernel {
    /// Applies one edit. Refusals come in the order of DESIGN.md and leave the file
    /// byte-identical.
    pub fn edit(&self, call: &Call, path: &str, edit: Edit, opts: &EditOptions) -> Result<EditOutput, KernelError> {
        self.apply_edits(call, EditRequest { path, edits: std::slice::from_ref(&edit), opts, multi: false })
    }

    /// Like [`Kernel::edit`] for several edits, applied in order, all or nothing; refusals
    /// always name the edit (`edit_index`), even when there is only one.
    pub fn multi_edit(
        &self,
        call: &Call,
        path: &str,
        edits: &[Edit],
        opts: &EditOptions,
    ) -> Result<EditOutput, KernelError> {
        match self.apply_edits(call, EditRequest { path, edits, opts, multi: true }) {
            Err(err) if edits.len() == 1 => Err(err.for_edit(0)),
            result => result,
        }
    }

    fn apply_edits(&self, call: &Call, request: EditRequest) -> Result<EditOutput, KernelError> {
        replace::check_edits(request.edits)?;
        self.journaled(call, Action::Edit, request.path, |entry| self.apply_journaled(call, &request, entry))
    }

    fn apply_journaled(
        &self,
        call: &Call,
        request: &EditRequest,
        entry: &mut Entry,
    ) -> Result<EditOutput, KernelError> {
        let EditRequest { path, edits, opts, multi } = *request;
        // An edit that could not apply, or that the file's state refuses, is refused before
        // anyone is asked about the file.
        let unasked = |resolved: &crate::kernel::ResolvedPath, display: &str| {
            refuse_directory_syntax(path, display)?;
            let place = self.place(&resolved.real, display, false)?;
            let before = read::read_whole_text(&place, display, EDIT_MAX_BYTES, TOO_LARGE_HINT)?;
            replace::apply_edits(display, &before, edits)?;
            let sha_before = crate::kernel::digest::sha256_hex(&before);
            ledger::check_fresh(display, opts.expected_sha256.as_deref(), Some(&sha_before))?;
            ledger::check_read(call, &resolved.real, display, Some(&sha_before))
        };
        let (resolved, display) = self.authorize_checked(call, path, Access::Write, entry, &unasked)?;
        refuse_directory_syntax(path, &display)?;
        let place = self.place(&resolved.real, &display, false)?;
        let _lock = if opts.dry_run { None } else { Some(lock::lock_dir(&place.dir)?) };
        let (before, hashing, source) = read_for_edit(&place, &display, !opts.dry_run)?;
        let applied = replace::apply_edits(&display, &before, edits)?;
        let change = change::Change::of(&before, &applied.result);
        let mut hashes = None;
        let mut preimage = None;
        // The freshness checks and the pre-image (durable: its folder's fsync) run beside the
        // write, which mostly waits on the disk, as soon as the old content's hash is known; the
        // new bytes become visible only once both are done, so the pre-image is still durable
        // before the change is. The new content's hash runs on a thread of its own, resumed from
        // the old hash's state before the change as soon as that hash has passed there.
        std::thread::scope(|s| {
            let new_hash = s.spawn(|| hashing.after(&before, &change));
            let keeping = s.spawn(|| {
                let sha_before = hashing.before();
                ledger::check_fresh(&display, opts.expected_sha256.as_deref(), Some(&sha_before))?;
                ledger::check_read(call, &resolved.real, &display, Some(&sha_before))?;
                let kept = match opts.dry_run {
                    true => None,
                    false => Some(self.keep_preimage(&place, &display, &sha_before)?),
                };
                Ok::<_, KernelError>((sha_before, kept))
            });
            let verify = || {
                let (sha_before, kept) = keeping.join().expect("keeping the old content does not panic")?;
                let sha_after = new_hash.join().expect("hashing the new content does not panic");
                preimage = kept;
                hashes = Some((sha_before, sha_after));
                Ok(())
            };
            if opts.dry_run {
                verify()
            } else {
                let written_meanwhile = std::cell::Cell::new(false);
                let content = |out: &mut std::fs::File| {
                    let mapped = source.is_none();
                    let held = source.as_ref().or(before.held()).expect("a file read for writing is held");
                    let written = match write_change::write_change(out, &before, &change, held, mapped) {
                        Ok(()) => Ok(()),
                        Err(write_change::WriteRefused::Io(e)) => Err(e),
                        Err(write_change::WriteRefused::WrittenMeanwhile) => {
                            written_meanwhile.set(true);
                            Err(std::io::Error::other("another program asked to write the file"))
                        }
                    };
                    // Let go as soon as the copy ends, unless the bytes read are the mapped
                    // file itself (`before` lets go of its lease with the mapping).
                    drop(source);
                    written
                };
                match write::write_in_file(&place, &display, content, verify) {
                    Err(_) if written_meanwhile.get() => Err(KernelError::WrittenDuringEdit { path: display.clone() }),
                    other => other.map(drop),
                }
            }
        })?;
        let (sha256_before, sha256_after) = hashes.expect("set by verify");
        if !opts.dry_run {
            ledger::note(call, &resolved.real, &sha256_after);
            entry.sha256_before = Some(sha256_before.clone());
            entry.sha256_after = Some(sha256_after.clone());
            entry.preimage = preimage;
            call.emit(|| EventKind::FileWritten {
                path: call.secrets().scrub(&display),
                bytes: applied.result.len() as u64,
            });
        }
        let first_location = applied.reports.first().and_then(|r| r.locations.first());
        let diff = change.diff(&display, &before, first_location);
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

/// One edit or several, as asked.
#[derive(Clone, Copy)]
struct EditRequest<'a> {
    path: &'a str,
    edits: &'a [Edit],
    opts: &'a EditOptions,
    /// Report per edit, and name the edit in refusals.
    multi: bool,
}

const TOO_LARGE_HINT: &str = "Edit it with a program made for files this size, or split the file.";

/// The file's bytes, their hashing (beside the rest of the edit), and the file they were read
/// from: held unchanged since before the read when `to_write` and it is big enough for its
/// unchanged parts to be copied from it (None: the bytes are that file, mapped, and hold it).
fn read_for_edit(
    place: &Place,
    display: &str,
    to_write: bool,
) -> Result<(Arc<Filling>, OldHashing, Option<HeldRead>), KernelError> {
    let (file, meta) = read::open_regular(place, display)?;
    let source = match to_write && meta.len() >= write_change::COPY_FROM as u64 {
        true => HeldRead::lease(file),
        false => HeldRead::unheld(file),
    };
    if !source.unchanged() {
        let bytes = read::read_opened_text(source.file(), &meta, display, EDIT_MAX_BYTES, TOO_LARGE_HINT)?;
        let before = Arc::new(Filling::whole(bytes));
        return Ok((before.clone(), OldHashing::start(before), Some(source)));
    }
    // Its size again, now that no one can change it: a writer that let go of the file just
    // before the lease may have changed it after the open looked, and a mapping longer than
    // the file would end rein with SIGBUS, a shorter one would drop its tail.
    let meta = source.file().metadata().map_err(|e| KernelError::io("inspect", display, e))?;
    // Held, the file keeps its size while it is read.
    if meta.len() > EDIT_MAX_BYTES {
        let (size, limit) = (meta.len(), EDIT_MAX_BYTES);
        return Err(KernelError::TooLarge { path: display.to_string(), size, limit, hint: TOO_LARGE_HINT });
    }
    let source = match Filling::map(source, meta.len() as usize) {
        Ok(mapped) => {
            let before = Arc::new(mapped);
            read::check_text(&before, display)?;
            return Ok((before.clone(), OldHashing::start(before), None));
        }
        Err(source) => source,
    };
    // Read into a buffer of its own, hashed as it fills.
    let before = Arc::new(Filling::with_capacity(meta.len() as usize));
    let hashing = OldHashing::start(before.clone());
    let read_whole = before.fill(source.file(), &hashing.thread()).map_err(|e| KernelError::io("read", display, e))?;
    if !read_whole {
        let grew = std::io::Error::other("it grew while rein read it; try again");
        return Err(KernelError::io("read", display, grew));
    }
    read::check_text(&before, display)?;
    Ok((before, hashing, Some(source)))
}
