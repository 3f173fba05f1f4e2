//! The scope on Windows: requested paths are read as Windows reads them
//! (`scope::windows_paths`, table-tested on every OS), links and junctions are followed by
//! asking the disk, and every real path is the verbatim form (`\\?\C:\...`) that Windows opens
//! without rewriting. Type-checked in CI, not run (docs/src/platforms.md).

use std::path::{Path, PathBuf};

use super::windows_paths::{self, Refused, Root, WinPath};
use super::{ResolvedPath, ScopeError};

/// `path` (already absolute: canonicalized, or built by `resolve`) as a WinPath.
pub fn win(path: &Path) -> Result<WinPath, Refused> {
    let any = WinPath { root: Root::Drive('C'), parts: Vec::new() };
    windows_paths::parse(&path.to_string_lossy(), &any)
}

/// What the disk says `path` is a link to (a symlink or a junction: both are name surrogates
/// to std), or None.
fn link_of(path: &WinPath) -> Result<Option<String>, &'static str> {
    let verbatim = PathBuf::from(path.verbatim());
    let Ok(meta) = std::fs::symlink_metadata(&verbatim) else { return Ok(None) };
    if !meta.file_type().is_symlink() {
        return Ok(None);
    }
    match std::fs::read_link(&verbatim) {
        Ok(target) => Ok(Some(target.to_string_lossy().into_owned())),
        Err(_) => Err("a link on the way cannot be read"),
    }
}

fn refused(e: Refused) -> ScopeError {
    ScopeError::Refused { why: e.to_string() }
}

/// `path` with its longest existing part replaced by what Windows says it really is
/// (`GetFinalPathNameByHandle`: links followed, short names made long, a SUBST drive turned
/// into the disk it stands for); the missing rest appended as it was.
fn canonical_prefix(path: &Path) -> PathBuf {
    let mut existing = path;
    let mut rest = Vec::new();
    loop {
        if let Ok(found) = std::fs::canonicalize(existing) {
            return rest.iter().rev().fold(found, |path: PathBuf, part| path.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Resolves `requested` against `workspace` (relative paths start there) and classifies it.
/// The text is judged first (refusing what Windows would read differently), links are followed
/// part by part, and then the disk has the last word on what exists: a drive letter that is
/// another folder in disguise (SUBST) becomes that folder before the class is decided.
pub fn resolve(workspace: &Path, home: &Path, requested: &str) -> Result<ResolvedPath, ScopeError> {
    let ws = win(workspace).map_err(refused)?;
    let home = win(home).map_err(refused)?;
    let parsed = windows_paths::parse(requested, &ws).map_err(refused)?;
    let linked = windows_paths::resolve_links(&parsed, &link_of).map_err(refused)?;
    let real = win(&canonical_prefix(Path::new(&linked.verbatim()))).map_err(refused)?;
    let class = windows_paths::classify(&ws, &home, &real);
    let real = real.rebased(&ws).rebased(&home);
    Ok(ResolvedPath { requested: requested.to_string(), real: PathBuf::from(real.verbatim()), class })
}

/// `home` made absolute (from the current folder) with its links followed, verbatim. Its
/// longest existing part is canonicalized first, so a short name in it (`C:\Users\RUNNER~1`,
/// as `%TEMP%` often has) becomes the long one instead of being refused.
pub fn absolute_home(home: &Path) -> Result<PathBuf, ScopeError> {
    let cwd = std::env::current_dir().ok().and_then(|d| std::fs::canonicalize(d).ok()).and_then(|d| win(&d).ok());
    let base = cwd.unwrap_or(WinPath { root: Root::Drive('C'), parts: Vec::new() });
    let absolute = if home.is_absolute() { home.to_path_buf() } else { PathBuf::from(base.verbatim()).join(home) };
    let long = canonical_prefix(&absolute);
    let parsed = windows_paths::parse(&long.to_string_lossy(), &base).map_err(refused)?;
    let real = windows_paths::resolve_links(&parsed, &link_of).map_err(refused)?;
    Ok(PathBuf::from(real.verbatim()))
}

/// Relative to the workspace with `/` (as agents write paths), else the familiar `C:\...`.
pub fn display(workspace: &Path, real: &Path) -> String {
    let (Ok(ws), Ok(real_win)) = (win(workspace), win(real)) else { return real.display().to_string() };
    match real_win.strip_prefix(&ws) {
        Some([]) => ".".to_string(),
        Some(rest) => rest.join("/"),
        None => real_win.display(),
    }
}
