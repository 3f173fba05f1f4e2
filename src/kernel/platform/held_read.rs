//! A file rein reads and then copies from inside the kernel, held so that no one can have
//! written it in between: an edit copies a big file's unchanged bytes from the old file
//! (`copy_file_range`) instead of writing them again from the buffer it read and hashed, which
//! is sound only while the file still holds exactly those bytes.
//!
//! On Linux the hold is a read lease (fcntl(2) `F_SETLEASE`, `F_RDLCK`): the kernel grants it
//! only while no one has the file open for writing (a writable shared mapping counts: it holds
//! such an open file), and anyone who then opens it for writing or truncates it waits until
//! rein lets go, while the lease shows the break (`F_GETLEASE` no longer says `F_RDLCK`). So
//! "still leased, unbroken" after the copy means nothing could have changed the file since the
//! lease was taken, before it was read. Modification times are no such proof: a write within
//! the clock tick of the file's last change leaves them as they were, and `utimensat` sets them
//! back. Elsewhere (macOS, Windows), and wherever the lease is refused (the file open for
//! writing somewhere, owned by another user, a file system without leases), there is no hold
//! and the caller writes from its buffer.

use std::fs::File;

/// The least `lease-break-time` under which a held file is mapped (see [`HeldRead::mappable`]).
pub const MAP_BREAK_SECONDS: u64 = 20;

/// The file an edit read, and whether it is held unchanged since.
#[derive(Debug)]
pub struct HeldRead {
    file: File,
    leased: bool,
}

impl HeldRead {
    /// `file` (open for reading only, not yet read), leased where the OS grants it.
    pub fn lease(file: File) -> HeldRead {
        let leased = lease::take(&file);
        HeldRead { file, leased }
    }

    /// `file` without a hold: copies from it are never trusted.
    pub fn unheld(file: File) -> HeldRead {
        HeldRead { file, leased: false }
    }

    pub fn file(&self) -> &File {
        &self.file
    }

    /// Whether no one can have changed the file since it was leased: the lease is still held
    /// and no one asked to open the file for writing or to truncate it meanwhile.
    pub fn unchanged(&self) -> bool {
        self.leased && lease::unbroken(&self.file)
    }

    /// Whether the file may be mapped and read where it lies: held unchanged, and a program
    /// that asks to truncate it waits long enough (the kernel's `lease-break-time`, 45 s by
    /// default, at least [`MAP_BREAK_SECONDS`]) that no edit still reads the mapping when the
    /// lease is broken by force. A truncated mapping ends its reader with SIGBUS.
    pub fn mappable(&self) -> bool {
        self.unchanged() && lease::break_seconds().is_some_and(|s| s >= MAP_BREAK_SECONDS)
    }

    /// Lets go of the lease: anyone waiting to write the file goes on (the edit lets go by
    /// dropping it; the tests, to show a writer waiting until then).
    #[cfg(test)]
    pub fn release(mut self) {
        self.let_go();
    }

    fn let_go(&mut self) {
        if std::mem::take(&mut self.leased) {
            lease::release(&self.file);
        }
    }
}

impl Drop for HeldRead {
    fn drop(&mut self) {
        self.let_go();
    }
}

/// Whether the OS says no one, rein included, holds `file` (open for reading only) open for
/// writing now (the lease is granted, and let go at once); false when it cannot say. A file's
/// times tell writes through `write(2)` and a writable mapping's first write to a clean page,
/// not its later writes to a page it dirtied already (no fault, no time stamped): a program
/// holding such a mapping when rein read the file can change it afterwards with every time as
/// rein found it. A mapping holds its file open for writing, so a file no one holds so when
/// rein looks can change later only by a write that stamps its times (the scan cache's keys,
/// `host/file_key.rs`).
pub fn held_by_no_writer(file: &File) -> bool {
    let held = lease::take(file);
    if held {
        // A writer waiting on the lease goes on now.
        lease::release(file);
    }
    held
}

/// Whether `file`'s file system stamps a time on every write through a shared mapping made
/// from now on: it write-protects a mapped page until its first write, which stamps the file's
/// times (`page_mkwrite`, each time the page has been written back). tmpfs does not: a page
/// mapped at a read fault is writable at once, and no write through it stamps anything, so a
/// program mapping a file later can change it with every time as it was. Known only of the
/// file systems below (each one's `page_mkwrite` calls `file_update_time`); false elsewhere,
/// an overlay included (its upper layer may be tmpfs).
pub fn stamps_mapped_writes(file: &File) -> bool {
    lease::stamps_mapped_writes(file)
}

/// Copies `len` bytes of `from` at offset `at` to the end of what was written to `to`, inside
/// the kernel. `Unsupported` (and nothing copied) where the OS or the file system has no such
/// copy; the caller then writes the bytes itself.
pub fn copy_range(from: &File, at: u64, len: u64, to: &File) -> std::io::Result<u64> {
    #[cfg(target_os = "linux")]
    {
        let mut offset = at;
        let mut left = len;
        while left > 0 {
            let chunk = usize::try_from(left).unwrap_or(usize::MAX).min(1 << 30);
            match rustix::fs::copy_file_range(from, Some(&mut offset), to, None, chunk) {
                Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                Ok(copied) => left -= copied as u64,
                Err(rustix::io::Errno::INTR) => {}
                // Nothing copied yet: the caller may still write it all itself.
                Err(rustix::io::Errno::XDEV | rustix::io::Errno::INVAL | rustix::io::Errno::OPNOTSUPP)
                    if left == len =>
                {
                    return Err(std::io::ErrorKind::Unsupported.into())
                }
                Err(e) => return Err(e.into()),
            }
        }
        Ok(len)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (from, at, len, to);
        Err(std::io::ErrorKind::Unsupported.into())
    }
}

#[cfg(target_os = "linux")]
mod lease {
    use std::fs::File;
    use std::os::fd::AsRawFd;

    /// fcntl(2)'s `F_SETSIG`: 10 on every Linux architecture (asm-generic/fcntl.h; glibc's
    /// bits/fcntl-linux.h), which the libc crate defines only for a few targets.
    const F_SETSIG: libc::c_int = 10;

    pub fn take(file: &File) -> bool {
        let fd = file.as_raw_fd();
        // SAFETY: fcntl on a descriptor this process owns, with integer arguments only.
        unsafe {
            // A break of the lease signals its holder, with SIGIO unless told otherwise, and
            // SIGIO's default action ends the process: a program opening the file for writing
            // would kill rein. SIGURG's default is to ignore it, and rein sets no handler for it.
            if libc::fcntl(fd, F_SETSIG, libc::SIGURG) != 0 {
                return false;
            }
            if libc::fcntl(fd, libc::F_SETLEASE, libc::F_RDLCK) != 0 {
                return false;
            }
            // Nobody to signal at all: the break is read with F_GETLEASE.
            libc::fcntl(fd, libc::F_SETOWN, 0);
        }
        true
    }

    pub fn unbroken(file: &File) -> bool {
        // SAFETY: as in `take`.
        unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETLEASE) == libc::F_RDLCK }
    }

    pub fn release(file: &File) {
        // SAFETY: as in `take`. A failure leaves a lease the file's close lets go of.
        unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLEASE, libc::F_UNLCK) };
    }

    /// How long a lease breaker waits before the kernel takes the lease away (proc(5)).
    pub fn break_seconds() -> Option<u64> {
        std::fs::read_to_string("/proc/sys/fs/lease-break-time").ok()?.trim().parse().ok()
    }

    /// ext2/3/4, XFS, Btrfs, F2FS (include/uapi/linux/magic.h).
    const STAMPING: [u32; 4] = [0xEF53, 0x5846_5342, 0x9123_683E, 0xF2F5_2010];

    pub fn stamps_mapped_writes(file: &File) -> bool {
        let mut fs = std::mem::MaybeUninit::<libc::statfs>::uninit();
        // SAFETY: fstatfs fills `fs` for a descriptor this process owns; read only on success.
        if unsafe { libc::fstatfs(file.as_raw_fd(), fs.as_mut_ptr()) } != 0 {
            return false;
        }
        // SAFETY: filled by the successful call above.
        let kind = unsafe { fs.assume_init() }.f_type;
        // The magic numbers are 32 bits; f_type is as wide as a long, signed on most targets.
        STAMPING.contains(&(kind as u32))
    }
}

#[cfg(not(target_os = "linux"))]
mod lease {
    use std::fs::File;

    pub fn take(_file: &File) -> bool {
        false
    }

    pub fn unbroken(_file: &File) -> bool {
        false
    }

    pub fn release(_file: &File) {}

    pub fn break_seconds() -> Option<u64> {
        None
    }

    pub fn stamps_mapped_writes(_file: &File) -> bool {
        false
    }
}

#[cfg(test)]
#[cfg(target_os = "linux")]
mod tests {
    use super::*;
    use std::io::Write;
    use std::time::{Duration, Instant};

    fn file_with(bytes: &[u8]) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.txt");
        std::fs::write(&path, bytes).unwrap();
        (dir, path)
    }

    /// A file someone holds open for writing gets no lease: its holder could write it at any
    /// moment without asking.
    #[test]
    fn a_file_open_for_writing_elsewhere_is_not_held() {
        let (_dir, path) = file_with(b"text\n");
        let writer = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        let held = HeldRead::lease(File::open(&path).unwrap());
        assert!(!held.unchanged());
        drop(writer);
        let held = HeldRead::lease(File::open(&path).unwrap());
        assert!(held.unchanged(), "a file nobody writes is held (this test runs as the file's owner)");
    }

    /// A program opening the leased file for writing waits until rein lets go, the lease shows
    /// the break meanwhile, and rein lives on (no SIGIO); the program's write lands after.
    #[test]
    fn opening_a_held_file_for_writing_breaks_the_hold_and_waits_for_its_release() {
        let (_dir, path) = file_with(b"old text\n");
        let held = HeldRead::lease(File::open(&path).unwrap());
        assert!(held.unchanged());
        let writer_path = path.clone();
        let writer = std::thread::spawn(move || {
            let mut file = std::fs::OpenOptions::new().write(true).open(&writer_path).unwrap();
            file.write_all(b"NEW").unwrap();
        });
        let deadline = Instant::now() + Duration::from_secs(10);
        while held.unchanged() {
            assert!(Instant::now() < deadline, "the writer's open never broke the lease");
            std::thread::sleep(Duration::from_millis(1));
        }
        assert_eq!(std::fs::read(&path).unwrap(), b"old text\n", "the writer waits for the release");
        held.release();
        writer.join().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"NEW text\n");
    }

    #[test]
    fn a_file_open_for_writing_or_mapped_writable_elsewhere_is_held_by_a_writer() {
        use std::os::fd::AsRawFd;
        let (_dir, path) = file_with(b"text");
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
        let held = HeldRead::lease(File::open(&path).unwrap());
        assert!(held.unchanged(), "no lease is left behind");
    }

    #[test]
    fn tmpfs_is_not_known_to_stamp_writes_through_a_mapping() {
        let dir = tempfile::tempdir_in("/dev/shm").expect("Linux has a tmpfs at /dev/shm");
        let path = dir.path().join("f.lua");
        std::fs::write(&path, "text").unwrap();
        assert!(!stamps_mapped_writes(&File::open(&path).unwrap()));
    }

    #[test]
    fn a_range_is_copied_inside_the_kernel_from_where_it_lies() {
        let (dir, path) = file_with(b"0123456789");
        let out_path = dir.path().join("out");
        let out = File::create(&out_path).unwrap();
        let from = File::open(&path).unwrap();
        assert_eq!(copy_range(&from, 2, 5, &out).unwrap(), 5);
        (&out).write_all(b"|").unwrap();
        assert_eq!(copy_range(&from, 8, 2, &out).unwrap(), 2);
        assert_eq!(std::fs::read(&out_path).unwrap(), b"23456|89");
    }
}
