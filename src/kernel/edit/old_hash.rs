//! The sha256 of an edit's old and new content, in one pass over the old bytes that follows
//! their read (`filling`): it runs on a thread of its own beside the read, the search, the diff
//! and the write (hashing 64 MiB takes ~45 ms even with SHA-NI, longer than reading them), and
//! keeps SHA-256's state every MiB, so the new content's hash resumes from the last state
//! before the first changed byte instead of hashing the shared prefix again.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use sha2::{Digest, Sha256};

use super::change::Change;
use super::filling::Filling;

/// How often the state is kept: the new content's hash re-reads at most this much of the old.
const MARK_EVERY: usize = 1 << 20;

/// The old content's hash being computed.
pub struct OldHashing {
    bytes: Arc<Filling>,
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
    /// Starts hashing `bytes` beside the caller, as far as they are filled, and on as they are
    /// (the filler wakes [`OldHashing::thread`]).
    pub fn start(bytes: Arc<Filling>) -> OldHashing {
        let stop = Arc::new(AtomicBool::new(false));
        let (shared, stopped) = (bytes.clone(), stop.clone());
        let thread =
            std::thread::Builder::new().name("rein-edit-hash".into()).spawn(move || hash_old(&shared, &stopped)).ok();
        OldHashing { bytes, stop, thread }
    }

    /// The thread to wake when more bytes are filled (the caller's own where none could be
    /// started: it hashes them when asked).
    pub fn thread(&self) -> std::thread::Thread {
        self.thread.as_ref().map_or_else(std::thread::current, |t| t.thread().clone())
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
        if let Some(thread) = &self.thread {
            thread.thread().unpark();
        }
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

/// Hashes `bytes` a MiB at a time as they are filled, waiting (parked) for the filler.
fn hash_old(bytes: &Filling, stop: &AtomicBool) -> Option<OldHashes> {
    let mut state = Sha256::new();
    let mut marks = Vec::new();
    let mut hashed = 0;
    loop {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        let (filled, finished) = bytes.so_far();
        let whole_blocks = (filled.len() - hashed) / MARK_EVERY * MARK_EVERY;
        let upto = if finished { filled.len() } else { hashed + whole_blocks };
        if upto == hashed && !finished {
            std::thread::park();
            continue;
        }
        for block in filled[hashed..upto].chunks(MARK_EVERY) {
            if stop.load(Ordering::Relaxed) {
                return None;
            }
            marks.push((hashed, state.clone()));
            state.update(block);
            hashed += block.len();
        }
        if finished {
            break;
        }
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
            let hashes = OldHashing::start(Arc::new(Filling::whole(old.clone()))).finish();
            assert_eq!(hashes.before(), sha256_hex(&old));
            assert_eq!(hashes.after(&old, &change), sha256_hex(&applied.result.to_vec()), "{find}");
        }
        let empty = OldHashing::start(Arc::new(Filling::whole(Vec::new()))).finish();
        assert_eq!(empty.before(), sha256_hex(b""));
    }

    #[test]
    fn a_stopped_hashing_is_finished_on_the_callers_thread() {
        let old = vec![b'a'; 3 * MARK_EVERY];
        let hashing = OldHashing::start(Arc::new(Filling::whole(old.clone())));
        hashing.stop.store(true, Ordering::Relaxed);
        assert_eq!(hashing.finish().before(), sha256_hex(&old));
    }
}
