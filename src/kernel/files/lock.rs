//! Serialises writers of one directory across threads and processes, so that a
//! read-modify-write (an edit, a write with expected_sha256) never loses an update.
//!
//! The lock is on the parent directory, not on the file: writes replace the file by rename, so
//! a lock held on the old file would not exclude a writer that opened the new one. On Unix it
//! is an flock on the directory itself (no lock files are left behind); where a directory
//! cannot be locked (Windows) it is a lock file named by the directory's path, kept outside the
//! workspace (`kernel::platform::lock`).

use super::dir::Dir;
use crate::kernel::error::KernelError;
use crate::kernel::platform::lock::Held;
use crate::visible::shown_path;

pub struct DirLock {
    _held: Held,
}

/// Locks the directory `dir` is held open at; the lock holds until the result is dropped.
pub fn lock_dir(dir: &Dir) -> Result<DirLock, KernelError> {
    let held =
        crate::kernel::platform::lock::lock(dir).map_err(|e| KernelError::io("lock", shown_path(dir.path()), e))?;
    Ok(DirLock { _held: held })
}
