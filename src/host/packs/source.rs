//! Where a pack comes from: a source as given (a folder, or a git repository at a rev or a
//! locked commit), recorded the same on every machine, and staged into home for a person to see.

use std::path::{Component, Path};

use crate::error::{Code, Failure};
use crate::kernel::Kernel;
use crate::packs::git::{fetch, Source, Wanted};
use crate::packs::install::{stage, Staged};

/// A pack staged from its source, and the commit it was taken at (git sources).
pub struct Prepared {
    pub staged: Staged,
    pub commit: Option<String>,
}

/// Stages `source`: a folder as it is, or a git repository checked out at its rev, or at
/// exactly `commit`.
pub fn fetch_and_stage(kernel: &Kernel, source: &Source, commit: Option<&str>) -> Result<Prepared, Failure> {
    source.check()?;
    let home = kernel.scope().home();
    if !source.is_git() {
        if source.rev.is_some() {
            return Err(Failure::new(
                Code::InvalidArgs,
                format!("{} is a folder, not a git repository; drop the @rev", source.location),
            ));
        }
        return Ok(Prepared { staged: stage(home, Path::new(&source.location))?, commit: None });
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::new(Code::IoError, format!("cannot start the async runtime: {e}")))?;
    let wanted = match commit {
        Some(commit) => Wanted::Commit(commit),
        None => Wanted::Rev(source.rev.as_deref()),
    };
    let checkout = runtime.block_on(fetch(kernel, source, wanted))?;
    // The checkout is removed as it goes out of scope; the staged copy stays until installed.
    Ok(Prepared { staged: stage(home, &checkout.dir)?, commit: Some(checkout.commit.clone()) })
}

/// The source as rein.lock and rein.toml record it, the same on every machine: a URL as
/// given, or a folder relative to the workspace.
pub fn portable(workspace: &Path, source: &Source) -> Result<String, Failure> {
    if source.is_remote() {
        return Ok(source.display());
    }
    let dir = std::fs::canonicalize(&source.location)
        .map_err(|e| Failure::new(Code::InvalidArgs, format!("pack source {}: {e}", source.location)))?;
    let relative = relative_path(workspace, &dir);
    Ok(Source { location: relative, rev: source.rev.clone() }.display())
}

/// A recorded source, with a relative folder resolved against the workspace.
pub fn located(workspace: &Path, recorded: &str) -> Source {
    let source = Source::parse(recorded);
    if source.is_remote() || Path::new(&source.location).is_absolute() {
        return source;
    }
    Source { location: workspace.join(&source.location).display().to_string(), rev: source.rev }
}

/// `to` relative to `from` (both absolute and canonical), with `..` where needed, its parts
/// joined with `/` so rein.toml and rein.lock read the same on every OS.
fn relative_path(from: &Path, to: &Path) -> String {
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let up = from[common..].iter().map(|_| "..".to_string());
    let parts: Vec<String> =
        up.chain(to[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned())).collect();
    if parts.is_empty() {
        ".".to_string()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_sources_walk_up_as_needed() {
        assert_eq!(relative_path(Path::new("/a/b/ws"), Path::new("/a/b/kit")), "../kit");
        assert_eq!(relative_path(Path::new("/a/ws"), Path::new("/a/ws/vendor/kit")), "vendor/kit");
        assert_eq!(relative_path(Path::new("/a/ws"), Path::new("/a/ws")), ".");
    }
}
