//! Whether anyone holds a file open for writing: a file's times tell writes made through
//! `write(2)` and through a writable mapping's first write to a clean page, but not the later
//! writes through a page its writer dirtied already (no fault, no time stamped). A program that
//! held such a mapping while rein read the file can change the file afterwards while its key
//! (`host/file_key.rs`) stays as rein found it. A mapping holds its file open for writing, so a
//! file no one holds so when rein looks can change later only by a write that stamps its times.
//!
//! On Linux the kernel tells it by granting a read lease (fcntl(2) `F_SETLEASE`, `F_RDLCK`:
//! refused while the file is open for writing anywhere, a writable shared mapping included),
//! which is let go at once. Elsewhere, and wherever the lease is refused for another reason
//! (the file owned by another user, a file system without leases), the answer is "maybe held".
//! (The edit's hold of a file it copies from, `held_read` on the edit-speed branch, takes the
//! same lease and keeps it.)

use std::fs::File;

/// Whether the OS says no one, rein included, holds `file` (open for reading only) open for
/// writing now; false when it cannot say.
pub fn held_by_no_writer(file: &File) -> bool {
    imp::held_by_no_writer(file)
}

#[cfg(target_os = "linux")]
mod imp {
    use std::fs::File;
    use std::os::fd::AsRawFd;

    /// fcntl(2)'s `F_SETSIG`: 10 on every Linux architecture (asm-generic/fcntl.h; glibc's
    /// bits/fcntl-linux.h), which the libc crate defines only for a few targets.
    const F_SETSIG: libc::c_int = 10;

    pub fn held_by_no_writer(file: &File) -> bool {
        let fd = file.as_raw_fd();
        // SAFETY: fcntl on a descriptor the caller owns, with integer arguments only.
        unsafe {
            // A break of the lease signals its holder, with SIGIO unless told otherwise, and
            // SIGIO's default action ends the process: a program opening the file for writing
            // in the moment the lease is held would kill rein. SIGURG's default is to ignore
            // it, and rein sets no handler for it.
            if libc::fcntl(fd, F_SETSIG, libc::SIGURG) != 0 {
                return false;
            }
            if libc::fcntl(fd, libc::F_SETLEASE, libc::F_RDLCK) != 0 {
                return false;
            }
            // A writer waiting on the lease goes on now. A failure leaves a lease the file's
            // close lets go of.
            libc::fcntl(fd, libc::F_SETLEASE, libc::F_UNLCK);
        }
        true
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    pub fn held_by_no_writer(_file: &std::fs::File) -> bool {
        false
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_file_open_for_writing_or_mapped_writable_elsewhere_is_held() {
        use std::os::fd::AsRawFd;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.lua");
        std::fs::write(&path, "text").unwrap();
        assert!(held_by_no_writer(&File::open(&path).unwrap()), "this test runs as the file's owner");
        let writer = std::fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
        assert!(!held_by_no_writer(&File::open(&path).unwrap()));
        // SAFETY: a shared mapping of the 4-byte file, unmapped below.
        let map = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                4,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                writer.as_raw_fd(),
                0,
            )
        };
        assert_ne!(map, libc::MAP_FAILED);
        drop(writer);
        assert!(!held_by_no_writer(&File::open(&path).unwrap()), "the mapping holds it open for writing");
        // SAFETY: the mapping made above.
        unsafe { libc::munmap(map, 4) };
        assert!(held_by_no_writer(&File::open(&path).unwrap()));
    }
}
