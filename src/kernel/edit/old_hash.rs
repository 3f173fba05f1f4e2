//! The sha256 of an edit's old and new content, in one pass over the old bytes that starts as
//! soon as they are read: it runs on a thread of its own beside the search, the diff and the
//! write (hashing 64 MiB takes ~45 ms even with SHA-NI, as long as reading and writing them),
//! and keeps SHA-256's state every MiB, so the new content's hash resumes from the last state
//! before the first changed byte instead of hashing the shared prefix again.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use sha2::{Digest, Sha256};

use super::change::Change;

/// How often the state is kept: the new content's hash re-reads at most this much of the old.
const MARK_EVERY: usize = 1 << 20;

/// The old content's hash being computed.
pub struct OldHashing {
    bytes: Arc<Vec<u8>>,
    stop: Arc<AtomicBool>,
    /// None where no thread could be started: hashed on the caller's thread when asked.
    thread: Option<JoinHandle<Option<OldHashes>>>,
}

/// The old content's sha256, and the states along it.
pub struct OldHashes {
    before: String,
    /// `(offset, state after hashing bytes[..offset])`, ascending from 0.
    marks: Vec<(usize, Sha256)>,
}

impl OldHashing {
    /// Starts hashing `bytes` beside the caller.
    pub fn start(bytes: Arc<Vec<u8>>) -> OldHashing {
        let stop = Arc::new(AtomicBool::new(false));
        let (shared, stopped) = (bytes.clone(), stop.clone());
        let thread =
            std::thread::Builder::new().name("rein-edit-hash".into()).spawn(move || hash_old(&shared, &stopped)).ok();
        OldHashing { bytes, stop, thread }
    }

    /// The hashes, once all the old bytes are hashed.
    pub fn finish(mut self) -> OldHashes {
        let stop = AtomicBool::new(false);
        match self.thread.take().map(|thread| thread.join().expect("hashing does not panic")) {
            Some(Some(hashes)) => hashes,
            _ => hash_old(&self.bytes, &stop).expect("never stopped"),
        }
    }
}

impl Drop for OldHashing {
    /// An edit refused before its hashes are needed stops the thread at its next MiB.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl OldHashes {
    /// Lowercase hex sha256 of the old content.
    pub fn before(&self) -> &str {
        &self.before
    }

    /// Lowercase hex sha256 of the new content `change` makes of `old`.
    pub fn after(&self, old: &[u8], change: &Change) -> String {
        let (from, state) = self.marks.iter().rev().find(|(at, _)| *at <= change.prefix).expect("a mark at 0");
        let mut new = state.clone();
        new.update(&old[*from..change.prefix]);
        new.update(&change.middle);
        new.update(&old[old.len() - change.suffix..]);
        hex(new)
    }
}

fn hash_old(bytes: &[u8], stop: &AtomicBool) -> Option<OldHashes> {
    let mut state = Sha256::new();
    let mut marks = Vec::with_capacity(bytes.len() / MARK_EVERY + 1);
    for (index, block) in bytes.chunks(MARK_EVERY).enumerate() {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        marks.push((index * MARK_EVERY, state.clone()));
        state.update(block);
    }
    if marks.is_empty() {
        marks.push((0, state.clone()));
    }
    Some(OldHashes { before: hex(state), marks })
}

fn hex(state: Sha256) -> String {
    format!("{:x}", state.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::digest::sha256_hex;
    use crate::kernel::edit::replace::{apply_edits, Edit};

    #[test]
    fn the_new_hash_resumes_from_the_mark_before_the_first_change_wherever_it_is() {
        let line = b"the quick brown fox jumps over the lazy dog\n";
        let mut old: Vec<u8> = line.iter().copied().cycle().take(3 * MARK_EVERY + 17).collect();
        old.extend_from_slice(b"END\n");
        let at_mark = 2 * MARK_EVERY;
        old[at_mark..at_mark + 5].copy_from_slice(b"MARK\n");
        for (find, with) in [("END", "end"), ("MARK", "mark"), ("the quick", "a quick")] {
            let edit = Edit { old_string: find.into(), new_string: with.into(), replace_all: find == "the quick" };
            let applied = apply_edits("f", &old, &[edit]).unwrap();
            let change = Change::of(&old, &applied.result);
            let hashes = OldHashing::start(Arc::new(old.clone())).finish();
            assert_eq!(hashes.before(), sha256_hex(&old));
            assert_eq!(hashes.after(&old, &change), sha256_hex(&applied.result.to_vec()), "{find}");
        }
        let empty = OldHashing::start(Arc::new(Vec::new())).finish();
        assert_eq!(empty.before(), sha256_hex(b""));
    }

    #[test]
    fn a_stopped_hashing_is_finished_on_the_callers_thread() {
        let old = vec![b'a'; 3 * MARK_EVERY];
        let hashing = OldHashing::start(Arc::new(old.clone()));
        hashing.stop.store(true, Ordering::Relaxed);
        assert_eq!(hashing.finish().before(), sha256_hex(&old));
    }
}
