//! Where file changes come from, as a feed of paths that were created, written, removed or
//! renamed — never merely opened or read.
//!
//! On Linux the feed is inotify with exactly those events in its mask, so the kernel does not
//! even queue an event when a file in a watched folder is opened or read: an agent reading
//! the project (and rein reading it while reloading) wakes nobody. The `notify` crate's
//! inotify watcher always asks for open events too (and filtering them afterwards still costs
//! a wakeup of its thread per read, measured in `cargo bench --bench mcp_pipeline`).
//! Elsewhere the feed is `notify`, filtered to content changes.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;

use crate::error::{Code, Failure};
use crate::visible::shown_path;

pub use imp::ChangeFeed;

fn cannot_watch(path: &Path, e: impl std::fmt::Display) -> Failure {
    Failure::new(Code::IoError, format!("cannot watch {}: {e}", shown_path(path)))
}

#[cfg(target_os = "linux")]
mod imp {
    use std::collections::HashMap;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};

    use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask, Watches};

    use super::*;
    use crate::host::code_reading::entries;

    /// Content changes only: no OPEN, ACCESS, CLOSE_NOWRITE or ATTRIB.
    fn mask() -> WatchMask {
        WatchMask::CREATE
            | WatchMask::DELETE
            | WatchMask::MODIFY
            | WatchMask::MOVED_FROM
            | WatchMask::MOVED_TO
            | WatchMask::DELETE_SELF
            | WatchMask::MOVE_SELF
    }

    struct Shared {
        watches: Mutex<Watches>,
        /// Each watched folder, and whether its subfolders are watched too.
        folders: Mutex<HashMap<WatchDescriptor, (PathBuf, bool)>>,
        stop: AtomicBool,
    }

    pub struct ChangeFeed {
        shared: Arc<Shared>,
    }

    impl ChangeFeed {
        /// Starts a thread that sends each changed path to `tx`.
        pub fn start(tx: Sender<PathBuf>) -> Result<ChangeFeed, Failure> {
            let mut inotify = Inotify::init().map_err(|e| cannot_watch(Path::new("."), e))?;
            let shared = Arc::new(Shared {
                watches: Mutex::new(inotify.watches()),
                folders: Mutex::new(HashMap::new()),
                stop: AtomicBool::new(false),
            });
            let reader = shared.clone();
            std::thread::Builder::new()
                .name("rein-changes".into())
                .spawn(move || {
                    let mut buffer = vec![0u8; 64 * 1024];
                    while let Ok(events) = inotify.read_events_blocking(&mut buffer) {
                        if reader.stop.load(Ordering::Relaxed) {
                            return;
                        }
                        let events: Vec<(WatchDescriptor, EventMask, Option<PathBuf>)> =
                            events.map(|e| (e.wd, e.mask, e.name.map(PathBuf::from))).collect();
                        for (wd, event, name) in events {
                            if !deliver(&reader, &tx, wd, event, name) {
                                return;
                            }
                        }
                    }
                })
                .map_err(|e| cannot_watch(Path::new("."), e))?;
            Ok(ChangeFeed { shared })
        }

        /// Watches `dir` (and, when `recursive`, every folder under it, now and later).
        pub fn watch(&self, dir: &Path, recursive: bool) -> Result<(), Failure> {
            add(&self.shared, dir, recursive, WatchMask::empty())
        }
    }

    impl Drop for ChangeFeed {
        fn drop(&mut self) {
            self.shared.stop.store(true, Ordering::Relaxed);
            // Removing the watches queues IN_IGNORED events, which wakes the reader to see `stop`.
            let folders: Vec<WatchDescriptor> = lock(&self.shared.folders).keys().cloned().collect();
            let mut watches = lock(&self.shared.watches);
            for wd in folders {
                let _ = watches.remove(wd);
            }
        }
    }

    fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
        mutex.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Watches `dir` (with `also` in the mask), and when `recursive` its folders, never
    /// through a link: a folder found while walking is watched only if it is still no link.
    fn add(shared: &Shared, dir: &Path, recursive: bool, also: WatchMask) -> Result<(), Failure> {
        let wd = lock(&shared.watches).add(dir, mask() | also).map_err(|e| cannot_watch(dir, e))?;
        lock(&shared.folders).insert(wd, (dir.to_path_buf(), recursive));
        if recursive {
            for sub in subfolders(dir) {
                add(shared, &sub, true, WatchMask::DONT_FOLLOW | WatchMask::ONLYDIR)?;
            }
        }
        Ok(())
    }

    /// The folders in `dir`, never a link to one (it may lead anywhere, or back to `dir`).
    fn subfolders(dir: &Path) -> Vec<PathBuf> {
        entries(dir).into_iter().filter(|entry| entry.folder).map(|entry| entry.path).collect()
    }

    /// Sends the path of one event; a folder created under a recursive watch is watched, and
    /// what is already in it counts as changed. False when nobody listens any more.
    fn deliver(
        shared: &Shared,
        tx: &Sender<PathBuf>,
        wd: WatchDescriptor,
        event: EventMask,
        name: Option<PathBuf>,
    ) -> bool {
        if event.contains(EventMask::IGNORED) {
            lock(&shared.folders).remove(&wd);
            return true;
        }
        let Some((folder, recursive)) = lock(&shared.folders).get(&wd).cloned() else { return true };
        let path = match name {
            Some(name) => folder.join(name),
            None => folder,
        };
        let new_folder = event.contains(EventMask::ISDIR) && event.intersects(EventMask::CREATE | EventMask::MOVED_TO);
        let beneath = WatchMask::DONT_FOLLOW | WatchMask::ONLYDIR;
        if recursive && new_folder && add(shared, &path, true, beneath).is_ok() {
            for file in files_under(&path) {
                if tx.send(file).is_err() {
                    return false;
                }
            }
        }
        tx.send(path).is_ok()
    }

    fn files_under(dir: &Path) -> Vec<PathBuf> {
        let mut files = Vec::new();
        for entry in entries(dir) {
            if entry.folder {
                files.extend(files_under(&entry.path));
            } else {
                files.push(entry.path);
            }
        }
        files
    }
}

#[cfg(not(target_os = "linux"))]
mod imp {
    use std::sync::Mutex;

    use notify::event::{EventKind, ModifyKind};
    use notify::{RecursiveMode, Watcher as _};

    use super::*;

    pub struct ChangeFeed {
        watcher: Mutex<notify::RecommendedWatcher>,
    }

    impl ChangeFeed {
        pub fn start(tx: Sender<PathBuf>) -> Result<ChangeFeed, Failure> {
            let handler = move |event: notify::Result<notify::Event>| {
                if let Ok(event) = event {
                    if is_content_change(&event.kind) {
                        for path in event.paths {
                            let _ = tx.send(path);
                        }
                    }
                }
            };
            // A link among the project's code may lead anywhere, or back to its own folder.
            let config = notify::Config::default().with_follow_symlinks(false);
            let watcher =
                notify::RecommendedWatcher::new(handler, config).map_err(|e| cannot_watch(Path::new("."), e))?;
            Ok(ChangeFeed { watcher: Mutex::new(watcher) })
        }

        pub fn watch(&self, dir: &Path, recursive: bool) -> Result<(), Failure> {
            let mode = if recursive { RecursiveMode::Recursive } else { RecursiveMode::NonRecursive };
            self.watcher.lock().unwrap_or_else(|e| e.into_inner()).watch(dir, mode).map_err(|e| cannot_watch(dir, e))
        }
    }

    /// Created, written, removed or renamed — never opened, read, closed or chmod-ed.
    fn is_content_change(kind: &EventKind) -> bool {
        match kind {
            EventKind::Create(_) | EventKind::Remove(_) => true,
            EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Name(_) | ModifyKind::Any) => true,
            _ => false,
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn reads_are_not_changes_and_writes_are() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.lua"), "x").unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let feed = ChangeFeed::start(tx).unwrap();
        feed.watch(dir.path(), true).unwrap();
        for _ in 0..3 {
            std::fs::read(dir.path().join("a.lua")).unwrap();
        }
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err(), "a read is not a change");
        std::fs::write(dir.path().join("a.lua"), "y").unwrap();
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), dir.path().join("a.lua"));
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/b.lua"), "b").unwrap();
        let mut seen = Vec::new();
        while let Ok(path) = rx.recv_timeout(Duration::from_millis(500)) {
            seen.push(path);
        }
        assert!(seen.contains(&dir.path().join("sub/b.lua")), "a new subfolder is watched: {seen:?}");
        drop(feed);
    }
}
