//! How the file operations that have a fast path on one OS are done. The native strategy is
//! the one each OS uses; [`Strategy::portable`] is what macOS and Windows do, selectable on
//! Linux so the crash-safety and no-lost-update tests run against it there too.
//!
//! Chosen in code only ([`crate::kernel::Kernel::with_strategy`]): no environment variable,
//! setting or argument an agent could send changes it.

use std::path::PathBuf;
use std::sync::Arc;

/// How a path beneath a held directory is opened without following a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolve {
    /// One `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` call (Linux 5.6+; a kernel that
    /// lacks it falls back to the walk).
    Beneath,
    /// A component-by-component walk, each step opened `O_NOFOLLOW` (Windows: a handle that
    /// refuses reparse points and cannot be renamed while held).
    // Linux uses it only when a test chooses the portable strategy.
    #[cfg_attr(all(target_os = "linux", not(feature = "internals")), allow(dead_code))]
    Walk,
}

/// How a file is replaced atomically.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replace {
    /// An unnamed `O_TMPFILE` linked in with `linkat` (Linux; a filesystem without it falls back
    /// to a named temp file): a killed writer leaves nothing behind.
    Unnamed,
    /// A named temp file next to the target, renamed over it, then the folder made durable
    /// (Unix: fsync of the folder; Windows: `MoveFileExW` with `MOVEFILE_WRITE_THROUGH`).
    /// Temp files of killed writers are swept by the next write into that folder.
    // Linux uses it only when a test chooses the portable strategy.
    #[cfg_attr(all(target_os = "linux", not(feature = "internals")), allow(dead_code))]
    NamedTemp,
}

/// How writers of one directory are serialised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LockWith {
    /// `flock` on the directory itself (Unix): no lock files.
    Directory,
    /// An exclusive lock (`flock`; Windows `LockFileEx`, which cannot lock a directory) on a
    /// file in this folder named by the SHA-256 of the directory's path (lowercased on
    /// Windows, where paths compare without case).
    // Linux uses it only when a test chooses the portable strategy.
    #[cfg_attr(all(target_os = "linux", not(feature = "internals")), allow(dead_code))]
    KeyedFile(PathBuf),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Strategy {
    pub resolve: Resolve,
    pub replace: Replace,
    pub lock: LockWith,
}

impl Strategy {
    /// What this OS does by default.
    pub fn native() -> Arc<Strategy> {
        #[cfg(target_os = "linux")]
        let native = Strategy { resolve: Resolve::Beneath, replace: Replace::Unnamed, lock: LockWith::Directory };
        #[cfg(all(unix, not(target_os = "linux")))]
        let native = Strategy { resolve: Resolve::Walk, replace: Replace::NamedTemp, lock: LockWith::Directory };
        // %TEMP% is per user, so only this user's rein processes share the lock files.
        #[cfg(windows)]
        let native = Strategy {
            resolve: Resolve::Walk,
            replace: Replace::NamedTemp,
            lock: LockWith::KeyedFile(std::env::temp_dir().join("rein-locks")),
        };
        Arc::new(native)
    }

    /// The ways that work everywhere (what Windows does), lock files kept in `lock_dir`.
    #[cfg_attr(all(target_os = "linux", not(feature = "internals")), allow(dead_code))]
    pub fn portable(lock_dir: PathBuf) -> Arc<Strategy> {
        Arc::new(Strategy { resolve: Resolve::Walk, replace: Replace::NamedTemp, lock: LockWith::KeyedFile(lock_dir) })
    }
}
