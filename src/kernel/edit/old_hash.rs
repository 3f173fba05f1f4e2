//! The sha256 of an edit's old and new content. The old content is hashed in one pass that
//! follows its read (`filling`), on a thread of its own beside the read, the search, the diff
//! and the write (hashing 64 MiB takes ~45 ms even with SHA-NI, longer than reading them). The
//! pass keeps SHA-256's state every MiB, and shares each as it is made: the new content's hash
//! resumes from the last state before the first changed byte, on the thread that asks for it,
//! as soon as the old hash has passed there. For a change near the end nothing is hashed twice;
//! for one near the start the new content's hash (of the bytes after the change, which differ
//! in state if not in content) runs beside the old one's instead of after it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use sha2::{Digest, Sha256};

use super::change::Change;
use super::filling::Filling;

/// How often the state is kept: the new content's hash re-reads at most this much of the old.
const MARK_EVERY: usize = 1 << 20;

/// The old content's hash being computed.
pub struct OldHashing {
    bytes: Arc<Filling>,
    progress: Arc<Progress>,
    /// None where no thread could be started: hashed on the caller's thread when asked.
    thread: Option<JoinHandle<()>>,
}

/// What the hashing thread has done so far, shared with those waiting for it.
#[derive(Default)]
struct Progress {
    hashed: Mutex<Hashed>,
    moved: Condvar,
    stop: AtomicBool,
}

#[derive(Default)]
struct Hashed {
    /// `(offset, state after hashing bytes[..offset])`, ascending from 0.
    marks: Vec<(usize, Sha256)>,
    /// The old content's sha256, once all of it is hashed.
    before: Option<String>,
    /// The thread stopped (or never ran): whoever asks hashes on their own thread.
    given_up: bool,
}

impl OldHashing {
    /// Starts hashing `bytes` beside the caller, as far as they are filled, and on as they are
    /// (the filler wakes [`OldHashing::thread`]).
    pub fn start(bytes: Arc<Filling>) -> OldHashing {
        let progress = Arc::new(Progress::default());
        let (shared, told) = (bytes.clone(), progress.clone());
        let thread =
            std::thread::Builder::new().name("rein-edit-hash".into()).spawn(move || hash_old(&shared, &told)).ok();
        if thread.is_none() {
            progress.lock().given_up = true;
        }
        OldHashing { bytes, progress, thread }
    }

    /// The thread to wake when more bytes are filled (the caller's own where none could be
    /// started: it hashes them when asked).
    pub fn thread(&self) -> std::thread::Thread {
        self.thread.as_ref().map_or_else(std::thread::current, |t| t.thread().clone())
    }

    /// Lowercase hex sha256 of the old content, once all of it is hashed.
    pub fn before(&self) -> String {
        let hashed = self.progress.wait_until(|h| h.before.is_some() || h.given_up);
        match &hashed.before {
            Some(before) => before.clone(),
            None => {
                drop(hashed);
                self.on_this_thread()
            }
        }
    }

    /// Lowercase hex sha256 of the new content `change` makes of `old` (these bytes), resumed
    /// from the old hash's last state before the change as soon as there is one.
    pub fn after(&self, old: &[u8], change: &Change) -> String {
        let wanted = change.prefix / MARK_EVERY * MARK_EVERY;
        let hashed = self
            .progress
            .wait_until(|h| h.before.is_some() || h.given_up || h.marks.last().is_some_and(|(at, _)| *at >= wanted));
        let resumed = hashed.marks.iter().rev().find(|(at, _)| *at <= change.prefix).cloned();
        let (from, state) = match (resumed, hashed.given_up && hashed.before.is_none()) {
            (Some(mark), false) => mark,
            _ => {
                drop(hashed);
                self.on_this_thread();
                let hashed = self.progress.lock();
                hashed.marks.iter().rev().find(|(at, _)| *at <= change.prefix).cloned().expect("a mark at 0")
            }
        };
        let mut new = state;
        new.update(&old[from..change.prefix]);
        new.update(&change.middle);
        new.update(&old[old.len() - change.suffix..]);
        hex(new)
    }

    /// The old content hashed on the caller's thread, where the hashing thread gave up (or was
    /// never started).
    fn on_this_thread(&self) -> String {
        let done = hash_with_marks(&self.bytes, &AtomicBool::new(false), |_| ());
        let before = done.before.clone().expect("never stopped");
        *self.progress.lock() = done;
        before
    }
}

impl Drop for OldHashing {
    /// An edit refused before its hashes are needed stops the thread at its next MiB.
    fn drop(&mut self) {
        self.progress.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = &self.thread {
            thread.thread().unpark();
        }
    }
}

impl Progress {
    fn lock(&self) -> MutexGuard<'_, Hashed> {
        self.hashed.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait_until(&self, ready: impl Fn(&Hashed) -> bool) -> MutexGuard<'_, Hashed> {
        let hashed = self.lock();
        self.moved.wait_while(hashed, |h| !ready(h)).unwrap_or_else(|e| e.into_inner())
    }
}

/// The hashing thread: hashes `bytes` as they are filled, sharing every mark as it is made.
fn hash_old(bytes: &Filling, progress: &Progress) {
    // Whatever ends this thread, those waiting for it are told (a panic included: they would
    // wait forever, and hash on their own thread instead).
    struct Tell<'p>(&'p Progress, Option<String>);
    impl Drop for Tell<'_> {
        fn drop(&mut self) {
            let mut hashed = self.0.lock();
            hashed.given_up = self.1.is_none();
            hashed.before = self.1.take();
            drop(hashed);
            self.0.moved.notify_all();
        }
    }
    let mut told = Tell(progress, None);
    let tell = |mark: (usize, Sha256)| {
        progress.lock().marks.push(mark);
        progress.moved.notify_all();
    };
    told.1 = hash_with_marks(bytes, &progress.stop, tell).before;
}

/// Hashes `bytes` a MiB at a time as they are filled, waiting (parked) for the filler, and
/// hands each mark to `tell` as it is made. What it hashed (no `before` where `stop` ended it).
fn hash_with_marks(bytes: &Filling, stop: &AtomicBool, mut tell: impl FnMut((usize, Sha256))) -> Hashed {
    let mut state = Sha256::new();
    let mut marks = Vec::new();
    let mut hashed = 0;
    let mut mark = |at: usize, state: &Sha256| {
        marks.push((at, state.clone()));
        tell((at, state.clone()));
    };
    loop {
        if stop.load(Ordering::Relaxed) {
            return Hashed::default();
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
                return Hashed::default();
            }
            mark(hashed, &state);
            state.update(block);
            hashed += block.len();
        }
        if finished {
            break;
        }
    }
    if hashed == 0 {
        mark(0, &state);
    }
    Hashed { marks, before: Some(hex(state)), given_up: false }
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
            let hashing = OldHashing::start(Arc::new(Filling::whole(old.clone())));
            // Asked for first, as an edit may, before the old content is hashed.
            assert_eq!(hashing.after(&old, &change), sha256_hex(&applied.result.to_vec()), "{find}");
            assert_eq!(hashing.before(), sha256_hex(&old));
        }
        let empty = OldHashing::start(Arc::new(Filling::whole(Vec::new())));
        assert_eq!(empty.before(), sha256_hex(b""));
    }

    /// Bytes added after the last one of a file of whole MiBs: the change starts where no
    /// mark is (past the last), and the new hash waits for the old one's end, not forever.
    #[test]
    fn the_new_hash_of_bytes_added_at_the_end_of_whole_mibs_resumes_from_the_last_mark() {
        let mut old = vec![b'a'; 2 * MARK_EVERY - 3];
        old.extend_from_slice(b"END");
        let edits = [("END", "ENDX"), ("ENDX", "ENDXY")].map(|(find, with)| Edit {
            old_string: find.into(),
            new_string: with.into(),
            replace_all: false,
        });
        let applied = apply_edits("f", &old, &edits).unwrap();
        let change = Change::of(&old, &applied.result);
        assert_eq!(change.prefix, old.len());
        let hashing = OldHashing::start(Arc::new(Filling::whole(old.clone())));
        assert_eq!(hashing.after(&old, &change), sha256_hex(&applied.result.to_vec()));
        assert_eq!(hashing.before(), sha256_hex(&old));
    }

    #[test]
    fn a_stopped_hashing_is_finished_on_the_callers_thread() {
        let mut old = vec![b'a'; 3 * MARK_EVERY];
        old[MARK_EVERY + 5] = b'b';
        let applied =
            apply_edits("f", &old, &[Edit { old_string: "b".into(), new_string: "c".into(), replace_all: false }]);
        let applied = applied.unwrap();
        let change = Change::of(&old, &applied.result);
        for ask_after_first in [false, true] {
            let hashing = OldHashing::start(Arc::new(Filling::whole(old.clone())));
            hashing.progress.stop.store(true, Ordering::Relaxed);
            let after = ask_after_first.then(|| hashing.after(&old, &change));
            assert_eq!(hashing.before(), sha256_hex(&old));
            let after = after.unwrap_or_else(|| hashing.after(&old, &change));
            assert_eq!(after, sha256_hex(&applied.result.to_vec()));
        }
    }
}
