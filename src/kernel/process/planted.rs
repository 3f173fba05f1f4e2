//! Repositories a confined program plants. Landlock grants places, never names: a program that
//! may write `entry/src/` may create `entry/src/.git/` with a `core.fsmonitor` command or hooks,
//! or a `.git` file or link pointing at another repository — and the person's git, their shell
//! prompt or their editor (which look for nested repositories) then run it unconfined. Carving
//! (`carve`) only keeps the `.git` entries that exist when the spawn starts.
//!
//! So each confined spawn is watched (Linux, `platform::name_watch_linux`): before the program
//! starts, rein notes every `.git` beneath the places it may write (the profile carves them
//! read-only) and watches those places; at the first new `.git` the program is stopped. Once the
//! program and everything it started have ended — nothing of the spawn can make another then —
//! a sweep walks the same places again and removes every `.git` that was not there before (the
//! watch can miss one: a full event queue, a path too long to watch), and the call fails with
//! `PROTECTED_CREATED` naming each; the journal's spawn entry lists them (`planted`).
//!
//! What stays open: between the moment a `.git` appears and the stop, a process of the person's
//! that rein does not run could find it; and a `.git` deeper than a path can name (`PATH_MAX`)
//! is neither watched nor swept (no program that works with paths reaches it either).

use std::path::Path;
#[cfg(target_os = "linux")]
use std::path::PathBuf;

use super::spawn::Oversight;
pub use crate::kernel::journal::Planted;
use crate::kernel::process::grants::Profile;

/// Where a spawn's sweep puts what it found (the kernel reads it once the spawn is over, or,
/// for a spawn abandoned half-way, as it journals it).
pub type Found = std::sync::Arc<std::sync::Mutex<Vec<Planted>>>;

/// Watches the places `profile` lets the program write — not its private temp directory
/// (removed after it) nor rein's own `.rein/` — carves the `.git` entries already there out of
/// the profile, and returns what the spawn runs under: stopped at the first new one, swept into
/// `found` once its process tree has ended.
#[cfg(target_os = "linux")]
pub fn oversee(profile: &mut Profile, private_tmp: &Path, workspace: &Path, found: Found) -> Oversight {
    use crate::kernel::process::grants::{Carve, Most};
    let rein_dir = workspace.join(crate::kernel::scope::protected::REIN_DIR);
    let roots: Vec<PathBuf> = profile
        .write
        .iter()
        .chain(&profile.write_no_link)
        .filter(|root| !root.starts_with(private_tmp) && !root.starts_with(&rein_dir))
        // Landlock follows a granted link (`~/.ohpm` pointing elsewhere): watch where it leads.
        .map(|root| std::fs::canonicalize(root).unwrap_or_else(|_| root.clone()))
        .collect();
    let (stop, stopped) = tokio::sync::oneshot::channel();
    let watch = watch::Watch::start(roots, workspace, stop);
    for existing in watch.existing() {
        if !profile.carve.iter().any(|c| c.path == existing) {
            profile.carve.push(Carve { path: existing, most: Most::Read });
        }
    }
    Oversight {
        // A watch that ends without seeing one never stops the program.
        stop: Some(Box::pin(async move {
            match stopped.await {
                Ok(reason) => reason,
                Err(_) => std::future::pending().await,
            }
        })),
        after_end: Some(Box::new(move || {
            let planted = watch.sweep();
            found.lock().unwrap_or_else(|e| e.into_inner()).extend(planted);
        })),
    }
}

/// Elsewhere programs run unconfined (no Landlock): nothing to watch.
#[cfg(not(target_os = "linux"))]
pub fn oversee(_profile: &mut Profile, _private_tmp: &Path, _workspace: &Path, _found: Found) -> Oversight {
    Oversight::default()
}

#[cfg(target_os = "linux")]
mod watch {
    use std::collections::HashSet;
    use std::ffi::OsStr;
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Mutex};

    use super::Planted;
    use crate::kernel::files::read::{open_unwaited, Links};
    use crate::kernel::platform::name_watch_linux::{walk, NameWatch, Wanted};
    use crate::kernel::process::spawn::StopReason;
    use crate::kernel::scope::protected;

    /// Whether `name` is git's (in any case, as the scope compares protected names).
    fn is_git(name: &OsStr) -> bool {
        protected::is_git_dir(&name.to_string_lossy())
    }

    /// Whether git takes `dir` itself for a repository, as it does any folder it searches (git
    /// `setup.c` `is_git_directory`: a `HEAD`, and `objects/` and `refs/` there or in the
    /// repository a `commondir` file names). Such a folder needs no `.git` name: with a
    /// `core.worktree` and `core.fsmonitor` in its `config`, `git status` run in it runs the
    /// command (tried with git 2.47). Looser than git (any `HEAD` with any of the three) only
    /// catches more.
    fn is_repository(dir: &Path) -> bool {
        std::fs::symlink_metadata(dir.join("HEAD")).is_ok()
            && ["objects", "refs", "commondir"].iter().any(|part| std::fs::symlink_metadata(dir.join(part)).is_ok())
    }

    /// Names whose appearance can make their folder a repository.
    fn makes_repository(name: &OsStr) -> bool {
        ["HEAD", "objects", "refs", "commondir"].iter().any(|part| name == *part)
    }

    const REPOSITORIES: Wanted = Wanted { name: is_git, dir: is_repository, makes_dir: makes_repository };

    /// What the watch thread and the spawn share.
    #[derive(Default)]
    struct Seen {
        /// The `.git` entries there before the program started.
        before: HashSet<PathBuf>,
        /// New ones, in the order they appeared.
        new: Vec<PathBuf>,
        /// Told at the first new one.
        stop: Option<tokio::sync::oneshot::Sender<StopReason>>,
    }

    /// The watch on one spawn's writable places.
    pub struct Watch {
        roots: Vec<PathBuf>,
        workspace: PathBuf,
        seen: Arc<Mutex<Seen>>,
        watch: Option<NameWatch>,
    }

    impl Watch {
        /// Notes the `.git` entries beneath `roots` and starts watching them; `stop` hears why
        /// at the first new one.
        pub fn start(roots: Vec<PathBuf>, workspace: &Path, stop: tokio::sync::oneshot::Sender<StopReason>) -> Watch {
            let seen = Arc::new(Mutex::new(Seen { stop: Some(stop), ..Seen::default() }));
            let shared = seen.clone();
            let workspace = workspace.to_path_buf();
            let shown_from = workspace.clone();
            let watch = NameWatch::start(
                roots.clone(),
                REPOSITORIES,
                Box::new(move |path, existing| {
                    let mut seen = shared.lock().unwrap_or_else(|e| e.into_inner());
                    if existing {
                        seen.before.insert(path.to_path_buf());
                    } else if !seen.before.contains(path) && !seen.new.iter().any(|p| p == path) {
                        seen.new.push(path.to_path_buf());
                        if let Some(stop) = seen.stop.take() {
                            let why = format!("it created {}, a git repository", shown(path, &shown_from));
                            let _ = stop.send(StopReason(why));
                        }
                    }
                }),
            );
            Watch { roots, workspace, seen, watch }
        }

        /// The `.git` entries that were there before the program started.
        pub fn existing(&self) -> Vec<PathBuf> {
            self.seen.lock().unwrap_or_else(|e| e.into_inner()).before.iter().cloned().collect()
        }

        /// Once the program and everything it started have ended: stops watching, then removes
        /// every `.git` beneath the roots that was not there before. What it found, the one
        /// that stopped the program first.
        pub fn sweep(mut self) -> Vec<Planted> {
            drop(self.watch.take());
            let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
            let mut found = Vec::new();
            for root in &self.roots {
                walk(root, REPOSITORIES, &mut |_| {}, &mut |git| {
                    if !seen.before.contains(git) {
                        found.push(git.to_path_buf());
                    }
                });
            }
            let order = |path: &PathBuf| seen.new.iter().position(|p| p == path).unwrap_or(usize::MAX);
            found.sort_by_key(order);
            let mut planted: Vec<Planted> = found.iter().map(|path| remove(path, &self.workspace)).collect();
            for path in seen.new.iter().filter(|p| !found.contains(p)) {
                let gone = Planted {
                    path: shown(path, &self.workspace),
                    kind: "gone".into(),
                    points_to: None,
                    removed: false,
                    error: None,
                };
                planted.push(gone);
            }
            planted
        }
    }

    fn shown(path: &Path, workspace: &Path) -> String {
        match path.strip_prefix(workspace) {
            Ok(rest) => rest.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }

    /// What `path` is and where it pointed git, then removes it: a link or file by its name, a
    /// folder with everything in it (std's `remove_dir_all` follows no link). A folder that is a
    /// repository under another name keeps everything but its `HEAD`, without which git takes
    /// it for none (the folder may be the project's own, made a repository around its files).
    fn remove(path: &Path, workspace: &Path) -> Planted {
        if !path.file_name().is_some_and(is_git) {
            let head = path.join("HEAD");
            let removed = match std::fs::symlink_metadata(&head) {
                Ok(m) if m.is_dir() => std::fs::remove_dir_all(&head),
                _ => std::fs::remove_file(&head),
            };
            let (removed, error) = (removed.is_ok(), removed.err().map(|e| e.to_string()));
            return Planted {
                path: shown(path, workspace),
                kind: "repository".into(),
                points_to: None,
                removed,
                error,
            };
        }
        let (kind, points_to) = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => {
                ("link", std::fs::read_link(path).ok().map(|t| t.display().to_string()))
            }
            Ok(m) if m.is_dir() => ("folder", None),
            Ok(m) if m.is_file() => ("file", first_line(path)),
            Ok(_) => ("other", None),
            Err(_) => ("gone", None),
        };
        let removed = match kind {
            "gone" => Ok(false),
            "folder" => std::fs::remove_dir_all(path).map(|()| true),
            _ => std::fs::remove_file(path).map(|()| true),
        };
        let (removed, error) = match removed {
            Ok(removed) => (removed, None),
            Err(e) => (false, Some(e.to_string())),
        };
        Planted { path: shown(path, workspace), kind: kind.into(), points_to, removed, error }
    }

    /// A `.git` file's first line (`gitdir: …`), from its first 200 bytes.
    fn first_line(path: &Path) -> Option<String> {
        use std::io::Read;
        let mut head = [0u8; 200];
        // A program may swap the file for a FIFO after it was looked at: never wait on one.
        let n = open_unwaited(path, Links::Refuse).and_then(|mut f| f.read(&mut head)).ok()?;
        String::from_utf8_lossy(&head[..n]).lines().next().map(|line| line.trim().to_string())
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn the_sweep_removes_every_new_repository_and_keeps_the_old_ones() {
            let dir = tempfile::tempdir().unwrap();
            let ws = dir.path().join("ws");
            std::fs::create_dir_all(ws.join("entry/.git/hooks")).unwrap();
            std::fs::create_dir_all(dir.path().join("home")).unwrap();
            let (stop, _heard) = tokio::sync::oneshot::channel();
            let watch = Watch::start(vec![ws.join("entry"), ws.join("lib")], &ws, stop);
            assert_eq!(watch.existing(), vec![ws.join("entry/.git")]);
            // Every kind: a folder (in any case), a `.git` file, a link; and a link that only looks
            // like one (`.github`).
            std::fs::create_dir_all(ws.join("entry/src/.GIT/hooks")).unwrap();
            std::fs::write(ws.join("entry/src/.GIT/hooks/post-checkout"), "#!/bin/sh\n").unwrap();
            std::fs::create_dir_all(ws.join("entry/src/main")).unwrap();
            std::fs::write(ws.join("entry/src/main/.git"), "gitdir: /home/x/.git\n").unwrap();
            std::os::unix::fs::symlink(dir.path().join("home"), ws.join("entry/.github")).unwrap();
            std::fs::create_dir_all(ws.join("entry/deep")).unwrap();
            std::os::unix::fs::symlink(dir.path().join("home"), ws.join("entry/deep/.git")).unwrap();
            // A folder made a repository without the name, around a file of the project's.
            std::fs::create_dir_all(ws.join("entry/src/main/objects")).unwrap();
            std::fs::write(ws.join("entry/src/main/page.ets"), "page").unwrap();
            std::fs::write(ws.join("entry/src/main/HEAD"), "ref: refs/heads/main\n").unwrap();
            let planted = watch.sweep();
            let repository = planted.iter().find(|p| p.path == "entry/src/main").unwrap();
            assert_eq!((repository.kind.as_str(), repository.removed), ("repository", true));
            assert!(!ws.join("entry/src/main/HEAD").exists() && ws.join("entry/src/main/page.ets").exists());
            assert!(ws.join("entry/src/main/objects").is_dir(), "only its HEAD goes");
            let planted: Vec<Planted> = planted.into_iter().filter(|p| p.kind != "repository").collect();
            let by_path = |p: &str| planted.iter().find(|x| x.path == p).unwrap_or_else(|| panic!("{p}: {planted:?}"));
            assert_eq!(by_path("entry/src/.GIT").kind, "folder");
            assert_eq!(by_path("entry/src/main/.git").points_to.as_deref(), Some("gitdir: /home/x/.git"));
            assert_eq!(by_path("entry/deep/.git").kind, "link");
            assert!(planted.iter().all(|p| p.removed), "{planted:?}");
            assert_eq!(planted.len(), 3, "{planted:?}");
            assert!(ws.join("entry/.git/hooks").is_dir(), "the repository that was there stays");
            assert!(ws.join("entry/.github").exists() && dir.path().join("home").is_dir(), "a link's target stays");
        }
    }
}
