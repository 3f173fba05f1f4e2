//! The scope on Unix (Linux, macOS): requested paths are made absolute from the workspace,
//! `.` and `..` are resolved by text, then every symlink along the way is followed by asking
//! the disk, through parts that do not exist yet and dangling links too.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

use super::protected::{self, same_name};
use super::{PathClass, ResolvedPath, ScopeError};

/// Symlink hops allowed while resolving one path (the same bound as Linux's ELOOP).
const MAX_SYMLINK_HOPS: usize = 40;

/// The folder a path named (device and inode), to tell whether it still names it.
#[derive(Debug, Clone)]
pub struct Identity(Option<(u64, u64)>);

impl Identity {
    pub fn of(path: &Path) -> Identity {
        Identity(std::fs::metadata(path).ok().map(|meta| (meta.dev(), meta.ino())))
    }

    /// No folder: nothing is named by it.
    pub fn none() -> Identity {
        Identity(None)
    }

    /// The folder of this device and inode (a held folder's, from `fstat`).
    pub fn known(dev: u64, ino: u64) -> Identity {
        Identity(Some((dev, ino)))
    }

    /// Whether `path` (links followed) is still the folder it was.
    fn still_named_by(&self, path: &Path) -> bool {
        self.0.is_some() && Identity::of(path).0 == self.0
    }
}

/// Resolves `requested` against `workspace` (relative paths start there) and classifies it;
/// `held` is the folder the workspace's path named when the scope was built.
pub fn resolve(workspace: &Path, held: &Identity, home: &Path, requested: &str) -> Result<ResolvedPath, ScopeError> {
    let lexical = normalize_lexically(&absolute(Path::new(requested), workspace));
    // The workspace was made real when the scope was built: while its path still names that
    // folder (one stat, where following every part from `/` took one per part), its own parts
    // are not looked at again. Once it names another (the folder moved, a link in its place),
    // every part is followed from `/` again, as programs, which go by names, would see it.
    let real = match lexical.strip_prefix(workspace) {
        Ok(rest) if held.still_named_by(workspace) => resolve_real_from(workspace, rest, &lexical)?,
        _ => resolve_real(&lexical)?,
    };
    let class = classify(workspace, home, &real);
    Ok(ResolvedPath { requested: requested.to_string(), real, class })
}

/// `home` made absolute (from the current folder) with its links followed.
pub fn absolute_home(home: &Path) -> Result<PathBuf, ScopeError> {
    resolve_real(&normalize_lexically(&absolute(home, &std::env::current_dir().unwrap_or_else(|_| "/".into()))))
}

/// Protected and Policy (the table in `protected`) beat Home beats Workspace: a home inside
/// the workspace is still home.
///
/// The stricter classes compare names without case: macOS's default APFS (like Windows
/// shares, or casefolded ext4) ignores it, so `.GIT` is git's folder there, `REIN.TOML` the
/// policy file, and a workspace or home named in another case the same folder. On a
/// case-sensitive disk this only makes an odd name stricter.
pub fn classify(workspace: &Path, home: &Path, real: &Path) -> PathClass {
    if let Some(class) = parts_after_folded(real, workspace).and_then(|rest| protected::class_of(&rest)) {
        return class;
    }
    if parts_after_folded(real, home).is_some() {
        return PathClass::Home;
    }
    if real.starts_with(workspace) {
        return PathClass::Workspace;
    }
    PathClass::Outside
}

/// Relative to the workspace when inside it, else the whole path.
pub fn display(workspace: &Path, real: &Path) -> String {
    match real.strip_prefix(workspace) {
        Ok(rest) if rest.as_os_str().is_empty() => ".".to_string(),
        Ok(rest) => rest.to_string_lossy().into_owned(),
        Err(_) => real.to_string_lossy().into_owned(),
    }
}

fn absolute(path: &Path, base: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

/// Removes `.` and resolves `..` by text alone; `..` never climbs above `/`.
fn normalize_lexically(path: &Path) -> PathBuf {
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

/// Follows every symlink along `path` (which must be absolute and lexically normal), like
/// realpath, but also through parts that do not exist yet and through dangling links, so a
/// link to a missing file outside the workspace still resolves to outside.
fn resolve_real(path: &Path) -> Result<PathBuf, ScopeError> {
    resolve_real_from(Path::new("/"), path, path)
}

/// [`resolve_real`] of `real_base` joined with `rest`, where `real_base` is known to be real
/// already; `whole` is the path for messages.
fn resolve_real_from(real_base: &Path, rest: &Path, whole: &Path) -> Result<PathBuf, ScopeError> {
    let mut pending: VecDeque<OsString> = normal_parts(rest).collect();
    let mut out = real_base.to_path_buf();
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
            return Err(ScopeError::LinkLoop { path: whole.display().to_string() });
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

/// The names of `path` after `base` when it is `base` or inside it, compared without case.
fn parts_after_folded<'a>(path: &'a Path, base: &Path) -> Option<Vec<Cow<'a, str>>> {
    let mut path_parts = path.components();
    for base_part in base.components() {
        let same = match (base_part, path_parts.next()?) {
            (Component::Normal(b), Component::Normal(p)) => same_name(&p.to_string_lossy(), &b.to_string_lossy()),
            (b, p) => b == p,
        };
        if !same {
            return None;
        }
    }
    Some(
        path_parts
            .filter_map(|c| match c {
                Component::Normal(name) => Some(name.to_string_lossy()),
                _ => None,
            })
            .collect(),
    )
}

fn normal_parts(path: &Path) -> impl Iterator<Item = OsString> + '_ {
    path.components().filter_map(|c| match c {
        Component::Normal(name) => Some(name.to_os_string()),
        _ => None,
    })
}

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
    use crate::kernel::scope::Scope;
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

    /// The held folder's device and inode.
    fn id(path: &Path) -> (u64, u64) {
        let meta = std::fs::metadata(path).unwrap();
        (meta.dev(), meta.ino())
    }

    /// A scope holds the folder opened for it only when its path, walked following no link,
    /// reaches that folder (`Dir::open_following_no_link` walks it).
    #[test]
    fn a_scope_holds_only_the_folder_its_path_reaches_with_no_link_on_the_way() {
        let f = fixture();
        let (ws, ws2) = (f.base.join("ws"), f.base.join("ws2"));
        assert!(f.scope.clone().holding(id(&ws), Ok(id(&ws))).is_ok());
        let moved = |result: Result<Scope, ScopeError>| matches!(result, Err(ScopeError::WorkspaceMoved { .. }));
        assert!(moved(f.scope.clone().holding(id(&ws2), Ok(id(&ws)))));
        let link_on_the_way = std::io::Error::from_raw_os_error(libc::ELOOP);
        assert!(moved(f.scope.clone().holding(id(&ws), Err(link_on_the_way))));
    }

    /// Two looks: a real path gives its folder; a link as its last part or above it does not.
    #[test]
    fn naming_by_looking_refuses_a_link_anywhere_on_the_way() {
        let f = fixture();
        let ws = f.base.join("ws");
        assert_eq!(super::super::named_by_looking(&ws).unwrap(), id(&ws));
        symlink(&ws, f.base.join("ws-link")).unwrap();
        symlink(&f.base, f.base.join("alias")).unwrap();
        assert!(super::super::named_by_looking(&f.base.join("ws-link")).is_err());
        assert!(super::super::named_by_looking(&f.base.join("alias/ws")).is_err());
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
        assert!(matches!(f.scope.resolve("a\0b"), Err(ScopeError::ControlCharacter { .. })));
        for name in ["a\u{1b}[2Jb", "a\rb", "a\nb", "a\u{7f}", "a\u{9b}b"] {
            let refused = f.scope.resolve(name).unwrap_err();
            assert!(matches!(refused, ScopeError::ControlCharacter { .. }), "{name:?}");
            assert!(!refused.to_string().chars().any(char::is_control), "{refused}");
        }
        assert!(matches!(f.scope.resolve(""), Err(ScopeError::Empty)));
    }

    #[test]
    fn links_inside_the_workspace_are_followed_from_its_real_path() {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        let (ws, home, other) = (base.join("ws"), base.join("home"), base.join("other"));
        for dir in [&ws, &other, &ws.join("sub")] {
            std::fs::create_dir_all(dir).unwrap();
        }
        symlink(&other, ws.join("abs")).unwrap();
        symlink("../other", ws.join("up")).unwrap();
        symlink("../a.txt", ws.join("sub/back")).unwrap();
        symlink("loop", ws.join("loop")).unwrap();

        let at = |requested: &str| resolve(&ws, &Identity::of(&ws), &home, requested).unwrap();
        assert_eq!((at("a.txt").real, at("a.txt").class), (ws.join("a.txt"), PathClass::Workspace));
        assert_eq!((at("abs/x").real, at("abs/x").class), (other.join("x"), PathClass::Outside));
        assert_eq!((at("up/x").real, at("up/x").class), (other.join("x"), PathClass::Outside));
        assert_eq!(at("sub/back").real, ws.join("a.txt"));
        assert_eq!(at("sub/../../other/x").real, other.join("x"));
        assert_eq!(at(ws.join("abs").to_str().unwrap()).real, other);
        assert!(matches!(resolve(&ws, &Identity::of(&ws), &home, "loop"), Err(ScopeError::LinkLoop { .. })));
    }
}

#[cfg(all(test, unix))]
#[path = "unix_links_tests.rs"]
mod links_tests;
