//! Folders walked by handle (Linux), for what rein reads of the workspace before a spawn while
//! other programs of the workspace may be changing it. Each folder is opened once
//! (`O_DIRECTORY | O_NOFOLLOW` relative to its parent's handle), listed through that handle, and
//! its entries are opened relative to it: no path is resolved again, so a folder swapped for a
//! link after it was listed (findings/04: a link to rein's home) is refused, never followed.
//! (`read_dir` and opening `dir/name` by path resolve every component again, following links.)

use std::ffi::{OsStr, OsString};
use std::os::fd::OwnedFd;
use std::path::Path;

use rustix::fs::{FileType, Mode, OFlags};

const DIR: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);

/// Opens the folder at `path` as it is named (rein's own paths: the workspace, the SDK). With
/// `follow` false, a link there is refused.
pub fn open_dir(path: &Path, follow: bool) -> Option<OwnedFd> {
    let flags = if follow { DIR } else { DIR | OFlags::NOFOLLOW };
    rustix::fs::open(path, flags, Mode::empty()).ok()
}

/// The folder `name` inside `dir`; none when it is a link or not a folder.
pub fn child_dir(dir: &OwnedFd, name: &OsStr) -> Option<OwnedFd> {
    rustix::fs::openat(dir, name, DIR | OFlags::NOFOLLOW, Mode::empty()).ok()
}

/// A handle on the entry `name` inside `dir` (`O_PATH`), for a Landlock rule; none when it is a
/// link (an `O_PATH | O_NOFOLLOW` open of a link gives the link itself).
pub fn entry(dir: &OwnedFd, name: &OsStr) -> Option<OwnedFd> {
    let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(dir, name, flags, Mode::empty()).ok()?;
    not_a_link(fd)
}

/// A handle on `path` as it is named (`O_PATH`); with `follow` false, none for a link.
pub fn path(path: &Path, follow: bool) -> Option<OwnedFd> {
    let flags = OFlags::PATH | OFlags::CLOEXEC | if follow { OFlags::empty() } else { OFlags::NOFOLLOW };
    let fd = rustix::fs::open(path, flags, Mode::empty()).ok()?;
    not_a_link(fd)
}

fn not_a_link(fd: OwnedFd) -> Option<OwnedFd> {
    let stat = rustix::fs::fstat(&fd).ok()?;
    (FileType::from_raw_mode(stat.st_mode) != FileType::Symlink).then_some(fd)
}

/// The entries of the folder `dir` (without `.` and `..`), with whether each was a folder when
/// listed (a hint only: whoever opens it checks again).
pub fn entries(dir: &OwnedFd) -> Vec<(OsString, bool)> {
    use std::os::unix::ffi::OsStrExt;
    let Ok(listing) = rustix::fs::Dir::read_from(dir) else { return Vec::new() };
    let mut out = Vec::new();
    for entry in listing.flatten() {
        let name = entry.file_name().to_bytes();
        if name != b"." && name != b".." {
            let is_dir = matches!(entry.file_type(), FileType::Directory | FileType::Unknown);
            out.push((OsStr::from_bytes(name).to_os_string(), is_dir));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_never_follow_a_link_unless_asked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("entry")).unwrap();
        std::os::unix::fs::symlink("/", dir.path().join("link")).unwrap();
        assert!(path(&dir.path().join("entry"), false).is_some());
        assert!(path(&dir.path().join("link"), false).is_none());
        assert!(path(&dir.path().join("link"), true).is_some());
        assert!(path(&dir.path().join("missing"), true).is_none());
        let root = open_dir(dir.path(), false).unwrap();
        assert!(child_dir(&root, OsStr::new("entry")).is_some());
        assert!(child_dir(&root, OsStr::new("link")).is_none(), "a link where a folder was expected");
        assert!(entry(&root, OsStr::new("link")).is_none());
        let mut names = entries(&root);
        names.sort();
        assert_eq!(names, [(OsString::from("entry"), true), (OsString::from("link"), false)]);
    }
}
