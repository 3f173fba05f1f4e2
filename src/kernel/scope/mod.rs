//! Where a path really points, and which class of place that is. Every kernel operation
//! resolves its path here first; the approval policy decides on the class.

#[cfg(not(windows))]
use std::collections::VecDeque;
#[cfg(not(windows))]
use std::ffi::OsString;
#[cfg(not(windows))]
use std::path::Component;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[cfg(not(windows))]
/// Symlink hops allowed while resolving one path (the same bound as Linux's ELOOP).
const MAX_SYMLINK_HOPS: usize = 40;

#[cfg(not(windows))]
/// The folder of the workspace that belongs to rein, not to the agent.
const REIN_DIR: &str = ".rein";
#[cfg(not(windows))]
/// git's folder, wherever it is in the workspace (a nested repository's too).
const GIT_DIR: &str = ".git";
#[cfg(not(windows))]
/// The project's policy files, at the workspace root.
const POLICY_FILES: [&str; 2] = ["rein.toml", "rein.lock"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PathClass {
    Workspace,
    Home,
    Outside,
    Protected,
    /// rein.toml or rein.lock at the workspace root.
    Policy,
}

impl PathClass {
    pub fn describe(self) -> &'static str {
        match self {
            PathClass::Workspace => "inside the workspace",
            PathClass::Home => "inside rein's home (its config and approvals)",
            PathClass::Outside => "outside the workspace",
            PathClass::Protected => "inside a .git/ folder or .rein/ of the workspace",
            PathClass::Policy => "the project's policy file (rein.toml or rein.lock)",
        }
    }
}

/// Reading or writing a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Reading (listing a folder too).
    Read,
    /// Writing (creating, editing, making a folder).
    Write,
}

impl Access {
    /// `"read"` or `"write"`.
    pub fn verb(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
        }
    }
}

/// Why a path cannot be resolved.
#[derive(Debug, thiserror::Error)]
pub enum ScopeError {
    #[error("path is empty; give a file path relative to the workspace")]
    Empty,
    #[error("path {shown:?} contains a NUL byte; remove it")]
    NulByte { shown: String },
    #[error("{path} has too many levels of symbolic links; fix the link cycle")]
    LinkLoop { path: String },
    #[error("cannot read the link {path}: {source}")]
    ReadLink {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("workspace {path} cannot be used ({source}); pass --workspace with an existing directory")]
    Workspace {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("workspace {path} is not a directory; pass --workspace with a project directory")]
    WorkspaceNotADirectory { path: String },
    /// A path the OS would read differently from the check (Windows: `kernel::scope::windows_paths`).
    #[error("{why}")]
    Refused { why: String },
}

/// A path after resolution: `real` has no `.`/`..` and no symlinks in any existing part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// What the caller asked for, as given.
    pub requested: String,
    pub real: PathBuf,
    pub class: PathClass,
}

impl ResolvedPath {
    /// How the path is shown to callers: relative to the workspace when inside it.
    pub fn display(&self, scope: &Scope) -> String {
        scope.display(&self.real)
    }
}

#[derive(Debug, Clone)]
pub struct Scope {
    workspace: PathBuf,
    home: PathBuf,
}

impl Scope {
    /// `workspace` must exist; `home` may not exist yet.
    pub fn new(workspace: &Path, home: &Path) -> Result<Scope, ScopeError> {
        let workspace = std::fs::canonicalize(workspace)
            .map_err(|source| ScopeError::Workspace { path: workspace.display().to_string(), source })?;
        if !workspace.is_dir() {
            return Err(ScopeError::WorkspaceNotADirectory { path: workspace.display().to_string() });
        }
        #[cfg(windows)]
        let home = windows::absolute_home(home)?;
        #[cfg(not(windows))]
        let home = resolve_real(&normalize_lexically(&absolute(
            home,
            &std::env::current_dir().unwrap_or_else(|_| "/".into()),
        )))?;
        Ok(Scope { workspace, home })
    }

    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    pub fn home(&self) -> &Path {
        &self.home
    }

    /// Resolves `requested` (relative paths start at the workspace, never at the process's
    /// current directory) and classifies where it really points.
    pub fn resolve(&self, requested: &str) -> Result<ResolvedPath, ScopeError> {
        if requested.is_empty() {
            return Err(ScopeError::Empty);
        }
        if requested.contains('\0') {
            return Err(ScopeError::NulByte { shown: requested.replace('\0', "\\0") });
        }
        self.resolve_checked(requested)
    }

    #[cfg(windows)]
    fn resolve_checked(&self, requested: &str) -> Result<ResolvedPath, ScopeError> {
        windows::resolve(&self.workspace, &self.home, requested)
    }

    #[cfg(not(windows))]
    fn resolve_checked(&self, requested: &str) -> Result<ResolvedPath, ScopeError> {
        let lexical = normalize_lexically(&absolute(Path::new(requested), &self.workspace));
        let real = resolve_real(&lexical)?;
        let class = self.classify(&real);
        Ok(ResolvedPath { requested: requested.to_string(), real, class })
    }

    /// Protected and Policy beat Home beats Workspace: a home inside the workspace is still
    /// home.
    #[cfg(windows)]
    pub fn classify(&self, real: &Path) -> PathClass {
        windows::classify(&self.workspace, &self.home, real)
    }

    /// Protected and Policy beat Home beats Workspace: a home inside the workspace is still
    /// home.
    ///
    /// The stricter classes compare names without case: macOS's default APFS (like Windows
    /// shares, or casefolded ext4) ignores it, so `.GIT` is git's folder there, `REIN.TOML`
    /// the policy file, and a workspace or home named in another case the same folder. On a
    /// case-sensitive disk this only makes an odd name stricter.
    #[cfg(not(windows))]
    pub fn classify(&self, real: &Path) -> PathClass {
        if let Some(parts) = parts_after_folded(real, &self.workspace) {
            if parts.first().is_some_and(|first| same_folded(first, REIN_DIR))
                || parts.iter().any(|p| same_folded(p, GIT_DIR))
            {
                return PathClass::Protected;
            }
            if let [only] = parts.as_slice() {
                if POLICY_FILES.iter().any(|f| same_folded(only, f)) {
                    return PathClass::Policy;
                }
            }
        }
        if parts_after_folded(real, &self.home).is_some() {
            return PathClass::Home;
        }
        if real.starts_with(&self.workspace) {
            return PathClass::Workspace;
        }
        PathClass::Outside
    }

    #[cfg(windows)]
    pub fn display(&self, real: &Path) -> String {
        windows::display(&self.workspace, real)
    }

    #[cfg(not(windows))]
    pub fn display(&self, real: &Path) -> String {
        match real.strip_prefix(&self.workspace) {
            Ok(rest) if rest.as_os_str().is_empty() => ".".to_string(),
            Ok(rest) => rest.to_string_lossy().into_owned(),
            Err(_) => real.to_string_lossy().into_owned(),
        }
    }
}

#[cfg(windows)]
mod windows;
// Pure functions, compiled everywhere so their tables run on every OS; only Windows uses them.
#[cfg_attr(not(windows), allow(dead_code))]
pub mod windows_paths;

#[cfg(not(windows))]
fn absolute(path: &Path, base: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

#[cfg(not(windows))]
/// Removes `.` and resolves `..` by text alone; `..` never climbs above `/`.
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::Normal(name) => out.push(name),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

#[cfg(not(windows))]
/// Follows every symlink along `path` (which must be absolute and lexically normal), like
/// realpath, but also through parts that do not exist yet and through dangling links, so a
/// link to a missing file outside the workspace still resolves to outside.
fn resolve_real(path: &Path) -> Result<PathBuf, ScopeError> {
    let mut pending: VecDeque<OsString> = normal_parts(path).collect();
    let mut out = PathBuf::from("/");
    let mut hops = 0;
    while let Some(part) = pending.pop_front() {
        if part == ".." {
            out.pop();
            continue;
        }
        let candidate = out.join(&part);
        let Ok(meta) = std::fs::symlink_metadata(&candidate) else {
            out = candidate;
            continue;
        };
        if !meta.file_type().is_symlink() {
            out = candidate;
            continue;
        }
        hops += 1;
        if hops > MAX_SYMLINK_HOPS {
            return Err(ScopeError::LinkLoop { path: path.display().to_string() });
        }
        let target = std::fs::read_link(&candidate)
            .map_err(|source| ScopeError::ReadLink { path: candidate.display().to_string(), source })?;
        if target.is_absolute() {
            out = PathBuf::from("/");
        }
        for (i, piece) in link_parts(&target).into_iter().enumerate() {
            pending.insert(i, piece);
        }
    }
    Ok(out)
}

/// Whether `a` is the name `b` on a disk that ignores case (every letter folds).
#[cfg(not(windows))]
fn same_folded(a: &std::ffi::OsStr, b: &str) -> bool {
    windows_paths::same_name(&a.to_string_lossy(), b)
}

/// The names of `path` after `base` when it is `base` or inside it, compared without case.
#[cfg(not(windows))]
fn parts_after_folded<'a>(path: &'a Path, base: &Path) -> Option<Vec<&'a std::ffi::OsStr>> {
    let mut path_parts = path.components();
    for base_part in base.components() {
        let same = match (base_part, path_parts.next()?) {
            (Component::Normal(b), Component::Normal(p)) => same_folded(p, &b.to_string_lossy()),
            (b, p) => b == p,
        };
        if !same {
            return None;
        }
    }
    Some(
        path_parts
            .filter_map(|c| match c {
                Component::Normal(name) => Some(name),
                _ => None,
            })
            .collect(),
    )
}

#[cfg(not(windows))]
fn normal_parts(path: &Path) -> impl Iterator<Item = OsString> + '_ {
    path.components().filter_map(|c| match c {
        Component::Normal(name) => Some(name.to_os_string()),
        _ => None,
    })
}

#[cfg(not(windows))]
/// A link target's parts, keeping `..` so they are applied against the real parent.
fn link_parts(target: &Path) -> Vec<OsString> {
    target
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            _ => None,
        })
        .collect()
}

// Unix only: these make symlinks with std::os::unix. The Windows rules are tables on every OS
// (kernel/scope/windows_paths_tests.rs).
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    struct Fixture {
        _root: tempfile::TempDir,
        base: PathBuf,
        scope: Scope,
    }

    fn fixture() -> Fixture {
        let root = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(root.path()).unwrap();
        std::fs::create_dir_all(base.join("ws/src")).unwrap();
        std::fs::create_dir_all(base.join("ws2")).unwrap();
        std::fs::create_dir_all(base.join("home")).unwrap();
        let scope = Scope::new(&base.join("ws"), &base.join("home")).unwrap();
        Fixture { _root: root, base, scope }
    }

    fn class_of(f: &Fixture, p: &str) -> PathClass {
        f.scope.resolve(p).unwrap().class
    }

    #[test]
    fn relative_paths_start_at_the_workspace() {
        let f = fixture();
        let r = f.scope.resolve("src/main.ets").unwrap();
        assert_eq!(r.real, f.base.join("ws/src/main.ets"));
        assert_eq!(r.class, PathClass::Workspace);
        assert_eq!(r.display(&f.scope), "src/main.ets");
    }

    #[test]
    fn dot_dot_escapes_are_outside() {
        let f = fixture();
        assert_eq!(class_of(&f, "../outside.txt"), PathClass::Outside);
        assert_eq!(class_of(&f, "src/../../x"), PathClass::Outside);
        assert_eq!(class_of(&f, "src/../x"), PathClass::Workspace);
        assert_eq!(class_of(&f, "/etc/passwd"), PathClass::Outside);
        assert_eq!(class_of(&f, "../../../../../../../../etc"), PathClass::Outside);
    }

    #[test]
    fn sibling_with_the_same_prefix_is_outside() {
        let f = fixture();
        let sibling = f.base.join("ws2/file").display().to_string();
        assert_eq!(class_of(&f, &sibling), PathClass::Outside);
        assert_eq!(class_of(&f, "../ws2/file"), PathClass::Outside);
    }

    #[test]
    fn dot_dot_through_a_missing_directory_is_resolved_by_text() {
        let f = fixture();
        assert_eq!(class_of(&f, "missing/../../escape"), PathClass::Outside);
        assert_eq!(class_of(&f, "missing/deeper/../../ok.txt"), PathClass::Workspace);
        let r = f.scope.resolve("missing/deeper/../../ok.txt").unwrap();
        assert_eq!(r.real, f.base.join("ws/ok.txt"));
    }

    #[test]
    fn symlinks_are_judged_by_their_target() {
        let f = fixture();
        let ws = f.base.join("ws");
        symlink(f.base.join("ws2"), ws.join("to_outside_dir")).unwrap();
        symlink("../ws2/secret", ws.join("to_outside_file")).unwrap();
        symlink(f.base.join("nowhere/missing"), ws.join("dangling_out")).unwrap();
        symlink("src", ws.join("inner")).unwrap();
        assert_eq!(class_of(&f, "to_outside_dir/x"), PathClass::Outside);
        assert_eq!(class_of(&f, "to_outside_file"), PathClass::Outside);
        assert_eq!(class_of(&f, "dangling_out"), PathClass::Outside);
        assert_eq!(class_of(&f, "inner/a.ets"), PathClass::Workspace);
        assert_eq!(f.scope.resolve("inner/a.ets").unwrap().real, ws.join("src/a.ets"));
    }

    #[test]
    fn symlink_cycles_are_refused() {
        let f = fixture();
        let ws = f.base.join("ws");
        symlink("b", ws.join("a")).unwrap();
        symlink("a", ws.join("b")).unwrap();
        assert!(matches!(f.scope.resolve("a/x"), Err(ScopeError::LinkLoop { .. })));
    }

    #[test]
    fn git_and_rein_folders_are_protected() {
        let f = fixture();
        assert_eq!(class_of(&f, ".git/config"), PathClass::Protected);
        assert_eq!(class_of(&f, ".rein/journal/x"), PathClass::Protected);
        assert_eq!(class_of(&f, "src/.git/config"), PathClass::Protected, "every .git, not only the top one");
        assert_eq!(class_of(&f, "vendor/lib/.git/config"), PathClass::Protected);
        assert_eq!(class_of(&f, "src/.rein/x"), PathClass::Workspace);
        assert_eq!(class_of(&f, "rein.toml"), PathClass::Policy);
        assert_eq!(class_of(&f, "rein.lock"), PathClass::Policy);
        assert_eq!(class_of(&f, "sub/rein.toml"), PathClass::Workspace);
        assert_eq!(class_of(&f, ".github/workflows"), PathClass::Workspace);
    }

    /// macOS's default APFS ignores case (as do Windows shares and casefolded ext4): `.GIT`
    /// is git's folder there and `REIN.TOML` the policy file, and a workspace or home named in
    /// another case is the same folder. The stricter classes fold every letter; on a
    /// case-sensitive disk that only makes an odd name stricter.
    #[test]
    fn protected_policy_and_home_do_not_depend_on_case() {
        let f = fixture();
        assert_eq!(class_of(&f, ".GIT/hooks/pre-commit"), PathClass::Protected);
        assert_eq!(class_of(&f, "src/.Git/config"), PathClass::Protected);
        assert_eq!(class_of(&f, ".REIN/policy/rein.toml"), PathClass::Protected);
        assert_eq!(class_of(&f, "REIN.TOML"), PathClass::Policy);
        assert_eq!(class_of(&f, "Rein.Lock"), PathClass::Policy);
        let upper = |p: &str| f.base.join(p).display().to_string().to_uppercase();
        assert_eq!(class_of(&f, &upper("ws/.git/config")), PathClass::Protected);
        assert_eq!(class_of(&f, &upper("home/approvals.toml")), PathClass::Home);
        assert_eq!(class_of(&f, &upper("ws/src/a.ets")), PathClass::Outside, "plain files: asked about");
        // HFS+ ignores zero-width joiners and the like in names (CVE-2014-9390).
        assert_eq!(class_of(&f, ".g\u{200c}it/config"), PathClass::Protected);
    }

    #[test]
    fn home_is_recognised_even_inside_the_workspace() {
        let f = fixture();
        let home_path = f.base.join("home/approvals.toml").display().to_string();
        assert_eq!(class_of(&f, &home_path), PathClass::Home);
        let inner_home = f.base.join("ws/.home");
        let scope = Scope::new(&f.base.join("ws"), &inner_home).unwrap();
        assert_eq!(scope.resolve(".home/config.toml").unwrap().class, PathClass::Home);
    }

    #[test]
    fn nul_and_empty_paths_are_invalid() {
        let f = fixture();
        assert!(matches!(f.scope.resolve("a\0b"), Err(ScopeError::NulByte { .. })));
        assert!(matches!(f.scope.resolve(""), Err(ScopeError::Empty)));
    }
}
