//! Hot reload guarded by a canary: a changed tool, recipe or prelude file is loaded into a
//! fresh Lua state, its schema validated and its checks run in a scratch workspace; only then
//! does the new generation replace the old. Otherwise the old one keeps serving and the
//! problem (file:line and message) is reported.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use super::{Generation, Host};
use crate::error::{Code, Failure};

/// Quiet time after the last change before reloading (editors write files in bursts).
const SETTLE: Duration = Duration::from_millis(200);
const WATCHED: [&str; 3] = ["tools", "recipes", "prelude"];

#[derive(Debug, Clone, Serialize)]
pub struct ReloadOutcome {
    /// The generation serving after this reload.
    pub generation: u64,
    pub applied: bool,
    /// Changed files, relative to the project.
    pub files: Vec<String>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub updated: Vec<String>,
    /// Why the old generation stays: `file:line: message`, or a failing check.
    pub problems: Vec<String>,
}

impl Host {
    /// Reloads after `files` (relative to the project) changed.
    pub fn reload(&self, files: &[String]) -> ReloadOutcome {
        let old = self.generation();
        let mut outcome = ReloadOutcome {
            generation: old.number,
            applied: false,
            files: files.to_vec(),
            added: Vec::new(),
            removed: Vec::new(),
            updated: Vec::new(),
            problems: Vec::new(),
        };
        let sources = match self.sources_after(&old, files) {
            Ok(sources) => sources,
            Err(failure) => {
                outcome.problems.push(format!("rein.lock: {}", failure.message));
                return outcome;
            }
        };
        let candidate = match Generation::load(&self.kernel, &sources, self.limits, old.number + 1) {
            Ok(candidate) => candidate,
            Err(failure) => {
                outcome.problems.push(failure.message);
                return outcome;
            }
        };
        let touches_prelude = files.iter().any(|f| f.starts_with("prelude/") || f == "rein.lock");
        outcome.problems.extend(
            candidate
                .registry
                .problems
                .iter()
                .filter(|p| touches_prelude || files.contains(&p.file))
                .map(|p| format!("{}: {}", p.file, p.message)),
        );
        diff_names(&old, &candidate, files, &mut outcome);
        if outcome.problems.is_empty() {
            outcome.problems = self.canary_checks(&candidate, files, touches_prelude);
        }
        if outcome.problems.is_empty() {
            outcome.applied = true;
            outcome.generation = candidate.number;
            *self.current.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(candidate);
        }
        outcome
    }

    /// The packs of a changed rein.lock (verified), or the same sources as before.
    fn sources_after(&self, old: &Generation, files: &[String]) -> Result<Arc<crate::sources::Sources>, Failure> {
        if !self.packs_follow_lock || !files.iter().any(|f| f == "rein.lock") {
            return Ok(old.sources.clone());
        }
        let scope = self.kernel.scope();
        let packs = crate::packs::installed::verified(scope.workspace(), scope.home())?;
        let overrides = old.sources.overrides().clone();
        Ok(Arc::new(crate::sources::Sources::with_packs(scope.workspace(), packs).with_overrides(overrides)))
    }

    /// The checks of every changed tool (of every tool when prelude/ changed).
    fn canary_checks(&self, candidate: &Generation, files: &[String], all: bool) -> Vec<String> {
        let mut problems = Vec::new();
        for tool in candidate.registry.tools.values().filter(|t| all || files.contains(&t.file)) {
            match crate::checks::run_tool_checks(&candidate.sources, &tool.name, &tool.checks) {
                Ok(outcomes) => {
                    problems.extend(outcomes.into_iter().filter_map(|o| {
                        o.problem.map(|p| format!("{}: check {} of {}: {p}", tool.file, o.check, o.tool))
                    }))
                }
                Err(failure) => problems.push(format!("{}: {}", tool.file, failure.message)),
            }
        }
        problems
    }

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

fn diff_names(old: &Generation, new: &Generation, files: &[String], outcome: &mut ReloadOutcome) {
    let old_names = old
        .registry
        .tools
        .iter()
        .map(|(n, t)| (n, &t.file))
        .chain(old.registry.recipes.iter().map(|(n, r)| (n, &r.info.file)));
    let new_names: Vec<(&String, &String)> = new
        .registry
        .tools
        .iter()
        .map(|(n, t)| (n, &t.file))
        .chain(new.registry.recipes.iter().map(|(n, r)| (n, &r.info.file)))
        .collect();
    let old_names: Vec<(&String, &String)> = old_names.collect();
    for (name, file) in &new_names {
        match old_names.iter().find(|(n, _)| n == name) {
            None => outcome.added.push(name.to_string()),
            Some(_) if files.contains(file) => outcome.updated.push(name.to_string()),
            Some(_) => {}
        }
    }
    for (name, _) in &old_names {
        if !new_names.iter().any(|(n, _)| n == name) {
            outcome.removed.push(name.to_string());
        }
    }
}
