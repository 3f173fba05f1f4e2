//! The old content of an edit, in one buffer that the reading thread fills while the hashing
//! thread (`old_hash`) hashes what is already there: SHA-256 of 64 MiB takes ~45 ms even with
//! SHA-NI, longer than reading them, so starting it only after the read put the read on the
//! edit's critical path once the write was copied inside the kernel.
//!
//! Our own code rather than a crate's: the buffer must stay one contiguous allocation (the
//! search, the splice and the diff take it whole) that is shared while it is still written.
//! The rule that makes it sound: one filler writes only past `filled`, and publishes with a
//! release store; readers read only below `filled`, loaded with acquire; the allocation never
//! moves and lives as long as the last `Arc`.

use std::fs::File;
use std::mem::{ManuallyDrop, MaybeUninit};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::Thread;

use crate::kernel::platform::file_buffers;
use crate::kernel::platform::held_read::HeldRead;

/// How much one read takes before the hashing thread is woken (a huge page).
const READ_STEP: usize = 2 << 20;

pub struct Filling {
    start: NonNull<u8>,
    capacity: usize,
    /// Bytes `[0, filled)` are written and never written again.
    filled: AtomicUsize,
    finished: AtomicBool,
    /// Where the bytes are the file itself, mapped: the lease that keeps anyone from
    /// truncating it (which would make reading the mapping kill rein with SIGBUS), let go
    /// only once the mapping is gone.
    mapped: Option<HeldRead>,
}

// SAFETY: the bytes are shared by the rule in the module's comment: written by one filler past
// `filled` only, read below it only.
unsafe impl Send for Filling {}
// SAFETY: as above.
unsafe impl Sync for Filling {}

impl Filling {
    /// Bytes read already, whole: nothing is left to fill.
    pub fn whole(bytes: Vec<u8>) -> Filling {
        let filling = Filling::empty(bytes);
        filling.finished.store(true, Ordering::Release);
        filling
    }

    /// Room for `len` bytes, filled by [`Filling::fill`].
    pub fn with_capacity(len: usize) -> Filling {
        Filling::empty(file_buffers::for_file(len))
    }

    fn empty(bytes: Vec<u8>) -> Filling {
        let mut bytes = ManuallyDrop::new(bytes);
        let (filled, capacity) = (bytes.len(), bytes.capacity());
        let start = NonNull::new(bytes.as_mut_ptr()).expect("a Vec's pointer is never null");
        Filling { start, capacity, filled: AtomicUsize::new(filled), finished: AtomicBool::new(false), mapped: None }
    }

    /// The held file's `len` bytes where they lie in the page cache, mapped read-only: no
    /// fresh buffer for the kernel to zero (for 64 MiB in this VM, 50–100 ms of page faults,
    /// more than the floor's whole edit). Only under a lease that holds off truncation for
    /// long enough (`HeldRead::mappable`); the lease goes with the mapping. `Err(source)`
    /// where it cannot be mapped.
    pub fn map(source: HeldRead, len: usize) -> Result<Filling, HeldRead> {
        if len == 0 || !source.mappable() {
            return Err(source);
        }
        match map_read_only(source.file(), len) {
            Some(start) => Ok(Filling {
                start,
                capacity: len,
                filled: AtomicUsize::new(len),
                finished: AtomicBool::new(true),
                mapped: Some(source),
            }),
            None => Err(source),
        }
    }

    /// The lease of a mapped file.
    pub fn held(&self) -> Option<&HeldRead> {
        self.mapped.as_ref()
    }

    /// Reads `file` into the room left, waking `reader` after every step, until its end or the
    /// room's. Whether the file ended within the room. Called once, by the one thread that
    /// made this `Filling` (private to this module's callers in `edit`).
    pub(super) fn fill(&self, file: &File, reader: &Thread) -> std::io::Result<bool> {
        let result = self.fill_steps(file, reader);
        self.finished.store(true, Ordering::Release);
        reader.unpark();
        result
    }

    fn fill_steps(&self, file: &File, reader: &Thread) -> std::io::Result<bool> {
        loop {
            let filled = self.filled.load(Ordering::Relaxed);
            if filled == self.capacity {
                return file_buffers::at_end(file);
            }
            let step = (self.capacity - filled).min(READ_STEP);
            // SAFETY: `[filled, filled + step)` lies inside the allocation, past `filled`, where
            // only this filler writes and no reader looks.
            let room = unsafe {
                std::slice::from_raw_parts_mut(self.start.as_ptr().add(filled).cast::<MaybeUninit<u8>>(), step)
            };
            let read = file_buffers::read_into(file, room)?;
            if read == 0 {
                return Ok(true);
            }
            self.filled.store(filled + read, Ordering::Release);
            reader.unpark();
        }
    }

    /// The bytes filled so far, and whether that is all of them.
    pub fn so_far(&self) -> (&[u8], bool) {
        let finished = self.finished.load(Ordering::Acquire);
        let filled = self.filled.load(Ordering::Acquire);
        // SAFETY: `[0, filled)` is written and never written again.
        (unsafe { std::slice::from_raw_parts(self.start.as_ptr(), filled) }, finished)
    }
}

impl std::ops::Deref for Filling {
    type Target = [u8];

    /// All the bytes, once filled (what is there so far before).
    fn deref(&self) -> &[u8] {
        self.so_far().0
    }
}

impl Drop for Filling {
    fn drop(&mut self) {
        if let Some(lease) = self.mapped.take() {
            unmap(self.start, self.capacity);
            // Only now: nothing reads the file's pages any more.
            drop(lease);
            return;
        }
        let filled = *self.filled.get_mut();
        // SAFETY: the allocation came from a Vec of this capacity; `[0, filled)` is initialized.
        drop(unsafe { Vec::from_raw_parts(self.start.as_ptr(), filled, self.capacity) });
    }
}

#[cfg(unix)]
fn map_read_only(file: &File, len: usize) -> Option<NonNull<u8>> {
    use std::os::fd::AsRawFd;
    // SAFETY: a new read-only shared mapping of an open file, placed by the kernel; nothing
    // else refers to its range.
    let at = unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_SHARED, file.as_raw_fd(), 0) };
    if at == libc::MAP_FAILED {
        return None;
    }
    NonNull::new(at.cast::<u8>())
}

#[cfg(not(unix))]
fn map_read_only(_file: &File, _len: usize) -> Option<NonNull<u8>> {
    None
}

#[cfg(unix)]
fn unmap(start: NonNull<u8>, len: usize) {
    // SAFETY: the mapping `map_read_only` made, of this length, which nothing reads any more
    // (the last `Arc` of its `Filling` is being dropped).
    unsafe { libc::munmap(start.as_ptr().cast(), len) };
}

#[cfg(not(unix))]
fn unmap(_start: NonNull<u8>, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_filled_in_steps_and_a_reader_sees_only_what_is_filled() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let bytes: Vec<u8> = (0..5 * READ_STEP + 3).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let filling = std::sync::Arc::new(Filling::with_capacity(bytes.len()));
        let shared = filling.clone();
        let reader = std::thread::spawn(move || loop {
            let (seen, finished) = shared.so_far();
            assert!(seen.iter().enumerate().all(|(i, b)| *b == (i % 251) as u8));
            if finished {
                return seen.len();
            }
            std::thread::park();
        });
        assert!(filling.fill(&File::open(&path).unwrap(), reader.thread()).unwrap());
        assert_eq!(reader.join().unwrap(), bytes.len());
        assert_eq!(&filling[..], &bytes[..]);
    }

    #[test]
    fn a_file_longer_than_the_room_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, b"0123456789").unwrap();
        let filling = Filling::with_capacity(4);
        assert!(!filling.fill(&File::open(&path).unwrap(), &std::thread::current()).unwrap());
        assert_eq!(&filling[..4], b"0123");
        let whole = Filling::whole(b"abc".to_vec());
        assert_eq!((&whole[..], whole.so_far().1), (&b"abc"[..], true));
    }

    /// A held file is read where it lies; a program truncating it meanwhile (which would make
    /// reading the mapping kill rein with SIGBUS) waits until the mapping is gone.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_mapped_file_cannot_be_truncated_until_the_mapping_is_gone() {
        use std::time::{Duration, Instant};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let bytes: Vec<u8> = (0..3 * READ_STEP).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &bytes).unwrap();
        let held = HeldRead::lease(File::open(&path).unwrap());
        assert!(held.mappable(), "this test runs as the file's owner, with the default lease-break-time");
        let Ok(mapped) = Filling::map(held, bytes.len()) else { panic!("a held file is mapped") };
        let truncating = path.clone();
        let writer = std::thread::spawn(move || drop(File::options().write(true).truncate(true).open(&truncating)));
        let deadline = Instant::now() + Duration::from_secs(10);
        while mapped.held().is_some_and(HeldRead::unchanged) {
            assert!(Instant::now() < deadline, "the truncating open never broke the lease");
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(&mapped[..], &bytes[..], "every mapped byte is there while the truncation waits");
        drop(mapped);
        writer.join().unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 0, "the truncation went on once the mapping was gone");
    }
}
