//! Every call rein makes that differs between Linux, other Unix (macOS) and Windows, each
//! behind one small module, so the rest of the kernel is written once.
//!
//! - `strategy`: the file-operation strategies (a fast path on one OS, a portable way
//!   everywhere), chosen in code; tests on Linux pick the portable ones too
//! - `dir_unix` / `dir_windows`: directories held open, opening beneath them without
//!   following links (the race-free file access of `files::dir`)
//! - `lock`: serialising writers of one directory (flock, or a lock file keyed by the path)
//! - `file_buffers`: buffers for whole files (huge pages for big ones on Linux)
//! - `held_read`: a file read and then copied from inside the kernel, held unchanged in between;
//!   whether anyone holds a file open for writing (the same lease, let go at once)
//!   (Linux: a read lease and `copy_file_range`; elsewhere no hold, the caller writes)
//! - `keep`: what a replaced file keeps (Unix mode and owner; Windows attributes)
//! - `perms`: Unix modes; Windows' read-only attribute and program extensions
//! - `rename_windows`: replacing a file that others hold open (POSIX-semantics rename)
//! - `alive`: whether a process still runs (for temp debris of killed writers)
//! - `process_windows`: a process started to outlive rein (a kept program's holder), known by
//!   its id and creation time, and ended
//! - `tree_linux` / `tree_unix` / `tree_windows`: a spawned program and everything it starts,
//!   stopped as one, nothing left running when it ends (Linux: a keeper process that is the
//!   program's subreaper, `keeper`; macOS: a session and process group; Windows: a Job Object);
//!   `tree` has what they share
//! - `name_watch_linux`: a name appearing anywhere in directory trees (Linux inotify), for the
//!   repositories a confined program plants (`process::planted`)
//! - `signals`: "stop" from the person (SIGINT/SIGTERM/SIGHUP; Ctrl-C/Ctrl-Break/close)
//! - `threads`: a thread's id, and the lowest priority for one rein gave up on
//! - `writeback`: starting the disk write of a file's first bytes while the rest are written
//!
//! Linux is run and tested; macOS and Windows are type-checked in CI (`.ci/cross-check`), see
//! docs/src/platforms.md.

pub mod alive;
#[cfg(unix)]
mod dir_unix;
#[cfg(windows)]
mod dir_windows;
pub mod file_buffers;
pub mod held_read;
pub mod keep;
#[cfg(target_os = "linux")]
mod keeper;
pub mod lock;
#[cfg(target_os = "linux")]
pub mod name_watch_linux;
pub mod os;
pub mod perms;
#[cfg(windows)]
pub mod process_windows;
#[cfg(windows)]
pub(crate) mod rename_windows;
pub mod signals;
pub mod strategy;
pub mod threads;
#[cfg(windows)]
pub mod token_windows;
pub mod tree;
#[cfg(target_os = "linux")]
mod tree_linux;
#[cfg(unix)]
mod tree_unix;
#[cfg(windows)]
mod tree_windows;
pub mod writeback;

#[cfg(unix)]
pub use dir_unix::Dir;
#[cfg(windows)]
pub use dir_windows::Dir;
pub use strategy::{LockWith, Replace, Resolve, Strategy};
#[cfg(target_os = "linux")]
pub use tree_linux::ProcessTree;
#[cfg(unix)]
pub use tree_unix::ExitInfo;
#[cfg(all(unix, not(target_os = "linux")))]
pub use tree_unix::ProcessTree;
#[cfg(windows)]
pub use tree_windows::{join_own_job, ExitInfo, ProcessTree};

/// What a directory entry is, seen without following a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    /// A symbolic link, or on Windows any name-surrogate reparse point (a junction too).
    Link,
    /// A FIFO, socket or device.
    Other,
}

/// An entry's kind, size and when its metadata last changed (Unix ctime; Windows ChangeTime).
#[derive(Debug, Clone, Copy)]
pub struct Stat {
    pub kind: Kind,
    pub size: u64,
    pub changed: std::time::SystemTime,
}

/// What a refused link means to the caller: the path changed after rein checked it.
pub(crate) fn link_appeared() -> std::io::Error {
    std::io::Error::other("a link appeared in the path after rein checked it (the path changed under rein); try again")
}
