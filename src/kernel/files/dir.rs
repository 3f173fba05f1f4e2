//! Directories held open, so that a path checked once cannot be swapped under rein. Every
//! workspace read, write, edit, list and pre-image goes through a [`Dir`] opened from the
//! workspace root without following any link (Linux `openat2` with `RESOLVE_BENEATH |
//! RESOLVE_NO_SYMLINKS`, else a component-by-component `O_NOFOLLOW` walk), and then names one
//! entry in it. The scope resolved every link the caller was allowed to follow first, so a link
//! met here appeared after the check: the operation fails instead of following it.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;

/// An open directory and the real path it was opened at (for messages and `/proc` links).
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
    path: PathBuf,
}

const DIR_FLAGS: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);

impl Dir {
    /// Opens `path` as it is named (no beneath check): for rein's own home and for roots.
    pub fn open_path(path: &Path) -> std::io::Result<Dir> {
        let fd = rustix::fs::open(path, DIR_FLAGS, Mode::empty())?;
        Ok(Dir { fd, path: path.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory `rel` (relative, no `..`) beneath this one, following no link.
    pub fn open_beneath(&self, rel: &Path) -> std::io::Result<Dir> {
        if rel.as_os_str().is_empty() {
            return self.reopen();
        }
        let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        match rustix::fs::openat2(&self.fd, rel, DIR_FLAGS, Mode::empty(), resolve) {
            Ok(fd) => Ok(Dir { fd, path: self.path.join(rel) }),
            Err(Errno::NOSYS | Errno::PERM) => self.walk(rel, false),
            Err(e) => Err(loop_means_link(e)),
        }
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
            let fd = rustix::fs::openat(&current.fd, name, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty())
                .map_err(loop_means_link)?;
            current = Dir { fd, path: current.path.join(name) };
        }
        Ok(current)
    }

    pub fn reopen(&self) -> std::io::Result<Dir> {
        let fd = rustix::fs::openat(&self.fd, ".", DIR_FLAGS, Mode::empty())?;
        Ok(Dir { fd, path: self.path.clone() })
    }

    /// Opens entry `name` for reading, refusing a link.
    pub fn open_read(&self, name: &OsStr) -> std::io::Result<File> {
        // Non-blocking, so opening a FIFO does not wait for a writer before it can be refused.
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty()).map_err(loop_means_link)?;
        Ok(File::from(fd))
    }

    /// Creates entry `name` exclusively (never through a link), for writing.
    pub fn create_new(&self, name: &OsStr, mode: u32) -> std::io::Result<File> {
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(mode))?;
        Ok(File::from(fd))
    }

    /// An unnamed file in this directory (O_TMPFILE), where the filesystem allows it.
    pub fn create_unnamed(&self) -> std::io::Result<File> {
        let flags = OFlags::WRONLY | OFlags::TMPFILE | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, ".", flags, Mode::from_raw_mode(0o666))?;
        Ok(File::from(fd))
    }

    /// Gives the unnamed `file` the name `name` in this directory.
    pub fn link_unnamed(&self, file: &File, name: &OsStr) -> std::io::Result<()> {
        let from = format!("/proc/self/fd/{}", file.as_raw_fd());
        rustix::fs::linkat(rustix::fs::CWD, from.as_str(), &self.fd, name, AtFlags::SYMLINK_FOLLOW)?;
        Ok(())
    }

    /// Makes entry `name` also be `to_name` in `to` (a hard link; a link is not followed).
    pub fn hard_link(&self, name: &OsStr, to: &Dir, to_name: &OsStr) -> std::io::Result<()> {
        rustix::fs::linkat(&self.fd, name, &to.fd, to_name, AtFlags::empty())?;
        Ok(())
    }

    pub fn rename(&self, from: &OsStr, to: &OsStr) -> std::io::Result<()> {
        rustix::fs::renameat(&self.fd, from, &self.fd, to)?;
        Ok(())
    }

    pub fn remove_file(&self, name: &OsStr) -> std::io::Result<()> {
        rustix::fs::unlinkat(&self.fd, name, AtFlags::empty())?;
        Ok(())
    }

    /// What entry `name` is, without following a link; None when there is none.
    pub fn kind_of(&self, name: &OsStr) -> std::io::Result<Option<(FileType, u64)>> {
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(Some((FileType::from_raw_mode(stat.st_mode), stat.st_size as u64))),
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
        let fd =
            rustix::fs::openat(&self.fd, name, DIR_FLAGS | OFlags::NOFOLLOW, Mode::empty()).map_err(loop_means_link)?;
        Ok(Dir { fd, path: self.path.join(name) })
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

    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// `ELOOP` from a `NOFOLLOW` open means a link stood where a file or folder was checked.
fn loop_means_link(err: Errno) -> std::io::Error {
    if err == Errno::LOOP || err == Errno::XDEV {
        std::io::Error::other(
            "a link appeared in the path after rein checked it (the path changed under rein); try again",
        )
    } else {
        err.into()
    }
}

/// One entry of a directory held open: where a file operation acts.
#[derive(Debug)]
pub struct Place {
    pub dir: Dir,
    pub name: OsString,
}

impl Place {
    /// The entry `path` names, its folder opened as named (no beneath check): for rein's own
    /// files in home, and for tests.
    pub fn of_path(path: &Path) -> std::io::Result<Place> {
        let (parent, name) = split(path)?;
        Ok(Place { dir: Dir::open_path(parent)?, name: name.to_os_string() })
    }

    /// The entry `real` names, its folder opened from `root` (the workspace, or `/`) without
    /// following any link; `create` makes the missing folders.
    pub fn beneath(root: &Dir, real: &Path, create: bool) -> std::io::Result<Place> {
        let (parent, name) = split(real)?;
        let rel = parent.strip_prefix(root.path()).map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{} is not under {}", real.display(), root.path().display()),
            )
        })?;
        let dir = if create { root.create_beneath(rel)? } else { root.open_beneath(rel)? };
        Ok(Place { dir, name: name.to_os_string() })
    }
}

fn split(path: &Path) -> std::io::Result<(&Path, &OsStr)> {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => Ok((parent, name)),
        _ => Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{} names no file", path.display()))),
    }
}
