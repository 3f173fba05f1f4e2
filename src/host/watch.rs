//! Watching the project's code (`.lua` under tools/, recipes/, prelude/), rein.lock and the
//! rein.lock a person approved (in home), and reloading once after each burst of changes
//! (settle-and-drain, as WezTerm does).
//!
//! Only content changes count (see `changes`): a file created, written, removed or renamed.
//! Opening or reading a file is not a change — rein reads every file while it reloads, and
//! counting those reads made one save reload every 200 ms forever. A code folder created
//! after the watch started is watched from then on, and the files already in it count.

use std::path::{Path, PathBuf};
use std::sync::{mpsc, Arc, Weak};
use std::time::{Duration, Instant};

use super::changes::ChangeFeed;
use super::code_reading::{entries, is_real_folder};
use super::project_files::{is_code_file, ProjectFiles, CODE_FOLDERS};
use super::{Host, ReloadOutcome};
use crate::error::{Code, Failure};
use crate::kernel::files::names::relative_name;
use crate::kernel::scope::protected::LOCK_FILE;
use crate::visible::shown_path;

/// Quiet time after the last change before reloading (editors write files in bursts).
pub const SETTLE: Duration = Duration::from_millis(100);
/// A burst that never goes quiet is reloaded after this long anyway.
const LONGEST_BURST: Duration = Duration::from_secs(2);

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
        let feed = Arc::new(ChangeFeed::start(tx.clone())?);
        // The root itself, for rein.lock and for code folders created later.
        feed.watch(&root, false)?;
        // What a person approved, kept in home: approving rein.lock (`rein approvals policy`,
        // `rein pack …`, another process) changes the packs served as much as editing it.
        let scope = self.kernel.scope();
        let approved = super::policy_files::approved_dir(scope.workspace(), scope.home());
        std::fs::create_dir_all(&approved)
            .map_err(|e| Failure::new(Code::IoError, format!("cannot create {}: {e}", shown_path(&approved))))?;
        feed.watch(&approved, false)?;
        for folder in CODE_FOLDERS.iter().map(|f| root.join(f)).filter(|d| is_real_folder(d)) {
            feed.watch(&folder, true)?;
        }
        // The generation read its files before watching started (`rein serve` answers its
        // client meanwhile): what changed in between is the watcher's first burst.
        for rel in self.changed_since_read(&root) {
            let _ = tx.send(root.join(rel));
        }
        let host = Arc::clone(self);
        // Weak, so dropping the Watcher drops the feed, which ends the thread.
        let watching = Arc::downgrade(&feed);
        let thread = std::thread::Builder::new()
            .name("rein-watch".into())
            .spawn(move || {
                while let Some(paths) = next_burst(&rx) {
                    let mut files = changed_files(&paths, &root, &watching);
                    if paths.iter().any(|p| p.parent() == Some(approved.as_path()) && p.ends_with(LOCK_FILE)) {
                        files.push(LOCK_FILE.to_string());
                        files.dedup();
                    }
                    if files.is_empty() {
                        continue;
                    }
                    on_reload(host.reload(&files));
                }
            })
            .map_err(|e| Failure::new(Code::IoError, format!("cannot start the watcher: {e}")))?;
        Ok(Watcher { _feed: feed, _thread: thread })
    }
}

/// Keeps the watch alive; dropping it stops watching.
pub struct Watcher {
    _feed: Arc<ChangeFeed>,
    _thread: std::thread::JoinHandle<()>,
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
impl Host {
    /// The project's code files whose text on disk differs from what the serving generation
    /// read (added, changed or gone), and rein.lock when the packs it pins with a person's
    /// approval are not the ones served.
    fn changed_since_read(&self, root: &Path) -> Vec<String> {
        // Unchanged files keep the generation's texts unread (their keys tell), so a start
        // with many tool files does not read them all twice (issue 41).
        let read = self.generation().sources.project_files().cloned();
        let mut changed: Vec<String> = match read.map(|read| (ProjectFiles::read_since(root, &read), read)) {
            Some((Ok(now), read)) => read
                .paths()
                .chain(now.paths())
                .filter(|rel| read.get(rel) != now.get(rel))
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        };
        if self.packs_changed() {
            changed.push(LOCK_FILE.to_string());
        }
        changed.sort();
        changed.dedup();
        changed
    }
}

fn changed_files(paths: &[PathBuf], root: &Path, feed: &Weak<ChangeFeed>) -> Vec<String> {
    let mut files = Vec::new();
    for path in paths {
        let Some(rel) = relative_name(path, root) else { continue };
        if CODE_FOLDERS.contains(&rel.as_str()) && is_real_folder(path) {
            let Some(feed) = feed.upgrade() else { continue };
            if let Err(e) = feed.watch(path, true) {
                tracing::warn!("{e}");
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
    for entry in entries(dir) {
        if entry.folder {
            found.extend(lua_files_under(root, &entry.path));
        } else if let Some(rel) = relative_name(&entry.path, root) {
            if is_code_file(&rel) {
                found.push(rel);
            }
        }
    }
    found
}
