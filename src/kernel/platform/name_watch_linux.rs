//! Watching directory trees for a name appearing anywhere in them, or a directory becoming one
//! of a kind (a repository without the name: `HEAD`, `objects/`, `refs/`) (Linux, inotify(7)): every
//! directory is watched for `IN_CREATE` and `IN_MOVED_TO`; a directory that appears is watched
//! and then read, so what was made in it before its watch is found too; a full event queue
//! (`IN_Q_OVERFLOW`) reads every tree again. Links are never followed, and an entry with the
//! name is reported, never entered.
//!
//! Why our own code: the `notify` crate's recursive watch reports events, not the entries of a
//! directory made before its watch, and hides the queue overflow behind a rescan flag; here the
//! reading-after-watching is the point.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};

/// Directories watched at most (each is one of the person's inotify watches, shared by all their
/// programs: `/proc/sys/fs/inotify/max_user_watches`). Past it, what lies deeper is not watched.
const MOST_WATCHED: usize = 100_000;

const MASK: WatchMask =
    WatchMask::CREATE.union(WatchMask::MOVED_TO).union(WatchMask::ONLYDIR).union(WatchMask::DONT_FOLLOW);

/// What is watched for.
#[derive(Clone, Copy)]
pub struct Wanted {
    /// Entries with this name are reported and never entered.
    pub name: fn(&OsStr) -> bool,
    /// Directories this says yes to are reported (and entered).
    pub dir: fn(&Path) -> bool,
    /// Names whose appearance can make their directory one `dir` says yes to.
    pub makes_dir: fn(&OsStr) -> bool,
}

/// Told each wanted entry or directory: found by the first walk (`existing` true) or after.
pub type OnFound = Box<dyn FnMut(&Path, bool) + Send>;

/// A running watch; dropping it stops it.
pub struct NameWatch {
    thread: Option<(std::thread::JoinHandle<()>, OwnedFd)>,
}

impl NameWatch {
    /// Walks `roots` (reporting the wanted entries already there, `existing`), then watches
    /// them from a thread of its own until dropped. `None` when inotify cannot be had (the
    /// person's instances are used up): then nothing watches, and the walk still reported.
    pub fn start(roots: Vec<PathBuf>, wanted: Wanted, mut on_found: OnFound) -> Option<NameWatch> {
        let mut trees = Trees { dirs: HashMap::new(), wanted };
        let Ok(mut inotify) = Inotify::init() else {
            for root in &roots {
                walk(root, wanted, &mut |_| {}, &mut |found| on_found(found, true));
            }
            return None;
        };
        for root in &roots {
            trees.look_in(&mut inotify, root, &mut |found| on_found(found, true));
        }
        let (wake_read, wake_write) = pipe().ok()?;
        let handle = std::thread::Builder::new()
            .name("rein-name-watch".into())
            .spawn(move || trees.run(inotify, &roots, wake_read, &mut on_found))
            .ok()?;
        Some(NameWatch { thread: Some((handle, wake_write)) })
    }
}

impl Drop for NameWatch {
    fn drop(&mut self) {
        if let Some((handle, wake)) = self.thread.take() {
            // The thread wakes when its pipe's write end closes, having handled every event read.
            drop(wake);
            let _ = handle.join();
        }
    }
}

/// The watched directories.
struct Trees {
    dirs: HashMap<WatchDescriptor, PathBuf>,
    wanted: Wanted,
}

impl Trees {
    /// Watches `dir` and every directory beneath it, reporting the wanted entries in them.
    fn look_in(&mut self, inotify: &mut Inotify, dir: &Path, found: &mut dyn FnMut(&Path)) {
        let dirs = &mut self.dirs;
        walk(
            dir,
            self.wanted,
            &mut |path| {
                // Watching a directory again (moved, or read again after an overflow) gives its
                // descriptor again: the map then holds its path now.
                if dirs.len() < MOST_WATCHED {
                    if let Ok(wd) = inotify.watches().add(path, MASK) {
                        dirs.insert(wd, path.to_path_buf());
                    }
                }
            },
            found,
        );
    }

    /// Handles events until `wake` hangs up.
    fn run(&mut self, mut inotify: Inotify, roots: &[PathBuf], wake: OwnedFd, on_found: &mut OnFound) {
        let mut buffer = vec![0u8; 64 * 1024];
        loop {
            let mut fds = [
                libc::pollfd { fd: inotify.as_fd().as_raw_fd(), events: libc::POLLIN, revents: 0 },
                libc::pollfd { fd: wake.as_raw_fd(), events: libc::POLLIN, revents: 0 },
            ];
            // SAFETY: polls two descriptors this thread owns, through a live array.
            if unsafe { libc::poll(fds.as_mut_ptr(), 2, -1) } < 0 {
                continue;
            }
            let (appeared, overflowed) = self.read(&mut inotify, &mut buffer);
            for (path, is_dir) in appeared {
                let name = path.file_name().unwrap_or_default();
                if (self.wanted.makes_dir)(name) {
                    if let Some(dir) = path.parent().filter(|dir| (self.wanted.dir)(dir)) {
                        on_found(dir, false);
                    }
                }
                if (self.wanted.name)(name) {
                    on_found(&path, false);
                } else if is_dir {
                    self.look_in(&mut inotify, &path, &mut |found| on_found(found, false));
                }
            }
            if overflowed {
                for root in roots {
                    self.look_in(&mut inotify, root, &mut |found| on_found(found, false));
                }
            }
            if fds[1].revents != 0 {
                return;
            }
        }
    }

    /// Every event queued now: the names that appeared (and whether each is a directory), and
    /// whether the queue overflowed.
    fn read(&mut self, inotify: &mut Inotify, buffer: &mut [u8]) -> (Vec<(PathBuf, bool)>, bool) {
        let mut appeared = Vec::new();
        let mut overflowed = false;
        while let Ok(events) = inotify.read_events(buffer) {
            let mut any = false;
            for event in events {
                any = true;
                if event.mask.contains(EventMask::Q_OVERFLOW) {
                    overflowed = true;
                } else if event.mask.contains(EventMask::IGNORED) {
                    self.dirs.remove(&event.wd);
                } else if let (Some(name), Some(dir)) = (event.name, self.dirs.get(&event.wd)) {
                    appeared.push((dir.join(name), event.mask.contains(EventMask::ISDIR)));
                }
            }
            if !any {
                break;
            }
        }
        (appeared, overflowed)
    }
}

/// Walks `root` without following links: `dir(path)` for every directory (`root` too),
/// `found(path)` for every entry named as wanted (never entered) and every directory wanted.
/// Iterative: any depth a path can name.
pub fn walk(root: &Path, wanted: Wanted, dir: &mut dyn FnMut(&Path), found: &mut dyn FnMut(&Path)) {
    if !std::fs::symlink_metadata(root).is_ok_and(|m| m.is_dir()) {
        return;
    }
    let mut pending = vec![root.to_path_buf()];
    while let Some(next) = pending.pop() {
        dir(&next);
        if (wanted.dir)(&next) {
            found(&next);
        }
        let Ok(entries) = std::fs::read_dir(&next) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if (wanted.name)(&entry.file_name()) {
                found(&path);
            } else if entry.file_type().is_ok_and(|t| t.is_dir()) {
                pending.push(path);
            }
        }
    }
}

/// A pipe (read end, write end), close-on-exec.
fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 returns.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    const GIT: Wanted = Wanted { name: |name| name == ".git", dir: |_| false, makes_dir: |_| false };

    /// Waits (bounded) until `seen` holds `want`.
    fn wait_for(seen: &Arc<Mutex<Vec<(PathBuf, bool)>>>, want: &Path) -> bool {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(30) {
            if seen.lock().unwrap().iter().any(|(p, _)| p == want) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        false
    }

    #[test]
    fn a_name_is_found_where_it_appears_however_it_gets_there() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        std::fs::create_dir_all(root.join("old/.git")).unwrap();
        std::fs::create_dir_all(dir.path().join("outside/made/deep")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("outside"), root.join("link")).unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let record = seen.clone();
        let watch = NameWatch::start(
            vec![root.clone()],
            GIT,
            Box::new(move |path, existing| record.lock().unwrap().push((path.to_path_buf(), existing))),
        )
        .expect("inotify");
        assert_eq!(*seen.lock().unwrap(), vec![(root.join("old/.git"), true)]);
        // Made in place; in a folder made just now (before its watch could exist); moved in
        // from outside with a repository inside.
        std::fs::create_dir_all(root.join("a/b/c/.git")).unwrap();
        assert!(wait_for(&seen, &root.join("a/b/c/.git")));
        std::fs::create_dir_all(dir.path().join("outside/made/deep/.git")).unwrap();
        std::fs::rename(dir.path().join("outside/made"), root.join("made")).unwrap();
        assert!(wait_for(&seen, &root.join("made/deep/.git")));
        std::fs::write(root.join("a/.git"), "gitdir: /elsewhere\n").unwrap();
        assert!(wait_for(&seen, &root.join("a/.git")));
        // Nothing behind the link is watched (it is not in the tree).
        std::fs::create_dir_all(dir.path().join("outside/.git")).unwrap();
        drop(watch);
        let seen = seen.lock().unwrap();
        assert!(!seen.iter().any(|(p, _)| p.starts_with(root.join("link"))), "{seen:?}");
        assert!(seen.iter().filter(|(_, existing)| *existing).count() == 1, "{seen:?}");
    }
}
