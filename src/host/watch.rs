//! Watching the project's code (`.lua` under tools/, recipes/, prelude/) and rein.lock, and
//! reloading once after each burst of changes (settle-and-drain, as WezTerm does).
//!
//! Only content changes count: a file created, written, removed or renamed. Opening or reading
//! a file is not a change — rein reads every file while it reloads, and counting those reads
//! made one save reload every 200 ms forever. A code folder created after the watch started
//! is watched from then on, and the files already in it count as changed.

use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use notify::event::{EventKind, ModifyKind};
use notify::{RecursiveMode, Watcher as _};

use super::project_files::{is_code_file, CODE_FOLDERS};
use super::{Host, ReloadOutcome};
use crate::error::{Code, Failure};

/// Quiet time after the last change before reloading (editors write files in bursts).
pub const SETTLE: Duration = Duration::from_millis(200);
/// A burst that never goes quiet is reloaded after this long anyway.
const LONGEST_BURST: Duration = Duration::from_secs(2);
const LOCK_FILE: &str = "rein.lock";

type Notifier = Arc<Mutex<notify::RecommendedWatcher>>;

impl Host {
    /// Watches the project's code and rein.lock and reloads after each burst of changes,
    /// reporting every reload attempt to `on_reload` (one whose files turned out unchanged
    /// has empty `files`). Stops when the Watcher is dropped.
    pub fn watch(self: &Arc<Self>, on_reload: impl Fn(ReloadOutcome) + Send + 'static) -> Result<Watcher, Failure> {
        let root = self
            .sources
            .project_root()
            .map(Path::to_path_buf)
            .ok_or_else(|| Failure::new(Code::InvalidConfig, "there is no project folder to watch"))?;
        let (tx, rx) = mpsc::channel::<PathBuf>();
        let notifier = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            if let Ok(event) = event {
                if is_content_change(&event.kind) {
                    for path in event.paths {
                        let _ = tx.send(path);
                    }
                }
            }
        })
        .map_err(|e| cannot_watch(&root, e))?;
        let notifier: Notifier = Arc::new(Mutex::new(notifier));
        // The root itself, for rein.lock and for code folders created later.
        lock(&notifier).watch(&root, RecursiveMode::NonRecursive).map_err(|e| cannot_watch(&root, e))?;
        for folder in CODE_FOLDERS.iter().map(|f| root.join(f)).filter(|d| d.is_dir()) {
            lock(&notifier).watch(&folder, RecursiveMode::Recursive).map_err(|e| cannot_watch(&folder, e))?;
        }
        let host = Arc::clone(self);
        // Weak, so dropping the Watcher drops the notifier, which ends the thread.
        let watching = Arc::downgrade(&notifier);
        let thread = std::thread::Builder::new()
            .name("rein-watch".into())
            .spawn(move || {
                while let Some(paths) = next_burst(&rx) {
                    let files = changed_files(&paths, &root, &watching);
                    if files.is_empty() {
                        continue;
                    }
                    on_reload(host.reload(&files));
                }
            })
            .map_err(|e| Failure::new(Code::IoError, format!("cannot start the watcher: {e}")))?;
        Ok(Watcher { _notifier: notifier, _thread: thread })
    }
}

/// Keeps the watch alive; dropping it stops watching.
pub struct Watcher {
    _notifier: Notifier,
    _thread: std::thread::JoinHandle<()>,
}

fn lock(notifier: &Notifier) -> std::sync::MutexGuard<'_, notify::RecommendedWatcher> {
    notifier.lock().unwrap_or_else(|e| e.into_inner())
}

fn cannot_watch(path: &Path, e: notify::Error) -> Failure {
    Failure::new(Code::IoError, format!("cannot watch {}: {e}", path.display()))
}

/// Created, written, removed or renamed — never opened, read, closed or chmod-ed.
fn is_content_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) => true,
        EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Name(_) | ModifyKind::Any) => true,
        EventKind::Modify(ModifyKind::Metadata(_) | ModifyKind::Other) => false,
        EventKind::Access(_) | EventKind::Other | EventKind::Any => false,
    }
}

/// Waits for a change, then drains until SETTLE passes quietly (or the burst has lasted
/// LONGEST_BURST). None when watching ended.
fn next_burst(rx: &mpsc::Receiver<PathBuf>) -> Option<Vec<PathBuf>> {
    let first = rx.recv().ok()?;
    let started = Instant::now();
    let mut paths = vec![first];
    while started.elapsed() < LONGEST_BURST {
        match rx.recv_timeout(SETTLE) {
            Ok(path) => paths.push(path),
            Err(mpsc::RecvTimeoutError::Timeout) => break,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    Some(paths)
}

/// The project files among `paths` that rein loads, relative to `root`. A code folder that
/// appeared is watched from now on, and every Lua file in it counts.
fn changed_files(
    paths: &[PathBuf],
    root: &Path,
    notifier: &std::sync::Weak<Mutex<notify::RecommendedWatcher>>,
) -> Vec<String> {
    let mut files = Vec::new();
    for path in paths {
        let Ok(rel) = path.strip_prefix(root) else { continue };
        let rel = rel.to_string_lossy().into_owned();
        if CODE_FOLDERS.contains(&rel.as_str()) && path.is_dir() {
            let Some(notifier) = notifier.upgrade() else { continue };
            if let Err(e) = lock(&notifier).watch(path, RecursiveMode::Recursive) {
                tracing::warn!("cannot watch {}: {e}", path.display());
            }
            files.extend(lua_files_under(root, path));
        } else if rel == LOCK_FILE || is_code_file(&rel) {
            files.push(rel);
        }
    }
    files.sort();
    files.dedup();
    files
}

fn lua_files_under(root: &Path, dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return found };
    for path in entries.flatten().map(|e| e.path()) {
        if path.is_dir() {
            found.extend(lua_files_under(root, &path));
        } else if let Ok(rel) = path.strip_prefix(root) {
            let rel = rel.to_string_lossy().into_owned();
            if is_code_file(&rel) {
                found.push(rel);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{AccessKind, AccessMode, CreateKind, DataChange, MetadataKind, RenameMode};

    #[test]
    fn only_content_changes_count() {
        assert!(is_content_change(&EventKind::Create(CreateKind::File)));
        assert!(is_content_change(&EventKind::Modify(ModifyKind::Data(DataChange::Any))));
        assert!(is_content_change(&EventKind::Modify(ModifyKind::Name(RenameMode::To))));
        assert!(is_content_change(&EventKind::Remove(notify::event::RemoveKind::File)));
        assert!(!is_content_change(&EventKind::Access(AccessKind::Open(AccessMode::Any))));
        assert!(!is_content_change(&EventKind::Access(AccessKind::Close(AccessMode::Write))));
        assert!(!is_content_change(&EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime))));
    }
}
