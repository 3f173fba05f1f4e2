//! What tells a file's content changed without reading it: its device, inode, size, and
//! modification and change times in nanoseconds. A program can set a file's size and
//! modification time back after rewriting it, but not its change time (the kernel sets it on
//! every write, and on the `utimensat` that puts the modification time back), so a rewritten
//! file gets a new key — except within one tick of the file system's clock (see
//! [`FileKey::settled_before`]), and for writes through a mapping its writer made writable
//! before, or on tmpfs at all (no time is stamped: a key is kept only of a file no one held
//! open for writing as it was read, on a file system known to stamp mapped writes,
//! `kernel::platform::held_read`).
//!
//! Windows gives a file index and the change time only through APIs std has not stabilised
//! (`MetadataExt::file_index`, `change_time`), so there is no key there: every file is read.

use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

/// How long after a file's last change its key is trusted to tell a later change: longer than
/// the coarsest timestamp of a file system rein may run on (FAT keeps 2 s).
pub const SETTLE: Duration = Duration::from_secs(2);

/// A file's identity and version as its metadata gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileKey {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
}

impl FileKey {
    /// The key of the file `meta` describes; None where the platform gives no change time.
    #[cfg(unix)]
    pub fn of(meta: &std::fs::Metadata) -> Option<FileKey> {
        use std::os::unix::fs::MetadataExt;
        let ns = |secs: i64, nanos: i64| secs.saturating_mul(1_000_000_000).saturating_add(nanos);
        Some(FileKey {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
        })
    }

    #[cfg(not(unix))]
    pub fn of(_meta: &std::fs::Metadata) -> Option<FileKey> {
        None
    }

    /// Whether the file had last changed at least [`SETTLE`] before `read_at` (when a reading
    /// of it began), so that the key tells any write after that reading. Git's "racily clean"
    /// case: file systems stamp times from a coarse clock (a jiffy on Linux, 1 s on HFS+, 2 s
    /// on FAT), so a write in the same tick as the one before it leaves every field of the key
    /// as it was; a file that changed within a tick of being read may change again unseen.
    /// A time in the future (a clock set back, a forged modification time) is not settled.
    pub fn settled_before(&self, read_at: SystemTime) -> bool {
        let Ok(since_epoch) = read_at.duration_since(SystemTime::UNIX_EPOCH) else { return false };
        let limit = i64::try_from(since_epoch.saturating_sub(SETTLE).as_nanos()).unwrap_or(i64::MAX);
        self.ctime_ns <= limit && self.mtime_ns <= limit
    }
}

/// Nanoseconds since the epoch of `at` (0 before it).
pub fn epoch_ns(at: SystemTime) -> i64 {
    at.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}

/// The time `ns` nanoseconds after the epoch.
pub fn from_epoch_ns(ns: i64) -> SystemTime {
    let ns = u64::try_from(ns).unwrap_or(0);
    SystemTime::UNIX_EPOCH + Duration::from_nanos(ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(ctime_ns: i64, mtime_ns: i64) -> FileKey {
        FileKey { dev: 1, ino: 2, size: 3, mtime_ns, ctime_ns }
    }

    #[test]
    fn a_key_is_trusted_only_for_a_file_that_changed_well_before_it_was_read() {
        let read_at = from_epoch_ns(100_000_000_000);
        let settle = SETTLE.as_nanos() as i64;
        assert!(key(100_000_000_000 - settle, 0).settled_before(read_at));
        assert!(!key(100_000_000_000 - settle + 1, 0).settled_before(read_at), "changed within the settle");
        assert!(!key(0, 100_000_000_000 - 1).settled_before(read_at), "modified within the settle");
        assert!(!key(200_000_000_000, 0).settled_before(read_at), "changed after the reading");
    }

    #[cfg(unix)]
    #[test]
    fn rewriting_a_file_with_its_size_and_modification_time_put_back_changes_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.lua");
        std::fs::write(&path, "one").unwrap();
        let before = std::fs::metadata(&path).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::io::Write::write_all(&mut &file, b"two").unwrap();
        file.set_modified(before.modified().unwrap()).unwrap();
        drop(file);
        let (old, new) = (FileKey::of(&before).unwrap(), FileKey::of(&std::fs::metadata(&path).unwrap()).unwrap());
        assert_eq!((old.size, old.mtime_ns, old.ino), (new.size, new.mtime_ns, new.ino));
        assert_ne!(old, new, "the change time moved");
    }
}
