//! A directory held open on Windows. Windows has no `openat`, so operations name full paths;
//! what makes that safe is how the directories are held (the technique cap-std uses, see its
//! `tests/windows-open.rs`): every directory from the root down is opened with
//! `FILE_FLAG_OPEN_REPARSE_POINT` (a symlink or junction is opened itself, then refused) and
//! without `FILE_SHARE_DELETE`, so none of them can be renamed, removed or replaced by a link
//! while rein holds it, and the path rein names stays the one it checked.
//!
//! Weaker than Linux, and said so in docs/src/platforms.md: the workspace root's own ancestors
//! are not held; a directory rein holds cannot be renamed by the person either until rein lets
//! go; FIFOs do not exist in Windows folders (named pipes live in `\\.\pipe\`, which the scope
//! refuses), so there is nothing to open without blocking. Type-checked in CI, not run.

use std::ffi::{OsStr, OsString};
use std::fs::{File, OpenOptions};
use std::os::windows::fs::{MetadataExt, OpenOptionsExt};
use std::os::windows::io::AsRawHandle;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use windows_sys::Win32::Storage::FileSystem::{
    FileBasicInfo, GetFileInformationByHandleEx, FILE_ATTRIBUTE_DIRECTORY, FILE_ATTRIBUTE_REPARSE_POINT,
    FILE_BASIC_INFO, FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT, FILE_SHARE_DELETE, FILE_SHARE_READ,
    FILE_SHARE_WRITE,
};

use super::{Kind, Stat, Strategy};

/// `FILE_READ_ATTRIBUTES`: enough to read an entry's times without opening its content.
const READ_ATTRIBUTES: u32 = 0x80;

/// An open directory, the handles of the directories above it up to the root it was opened
/// from (held so none of them can be renamed), its real path, and its strategy.
#[derive(Debug)]
pub struct Dir {
    handle: Arc<File>,
    held: Vec<Arc<File>>,
    path: PathBuf,
    strategy: Arc<Strategy>,
}

impl Dir {
    /// Opens `path` as it is named (no beneath check): for rein's own home and for roots.
    pub fn open_path(path: &Path) -> std::io::Result<Dir> {
        Dir::open_with(path, Strategy::native())
    }

    /// [`Dir::open_path`] with `strategy` for this directory and all opened beneath it.
    pub fn open_with(path: &Path, strategy: Arc<Strategy>) -> std::io::Result<Dir> {
        // The root itself may be reached through links (it was canonicalized by the caller).
        let handle = OpenOptions::new()
            .read(true)
            .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE)
            .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
            .open(path)?;
        if handle.metadata()?.file_attributes() & FILE_ATTRIBUTE_DIRECTORY == 0 {
            return Err(not_a_directory(path));
        }
        Ok(Dir { handle: Arc::new(handle), held: Vec::new(), path: path.to_path_buf(), strategy })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn strategy(&self) -> &Arc<Strategy> {
        &self.strategy
    }

    /// The directory `rel` (relative, no `..`) beneath this one, following no link.
    pub fn open_beneath(&self, rel: &Path) -> std::io::Result<Dir> {
        self.walk(rel, false)
    }

    /// Like [`Dir::open_beneath`], creating missing directories on the way.
    pub fn create_beneath(&self, rel: &Path) -> std::io::Result<Dir> {
        self.walk(rel, true)
    }

    fn walk(&self, rel: &Path, create: bool) -> std::io::Result<Dir> {
        let mut current = self.reopen()?;
        for part in rel.components() {
            let Component::Normal(name) = part else {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a plain relative path"));
            };
            if create {
                match std::fs::create_dir(current.path.join(name)) {
                    Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
                    _ => {}
                }
            }
            current = current.child(name)?;
        }
        Ok(current)
    }

    pub fn reopen(&self) -> std::io::Result<Dir> {
        Ok(Dir {
            handle: self.handle.clone(),
            held: self.held.clone(),
            path: self.path.clone(),
            strategy: self.strategy.clone(),
        })
    }

    /// Opens entry `name` for reading, refusing a link. A folder opens too (Windows opens one
    /// only with `FILE_FLAG_BACKUP_SEMANTICS`), so the caller can tell it is not a file.
    pub fn open_read(&self, name: &OsStr) -> std::io::Result<File> {
        let file = OpenOptions::new()
            .read(true)
            .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)
            .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS)
            .open(self.path.join(name))?;
        refuse_link(file)
    }

    /// Creates entry `name` exclusively (never through a link), for writing. `_mode` is Unix's.
    pub fn create_new(&self, name: &OsStr, _mode: u16) -> std::io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
            .open(self.path.join(name))
    }

    /// Opens entry `name` for appending, creating it if missing (never through a link).
    pub fn open_append(&self, name: &OsStr, _mode: u16) -> std::io::Result<File> {
        let file = OpenOptions::new()
            .append(true)
            .create(true)
            .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
            .open(self.path.join(name))?;
        refuse_link(file)
    }

    /// Opens entry `name` to read and write, creating it if missing (never through a link).
    pub fn open_lock_file(&self, name: &OsStr) -> std::io::Result<File> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
            .open(self.path.join(name))?;
        refuse_link(file)
    }

    /// Windows has no unnamed files: writes use a named temp file.
    pub fn create_unnamed(&self) -> std::io::Result<File> {
        Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "Windows has no unnamed files"))
    }

    pub fn link_unnamed(&self, _file: &File, _name: &OsStr) -> std::io::Result<()> {
        Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "Windows has no unnamed files"))
    }

    /// Makes entry `name` also be `to_name` in `to` (a hard link, NTFS).
    pub fn hard_link(&self, name: &OsStr, to: &Dir, to_name: &OsStr) -> std::io::Result<()> {
        std::fs::hard_link(self.path.join(name), to.path.join(to_name))
    }

    /// Whether entry `name` is a file that no other name shares. Not known here (std keeps the
    /// link count unstable on Windows), so never: the journal copies instead of linking.
    pub fn is_sole_name(&self, _name: &OsStr) -> std::io::Result<bool> {
        Ok(false)
    }

    /// Renames `from` to `to` in this directory, replacing `to` (a link there is replaced, not
    /// followed) even while other handles have it open (`rename_windows`).
    pub fn rename(&self, from: &OsStr, to: &OsStr) -> std::io::Result<()> {
        super::rename_windows::replace(&self.path.join(from), &self.path.join(to))
    }

    /// Removes entry `name`, a read-only one too (a temp file that took a read-only file's
    /// attributes and was never renamed).
    pub fn remove_file(&self, name: &OsStr) -> std::io::Result<()> {
        let path = self.path.join(name);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                let mut permissions = std::fs::symlink_metadata(&path)?.permissions();
                if !permissions.readonly() {
                    return Err(e);
                }
                #[allow(clippy::permissions_set_readonly_false)]
                permissions.set_readonly(false);
                std::fs::set_permissions(&path, permissions)?;
                std::fs::remove_file(&path)
            }
            other => other,
        }
    }

    /// What entry `name` is, without following a link; None when there is none.
    pub fn kind_of(&self, name: &OsStr) -> std::io::Result<Option<(Kind, u64)>> {
        let meta = match std::fs::symlink_metadata(self.path.join(name)) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let kind = if meta.file_type().is_symlink() || meta.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT != 0 {
            Kind::Link
        } else if meta.is_dir() {
            Kind::Dir
        } else if meta.is_file() {
            Kind::File
        } else {
            Kind::Other
        };
        Ok(Some((kind, meta.len())))
    }

    /// Entry `name`'s kind, size and change time (NTFS ChangeTime), without following a link.
    pub fn stat(&self, name: &OsStr) -> std::io::Result<Option<Stat>> {
        let Some((kind, size)) = self.kind_of(name)? else { return Ok(None) };
        let file = OpenOptions::new()
            .access_mode(READ_ATTRIBUTES)
            .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)
            .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS)
            .open(self.path.join(name))?;
        let mut info = FILE_BASIC_INFO::default();
        // SAFETY: `info` is a FILE_BASIC_INFO of the size passed; the handle is open.
        let ok = unsafe {
            GetFileInformationByHandleEx(
                file.as_raw_handle(),
                FileBasicInfo,
                (&mut info as *mut FILE_BASIC_INFO).cast(),
                std::mem::size_of::<FILE_BASIC_INFO>() as u32,
            )
        };
        if ok == 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Some(Stat { kind, size, changed: from_filetime(info.ChangeTime) }))
    }

    /// The entries' names, unsorted.
    pub fn names(&self) -> std::io::Result<Vec<OsString>> {
        std::fs::read_dir(&self.path)?.map(|entry| entry.map(|e| e.file_name())).collect()
    }

    /// The subdirectory `name`, following no link, held so it cannot be renamed.
    pub fn child(&self, name: &OsStr) -> std::io::Result<Dir> {
        let path = self.path.join(name);
        let handle = OpenOptions::new()
            .read(true)
            .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE)
            .custom_flags(FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT)
            .open(&path)?;
        let attributes = handle.metadata()?.file_attributes();
        if attributes & FILE_ATTRIBUTE_REPARSE_POINT != 0 {
            return Err(super::link_appeared());
        }
        if attributes & FILE_ATTRIBUTE_DIRECTORY == 0 {
            return Err(not_a_directory(&path));
        }
        let mut held = self.held.clone();
        held.push(self.handle.clone());
        Ok(Dir { handle: Arc::new(handle), held, path, strategy: self.strategy.clone() })
    }

    pub fn create_dir(&self, name: &OsStr) -> std::io::Result<()> {
        std::fs::create_dir(self.path.join(name))
    }

    /// Nothing to do: a directory cannot be flushed on Windows. A replacement's bytes are
    /// flushed before its rename; the rename and new folders are metadata that NTFS's journal
    /// makes durable (the `MoveFileExW` fallback also asks for `MOVEFILE_WRITE_THROUGH`).
    pub fn sync(&self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `file`, unless it is a reparse point (a symlink or junction met where a file was checked).
fn refuse_link(file: File) -> std::io::Result<File> {
    if file.metadata()?.file_attributes() & FILE_ATTRIBUTE_REPARSE_POINT != 0 {
        return Err(super::link_appeared());
    }
    Ok(file)
}

fn not_a_directory(path: &Path) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::NotADirectory,
        format!("{} is not a directory", crate::visible::shown_path(path)),
    )
}

/// A FILETIME (100 ns since 1601-01-01) as a SystemTime.
fn from_filetime(ticks: i64) -> SystemTime {
    const UNIX_EPOCH_TICKS: i64 = 116_444_736_000_000_000;
    let since_unix = ticks.saturating_sub(UNIX_EPOCH_TICKS).max(0) as u64;
    UNIX_EPOCH + Duration::from_nanos(since_unix.saturating_mul(100))
}
