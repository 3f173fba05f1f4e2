//! Serialises writers of one directory across threads and processes, so that a
//! read-modify-write (an edit, a write with expected_sha256) never loses an update.
//!
//! The lock is an flock on the parent directory, not on the file: writes replace the file's
//! inode by rename, so a lock held on the old inode would not exclude a writer that opened the
//! new one. A directory keeps its inode, and no lock files are left behind.

use super::dir::Dir;
use crate::kernel::error::KernelError;
use std::fs::File;
use std::os::fd::AsRawFd;

pub struct DirLock {
    _dir: File,
}

/// Locks the directory `dir` is held open at; the lock holds until the result is dropped.
pub fn lock_dir(dir: &Dir) -> Result<DirLock, KernelError> {
    let file = File::from(
        dir.fd().try_clone_to_owned().map_err(|e| KernelError::io("lock", dir.path().display().to_string(), e))?,
    );
    loop {
        // SAFETY: flock on a descriptor we own; the lock is released when `file` is closed.
        let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
        if rc == 0 {
            return Ok(DirLock { _dir: file });
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(KernelError::io("lock", dir.path().display().to_string(), err));
        }
    }
}
