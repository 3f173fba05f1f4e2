//! A directory held open on Unix: every open is relative to its descriptor and refuses links
//! (Linux `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`, else a component-by-component
//! `O_NOFOLLOW` walk). See `files::dir` for why.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::os::fd::OwnedFd;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use super::{Kind, Stat, Strategy};
#[cfg(target_os = "linux")]
use super::{Replace, Resolve};

/// An open directory, the real path it was opened at (for messages), and the strategy its
/// file operations follow (inherited by every directory opened beneath it).
#[derive(Debug)]
pub struct Dir {
    /// Shared by the `Dir`s that [`Dir::reopen`] makes: nothing here depends on an open file
    /// description of its own (a listing opens its own; the lock in `lock.rs` too).
    fd: Arc<OwnedFd>,
    path: PathBuf,
    strategy: Arc<Strategy>,
}

const DIR_FLAGS: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);

impl Dir {
    /// Opens `path` as it is named (no beneath check): for rein's own home and for roots.
    pub fn open_path(path: &Path) -> std::io::Result<Dir> {
        Dir::open_with(path, Strategy::native())
    }

    /// [`Dir::open_path`] with `strategy` for this directory and all opened beneath it.
    pub fn open_with(path: &Path, strategy: Arc<Strategy>) -> std::io::Result<Dir> {
        let fd = rustix::fs::open(path, DIR_FLAGS, Mode::empty())?;
        Ok(Dir { fd: Arc::new(fd), path: path.to_path_buf(), strategy })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The device and inode of the folder held: which folder this is, whatever its path names.
    pub fn identity(&self) -> std::io::Result<(u64, u64)> {
        let stat = rustix::fs::fstat(&*self.fd)?;
        Ok((stat.st_dev as u64, stat.st_ino as u64))
    }

    /// The folder `path` (absolute) names when it is walked from `/` following no link: each
    /// part opened as a real folder entry, so no link anywhere on the way leads elsewhere.
    pub fn open_following_no_link(path: &Path) -> std::io::Result<Dir> {
        let rel = path
            .strip_prefix("/")
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "not an absolute path"))?;
        Dir::open_path(Path::new("/"))?.open_beneath(rel)
    }

    pub fn strategy(&self) -> &Arc<Strategy> {
        &self.strategy
    }

    fn with_fd(&self, fd: OwnedFd, path: PathBuf) -> Dir {
        Dir { fd: Arc::new(fd), path, strategy: self.strategy.clone() }
    }

    /// The directory `rel` (relative, no `..`) beneath this one, following no link.
    pub fn open_beneath(&self, rel: &Path) -> std::io::Result<Dir> {
        if rel.as_os_str().is_empty() {
            return self.reopen();
        }
        #[cfg(target_os = "linux")]
        if self.strategy.resolve == Resolve::Beneath {
            use rustix::fs::ResolveFlags;
            let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
            return match rustix::fs::openat2(&self.fd, rel, DIR_FLAGS, Mode::empty(), resolve) {
                Ok(fd) => Ok(self.with_fd(fd, self.path.join(rel))),
                Err(Errno::NOSYS | Errno::PERM) => self.walk(rel, false),
                Err(e) => Err(loop_means_link(e)),
            };
        }
        self.walk(rel, false)
    }

    /// Like [`Dir::open_beneath`], creating missing directories on the way.
    pub fn create_beneath(&self, rel: &Path) -> std::io::Result<Dir> {
        match self.open_beneath(rel) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => self.walk(rel, true),
            other => other,
        }
    }

    fn walk(&self, rel: &Path, create: bool) -> std::io::Result<Dir> {
        let mut current = self.reopen()?;
        for part in rel.components() {
            let Component::Normal(name) = part else {
                return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a plain relative path"));
            };
            if create {
                match rustix::fs::mkdirat(&current.fd, name, Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(Errno::EXIST) => {}
                    Err(e) => return Err(e.into()),
                }
            }
            let fd = open_dir_nofollow(&current.fd, name)?;
            current = current.with_fd(fd, current.path.join(name));
        }
        Ok(current)
    }

    /// This directory again, sharing its descriptor (a read at the workspace root used to
    /// open `.` and close it again on every call).
    pub fn reopen(&self) -> std::io::Result<Dir> {
        Ok(Dir { fd: self.fd.clone(), path: self.path.clone(), strategy: self.strategy.clone() })
    }

    /// A new open file description of this directory, for a lock of its own.
    pub fn open_description(&self) -> std::io::Result<File> {
        Ok(File::from(rustix::fs::openat(&self.fd, ".", DIR_FLAGS, Mode::empty())?))
    }

    /// Opens entry `name` for reading, refusing a link.
    pub fn open_read(&self, name: &OsStr) -> std::io::Result<File> {
        // Non-blocking, so opening a FIFO does not wait for a writer before it can be refused.
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty()).map_err(loop_means_link)?;
        Ok(File::from(fd))
    }

    /// Creates entry `name` exclusively (never through a link), for writing.
    pub fn create_new(&self, name: &OsStr, mode: u16) -> std::io::Result<File> {
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(mode.into()))?;
        Ok(File::from(fd))
    }

    /// Opens entry `name` for appending, creating it if missing (never through a link).
    pub fn open_append(&self, name: &OsStr, mode: u16) -> std::io::Result<File> {
        let flags = OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd =
            rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(mode.into())).map_err(loop_means_link)?;
        Ok(File::from(fd))
    }

    /// Opens entry `name` to read and write, creating it if missing (never through a link).
    pub fn open_lock_file(&self, name: &OsStr) -> std::io::Result<File> {
        let flags = OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(0o600)).map_err(loop_means_link)?;
        Ok(File::from(fd))
    }

    /// An unnamed file in this directory (O_TMPFILE), where the strategy and the filesystem
    /// allow it.
    pub fn create_unnamed(&self) -> std::io::Result<File> {
        #[cfg(target_os = "linux")]
        if self.strategy.replace == Replace::Unnamed {
            let flags = OFlags::WRONLY | OFlags::TMPFILE | OFlags::CLOEXEC;
            let fd = rustix::fs::openat(&self.fd, ".", flags, Mode::from_raw_mode(0o666))?;
            return Ok(File::from(fd));
        }
        Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "named temp files only"))
    }

    /// Gives the unnamed `file` the name `name` in this directory.
    pub fn link_unnamed(&self, file: &File, name: &OsStr) -> std::io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let from = format!("/proc/self/fd/{}", file.as_raw_fd());
            rustix::fs::linkat(rustix::fs::CWD, from.as_str(), &self.fd, name, AtFlags::SYMLINK_FOLLOW)?;
            Ok(())
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (file, name);
            Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "no unnamed files here"))
        }
    }

    /// Makes entry `name` also be `to_name` in `to` (a hard link; a link is not followed).
    pub fn hard_link(&self, name: &OsStr, to: &Dir, to_name: &OsStr) -> std::io::Result<()> {
        rustix::fs::linkat(&self.fd, name, &to.fd, to_name, AtFlags::empty())?;
        Ok(())
    }

    /// Whether entry `name` is a regular file and its inode's only name (a link count of 1),
    /// without following a link.
    pub fn is_sole_name(&self, name: &OsStr) -> std::io::Result<bool> {
        let stat = rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW)?;
        Ok(FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile && stat.st_nlink == 1)
    }

    /// Renames `from` to `to` in this directory, replacing `to` (never following it).
    pub fn rename(&self, from: &OsStr, to: &OsStr) -> std::io::Result<()> {
        rustix::fs::renameat(&self.fd, from, &self.fd, to)?;
        Ok(())
    }

    pub fn remove_file(&self, name: &OsStr) -> std::io::Result<()> {
        rustix::fs::unlinkat(&self.fd, name, AtFlags::empty())?;
        Ok(())
    }

    /// What entry `name` is, without following a link; None when there is none.
    pub fn kind_of(&self, name: &OsStr) -> std::io::Result<Option<(Kind, u64)>> {
        Ok(self.stat(name)?.map(|stat| (stat.kind, stat.size)))
    }

    /// Entry `name`'s kind, size and change time, without following a link.
    pub fn stat(&self, name: &OsStr) -> std::io::Result<Option<Stat>> {
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => {
                let kind = match FileType::from_raw_mode(stat.st_mode) {
                    FileType::RegularFile => Kind::File,
                    FileType::Directory => Kind::Dir,
                    FileType::Symlink => Kind::Link,
                    _ => Kind::Other,
                };
                let nanos = u32::try_from(stat.st_ctime_nsec).unwrap_or(0);
                let changed = UNIX_EPOCH + Duration::new(stat.st_ctime.max(0) as u64, nanos);
                Ok(Some(Stat { kind, size: stat.st_size.max(0) as u64, changed }))
            }
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The entries' names, unsorted, without `.` and `..`.
    pub fn names(&self) -> std::io::Result<Vec<OsString>> {
        use std::os::unix::ffi::OsStrExt;
        let mut names = Vec::new();
        for entry in rustix::fs::Dir::read_from(&self.fd)? {
            let entry = entry?;
            let name = entry.file_name().to_bytes();
            if name != b"." && name != b".." {
                names.push(OsStr::from_bytes(name).to_os_string());
            }
        }
        Ok(names)
    }

    /// The subdirectory `name`, following no link.
    pub fn child(&self, name: &OsStr) -> std::io::Result<Dir> {
        let fd = open_dir_nofollow(&self.fd, name)?;
        Ok(self.with_fd(fd, self.path.join(name)))
    }

    pub fn create_dir(&self, name: &OsStr) -> std::io::Result<()> {
        rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(0o777))?;
        Ok(())
    }

    /// Makes this directory's entries durable.
    pub fn sync(&self) -> std::io::Result<()> {
        rustix::fs::fsync(&self.fd)?;
        Ok(())
    }
}

/// Opens the folder `name` in `dir`, refusing a link. `O_DIRECTORY | O_NOFOLLOW` on a symlink
/// fails with `ENOTDIR` (Linux) or `ELOOP`; both are reported as the link they are.
fn open_dir_nofollow(dir: &OwnedFd, name: &OsStr) -> std::io::Result<OwnedFd> {
    match rustix::fs::openat(dir, name, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty()) {
        Err(Errno::NOTDIR)
            if rustix::fs::statat(dir, name, AtFlags::SYMLINK_NOFOLLOW)
                .is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Symlink) =>
        {
            Err(super::link_appeared())
        }
        other => other.map_err(loop_means_link),
    }
}

/// `ELOOP` from a `NOFOLLOW` open means a link stood where a file or folder was checked.
fn loop_means_link(err: Errno) -> std::io::Error {
    if err == Errno::LOOP || err == Errno::XDEV {
        super::link_appeared()
    } else {
        err.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walked from `/`: a real path reaches its folder; a link as its last part or above it is
    /// refused, wherever it leads.
    #[test]
    fn a_path_walked_from_the_root_reaches_its_folder_only_with_no_link_on_the_way() {
        let root = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(root.path()).unwrap();
        std::fs::create_dir_all(base.join("real/inner")).unwrap();
        std::os::unix::fs::symlink(base.join("real"), base.join("link")).unwrap();
        let reached = Dir::open_following_no_link(&base.join("real/inner")).unwrap();
        let inner = std::fs::metadata(base.join("real/inner")).unwrap();
        use std::os::unix::fs::MetadataExt;
        assert_eq!(reached.identity().unwrap(), (inner.dev(), inner.ino()));
        for through_link in ["link", "link/inner"] {
            assert!(Dir::open_following_no_link(&base.join(through_link)).is_err(), "{through_link}");
        }
        assert!(Dir::open_following_no_link(Path::new("relative")).is_err());
        assert!(Dir::open_following_no_link(Path::new("/")).is_ok());
    }

    /// Both ways of opening beneath (Linux's openat2 and the walk other Unix use) refuse a
    /// link anywhere on the way, and reach real folders.
    #[test]
    fn both_resolve_strategies_refuse_links_on_the_way() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("real/inner")).unwrap();
        std::os::unix::fs::symlink("real", root.path().join("link")).unwrap();
        for strategy in [Strategy::native(), Strategy::portable(root.path().join("locks"))] {
            let dir = Dir::open_with(root.path(), strategy.clone()).unwrap();
            assert!(dir.open_beneath(Path::new("real/inner")).is_ok(), "{strategy:?}");
            for through_link in ["link", "link/inner"] {
                let err = dir.open_beneath(Path::new(through_link)).unwrap_err();
                assert!(err.to_string().contains("a link appeared"), "{strategy:?} {through_link}: {err}");
            }
            let created = dir.create_beneath(Path::new("made/deeper")).unwrap();
            assert_eq!(created.path(), root.path().join("made/deeper"));
            assert!(dir.create_beneath(Path::new("link/new")).is_err(), "{strategy:?}: never creates through a link");
        }
    }
}
