//! An exclusive lock that serialises the writers of one directory across threads and
//! processes: `flock` on the directory itself (Unix), or a lock file named by the directory's
//! path (Windows, whose `LockFileEx` cannot lock a directory; selectable on Linux for tests).

use std::ffi::OsString;
use std::fs::File;
use std::path::Path;

use super::{Dir, LockWith};

/// Holds the lock until dropped (closing the file releases it).
#[derive(Debug)]
pub struct Held {
    _file: File,
}

/// Locks the directory `dir` is held open at, waiting for other holders.
pub fn lock(dir: &Dir) -> std::io::Result<Held> {
    let file = match &dir.strategy().lock {
        LockWith::Directory => directory_handle(dir)?,
        LockWith::KeyedFile(lock_dir) => {
            std::fs::create_dir_all(lock_dir)?;
            Dir::open_path(lock_dir)?.open_lock_file(&key(dir.path()))?
        }
    };
    lock_exclusive(&file)?;
    Ok(Held { _file: file })
}

/// The lock file's name for `path`: its SHA-256, so any path maps to one plain name. Windows
/// compares paths without case, so its key is of the lowercased path.
pub fn key(path: &Path) -> OsString {
    let text = path.to_string_lossy();
    let text = if cfg!(windows) { text.to_lowercase() } else { text.into_owned() };
    OsString::from(format!("{}.lock", crate::kernel::digest::sha256_hex(text.as_bytes())))
}

#[cfg(unix)]
fn directory_handle(dir: &Dir) -> std::io::Result<File> {
    // flock locks belong to an open file description, and `Dir`s opened from one another
    // share theirs: a duplicate would let two writers both "hold" the lock.
    dir.open_description()
}

#[cfg(windows)]
fn directory_handle(_dir: &Dir) -> std::io::Result<File> {
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "Windows cannot lock a directory; use a keyed lock file"))
}

#[cfg(unix)]
fn lock_exclusive(file: &File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: flock on a descriptor we own; the lock is released when `file` is closed.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

#[cfg(windows)]
fn lock_exclusive(file: &File) -> std::io::Result<()> {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Storage::FileSystem::{LockFileEx, LOCKFILE_EXCLUSIVE_LOCK};
    use windows_sys::Win32::System::IO::OVERLAPPED;
    let mut overlapped = OVERLAPPED::default();
    // SAFETY: locks the whole range of a handle we own (synchronous: no FILE_FLAG_OVERLAPPED, so
    // the call waits); released when the handle is closed.
    let ok =
        unsafe { LockFileEx(file.as_raw_handle(), LOCKFILE_EXCLUSIVE_LOCK, 0, u32::MAX, u32::MAX, &mut overlapped) };
    if ok == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// How a lock is held: by one holder, or by many together (that exclude an exclusive one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Exclusive,
    Shared,
}

/// Takes a lock on `file` without waiting: false when another open file holds a conflicting
/// one (in this process too). The lock lasts until `file` is closed, also when its process
/// dies.
#[cfg(unix)]
pub fn try_lock(file: &File, mode: Mode) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    let op = match mode {
        Mode::Exclusive => libc::LOCK_EX,
        Mode::Shared => libc::LOCK_SH,
    } | libc::LOCK_NB;
    loop {
        // SAFETY: flock on a descriptor we own; the lock is released when `file` is closed.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
            return Ok(true);
        }
        let err = std::io::Error::last_os_error();
        match err.raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EWOULDBLOCK) => return Ok(false),
            _ => return Err(err),
        }
    }
}

/// Takes a lock on `file` without waiting: false when another handle holds a conflicting one.
/// The lock lasts until `file` is closed, also when its process dies.
#[cfg(windows)]
pub fn try_lock(file: &File, mode: Mode) -> std::io::Result<bool> {
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Foundation::ERROR_LOCK_VIOLATION;
    use windows_sys::Win32::Storage::FileSystem::{LockFileEx, LOCKFILE_EXCLUSIVE_LOCK, LOCKFILE_FAIL_IMMEDIATELY};
    use windows_sys::Win32::System::IO::OVERLAPPED;
    let flags = match mode {
        Mode::Exclusive => LOCKFILE_EXCLUSIVE_LOCK,
        Mode::Shared => 0,
    } | LOCKFILE_FAIL_IMMEDIATELY;
    let mut overlapped = OVERLAPPED::default();
    // SAFETY: locks the whole range of a handle we own, failing at once when it is taken;
    // released when the handle is closed.
    let ok = unsafe { LockFileEx(file.as_raw_handle(), flags, 0, u32::MAX, u32::MAX, &mut overlapped) };
    if ok != 0 {
        return Ok(true);
    }
    let err = std::io::Error::last_os_error();
    if err.raw_os_error() == Some(ERROR_LOCK_VIOLATION as i32) {
        return Ok(false);
    }
    Err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_plain_names_that_differ_by_path() {
        let a = key(Path::new("/ws/a"));
        let b = key(Path::new("/ws/b"));
        assert_ne!(a, b);
        assert_eq!(a, key(Path::new("/ws/a")));
        let a = a.to_string_lossy();
        assert!(a.ends_with(".lock") && a.len() == 64 + 5 && !a.contains('/'), "{a}");
    }

    #[cfg(unix)]
    #[test]
    fn two_dirs_opened_from_one_another_still_exclude_each_other() {
        use std::sync::mpsc;
        use std::time::Duration;
        let tmp = tempfile::tempdir().unwrap();
        let root = Dir::open_path(tmp.path()).unwrap();
        let (first, second) = (root.reopen().unwrap(), root.reopen().unwrap());
        let held = lock(&first).unwrap();
        let (locked, seen) = mpsc::channel();
        let waiter = std::thread::spawn(move || {
            let _second = lock(&second).unwrap();
            locked.send(()).unwrap();
        });
        assert!(
            seen.recv_timeout(Duration::from_millis(300)).is_err(),
            "the second writer got the lock while the first held it"
        );
        drop(held);
        seen.recv_timeout(Duration::from_secs(10)).expect("the second writer gets the lock once it is free");
        waiter.join().unwrap();
    }
}
