//! Atomic, durable file replacement: the target holds either its old bytes or the new ones,
//! whatever happens to the process, and the change survives a power cut once we return.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use crate::kernel::error::KernelError;

/// Temp files carry this marker and the writer's pid, so debris of a killed writer can be
/// told apart from a live writer's file.
const TEMP_MARKER: &str = ".rein-tmp.";

/// What the old file had that the new one must keep.
struct Keep {
    mode: u32,
    uid: u32,
    gid: u32,
}

/// Replaces (or creates) `real` with `content`. Returns whether the file was created.
/// The caller has resolved `real` (no symlinks) and holds the directory lock.
pub fn write_atomic(real: &Path, display: &str, content: &[u8]) -> Result<bool, KernelError> {
    write_atomic_checked(real, display, std::iter::once(content), || Ok(()))
}

/// Like [`write_atomic`] for content given in pieces. `before_commit` runs once the new bytes
/// are durable but not yet visible; if it refuses, the target is left untouched.
pub fn write_atomic_checked<'c>(
    real: &Path,
    display: &str,
    content: impl Iterator<Item = &'c [u8]>,
    before_commit: impl FnOnce() -> Result<(), KernelError>,
) -> Result<bool, KernelError> {
    let dir = real.parent().ok_or_else(|| KernelError::invalid(format!("{display} has no parent directory")))?;
    let keep = match std::fs::metadata(real) {
        Ok(meta) if meta.is_file() => Some(Keep { mode: meta.mode() & 0o7777, uid: meta.uid(), gid: meta.gid() }),
        Ok(meta) => {
            let kind = if meta.is_dir() { "directory" } else { "special file" };
            return Err(KernelError::NotAFile { path: display.to_string(), kind });
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(KernelError::io("inspect", display, e)),
    };
    sweep_debris_once(dir);
    let mut temp = TempFile::create(dir, real)
        .map_err(|e| KernelError::io("create a temporary file in", dir.display().to_string(), e))?;
    fill(&mut temp.file, content, keep.as_ref()).map_err(|e| KernelError::io("write", display, e))?;
    before_commit()?;
    let result = temp.commit(real, keep.is_none()).and_then(|()| sync_dir(dir));
    result.map_err(|e| KernelError::io("write", display, e))?;
    Ok(keep.is_none())
}

/// Creates missing parent directories of `real` (all inside the already-checked scope).
pub fn create_parents(real: &Path, display: &str) -> Result<(), KernelError> {
    match real.parent() {
        Some(dir) if !dir.is_dir() => {
            std::fs::create_dir_all(dir).map_err(|e| KernelError::io("create the directories for", display, e))
        }
        _ => Ok(()),
    }
}

fn fill<'c>(file: &mut File, content: impl Iterator<Item = &'c [u8]>, keep: Option<&Keep>) -> std::io::Result<()> {
    // Buffered, since a replace_all can yield many small pieces; big pieces go straight through.
    let mut out = std::io::BufWriter::with_capacity(1024 * 1024, &mut *file);
    for piece in content {
        out.write_all(piece)?;
    }
    out.flush()?;
    drop(out);
    if let Some(keep) = keep {
        file.set_permissions(std::fs::Permissions::from_mode(keep.mode))?;
        // Only root may give a file away; anyone else keeps their own ownership.
        let _ = std::os::unix::fs::fchown(&*file, Some(keep.uid), Some(keep.gid));
    }
    file.sync_all()
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// A file being written next to its target. Unnamed (O_TMPFILE) where the filesystem allows,
/// so a killed writer leaves nothing; otherwise named, and removed on every error path.
struct TempFile {
    file: File,
    dir: PathBuf,
    named: Option<PathBuf>,
}

impl TempFile {
    fn create(dir: &Path, target: &Path) -> std::io::Result<TempFile> {
        let unnamed = OpenOptions::new().write(true).mode(0o666).custom_flags(libc::O_TMPFILE).open(dir);
        match unnamed {
            Ok(file) => Ok(TempFile { file, dir: dir.to_path_buf(), named: None }),
            Err(_) => {
                let path = temp_name(dir, target);
                let file = OpenOptions::new().write(true).create_new(true).mode(0o666).open(&path)?;
                Ok(TempFile { file, dir: dir.to_path_buf(), named: Some(path) })
            }
        }
    }

    fn commit(&mut self, target: &Path, is_new: bool) -> std::io::Result<()> {
        if self.named.is_none() {
            // A new file can appear under its final name in one step; replacing needs a name
            // to rename from.
            if is_new && link_unnamed(&self.file, target).is_ok() {
                return Ok(());
            }
            let path = temp_name(&self.dir, target);
            link_unnamed(&self.file, &path)?;
            self.named = Some(path);
        }
        let named = self.named.as_ref().expect("named above");
        std::fs::rename(named, target)?;
        self.named = None;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if let Some(path) = &self.named {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn link_unnamed(file: &File, to: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::fd::AsRawFd;
    use std::os::unix::ffi::OsStrExt;
    let from = CString::new(format!("/proc/self/fd/{}", file.as_raw_fd())).expect("no NUL");
    let to = CString::new(to.as_os_str().as_bytes()).map_err(|_| std::io::ErrorKind::InvalidInput)?;
    // SAFETY: both paths are valid NUL-terminated strings that outlive the call.
    let rc =
        unsafe { libc::linkat(libc::AT_FDCWD, from.as_ptr(), libc::AT_FDCWD, to.as_ptr(), libc::AT_SYMLINK_FOLLOW) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

fn temp_name(dir: &Path, target: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    dir.join(format!(".{name}{TEMP_MARKER}{}.{n}", std::process::id()))
}

/// Removes temp files of writers that died before renaming, the first time this process
/// writes into `dir`.
fn sweep_debris_once(dir: &Path) {
    static SWEPT: OnceLock<Mutex<HashSet<PathBuf>>> = OnceLock::new();
    let swept = SWEPT.get_or_init(Default::default);
    if !swept.lock().unwrap_or_else(|e| e.into_inner()).insert(dir.to_path_buf()) {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = debris_owner(&name.to_string_lossy()) else { continue };
        if !process_alive(pid) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

fn debris_owner(name: &str) -> Option<i32> {
    let (_, rest) = name.rsplit_once(TEMP_MARKER)?;
    let (pid, counter) = rest.split_once('.')?;
    counter.parse::<u64>().ok()?;
    pid.parse().ok()
}

fn process_alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_keeps_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("script.sh");
        std::fs::write(&p, b"old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o751)).unwrap();
        assert!(!write_atomic(&p, "script.sh", b"new").unwrap());
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        assert_eq!(std::fs::metadata(&p).unwrap().mode() & 0o7777, 0o751);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "no temp debris");
    }

    #[test]
    fn new_files_get_the_umask_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("new.txt");
        assert!(write_atomic(&p, "new.txt", b"hi").unwrap());
        // SAFETY: reading the umask needs setting it; restore it at once.
        let umask = unsafe {
            let m = libc::umask(0o022);
            libc::umask(m);
            m
        };
        assert_eq!(std::fs::metadata(&p).unwrap().mode() & 0o777, 0o666 & !umask as u32);
    }

    #[test]
    fn debris_of_dead_writers_is_swept() {
        let dir = tempfile::tempdir().unwrap();
        // pid 0x7ffffffe is never a live process on Linux (pid_max is at most 2^22).
        let dead = dir.path().join(format!(".a.txt{TEMP_MARKER}2147483646.7"));
        let live = dir.path().join(format!(".b.txt{TEMP_MARKER}{}.9", std::process::id()));
        std::fs::write(&dead, b"x").unwrap();
        std::fs::write(&live, b"x").unwrap();
        write_atomic(&dir.path().join("c.txt"), "c.txt", b"c").unwrap();
        assert!(!dead.exists());
        assert!(live.exists());
    }

    #[test]
    fn refuses_to_replace_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("d")).unwrap();
        let err = write_atomic(&dir.path().join("d"), "d", b"x").unwrap_err();
        assert!(matches!(err, KernelError::NotAFile { .. }));
    }
}
