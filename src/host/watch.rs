//! Watching the project's tools/, recipes/ and prelude/ (and rein.lock) and reloading after
//! each burst of changes (settle-and-drain).

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use super::{Host, ReloadOutcome};
use crate::error::{Code, Failure};

/// Quiet time after the last change before reloading (editors write files in bursts).
const SETTLE: Duration = Duration::from_millis(200);
const WATCHED: [&str; 3] = ["tools", "recipes", "prelude"];

impl Host {
    /// Watches the project's tools/, recipes/ and prelude/ and reloads after each burst of
    /// changes, reporting every outcome to `on_reload`. Stops when the Watcher is dropped.
    pub fn watch(self: &Arc<Self>, on_reload: impl Fn(ReloadOutcome) + Send + 'static) -> Result<Watcher, Failure> {
        use notify::Watcher as _;
        let root = self
            .sources
            .project_root()
            .map(Path::to_path_buf)
            .ok_or_else(|| Failure::new(Code::InvalidConfig, "there is no project folder to watch"))?;
        let (tx, rx) = mpsc::channel::<PathBuf>();
        let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            if let Ok(event) = event {
                for path in event.paths {
                    let _ = tx.send(path);
                }
            }
        })
        .map_err(|e| Failure::new(Code::IoError, format!("cannot watch {}: {e}", root.display())))?;
        for dir in WATCHED.iter().map(|d| root.join(d)).filter(|d| d.is_dir()) {
            watcher
                .watch(&dir, notify::RecursiveMode::Recursive)
                .map_err(|e| Failure::new(Code::IoError, format!("cannot watch {}: {e}", dir.display())))?;
        }
        // rein.lock moves when a pack is updated: the new pack version is served after a reload.
        watcher
            .watch(&root, notify::RecursiveMode::NonRecursive)
            .map_err(|e| Failure::new(Code::IoError, format!("cannot watch {}: {e}", root.display())))?;
        let host = Arc::clone(self);
        let thread = std::thread::Builder::new()
            .name("rein-watch".into())
            .spawn(move || {
                while let Some(files) = next_burst(&rx, &root) {
                    if !files.is_empty() {
                        on_reload(host.reload(&files));
                    }
                }
            })
            .map_err(|e| Failure::new(Code::IoError, format!("cannot start the watcher: {e}")))?;
        Ok(Watcher { _watcher: Box::new(watcher), _thread: thread })
    }
}

/// Keeps the watch alive; dropping it stops watching.
pub struct Watcher {
    _watcher: Box<dyn notify::Watcher + Send>,
    _thread: std::thread::JoinHandle<()>,
}

/// Waits for a change, then drains until SETTLE passes quietly. None when watching ended.
fn next_burst(rx: &mpsc::Receiver<PathBuf>, root: &Path) -> Option<Vec<String>> {
    let first = rx.recv().ok()?;
    let mut paths = vec![first];
    while let Ok(path) = rx.recv_timeout(SETTLE) {
        paths.push(path);
    }
    let mut files: Vec<String> = paths
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "lua") || p.file_name().is_some_and(|n| n == "rein.lock"))
        .filter_map(|p| p.strip_prefix(root).ok())
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    files.sort();
    files.dedup();
    Some(files)
}
