//! Directory listings: what is there, never following links out of the tree.

use serde::Serialize;

use super::dir::{Dir, Kind};
use crate::kernel::scope::protected::{GIT_DIR, REIN_DIR};
use crate::kernel::{KernelError, Scope};

/// Folders listed but never descended into: tool state and dependency caches, with those of
/// the toolchain (`ToolchainProfile::bulky_dirs`). (`.rein` at the workspace root is not
/// listed at all.)
const NOT_DESCENDED: [&str; 4] = [GIT_DIR, REIN_DIR, "node_modules", "target"];
pub const MAX_DEPTH: usize = 16;

/// How deep and how much to list.
#[derive(Debug, Clone, Copy)]
pub struct ListOptions {
    /// How many folder levels below the listed one (at most 16, `MAX_DEPTH`).
    pub depth: usize,
    /// Stop after this many entries (the output says it was truncated).
    pub max_entries: usize,
}

/// One entry of a listing.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// Relative to the workspace.
    pub path: String,
    /// `"file"`, `"dir"`, `"symlink"` or `"other"`.
    pub kind: &'static str,
    /// Its size in bytes (files).
    pub size: u64,
}

/// A folder's listing: the result `list_dir` gives.
#[derive(Debug, Clone, Serialize)]
pub struct ListOutput {
    /// The folder, as the caller named it.
    pub path: String,
    /// Its entries, sorted.
    pub entries: Vec<Entry>,
    /// Whether entries were left out (`max_entries`).
    pub truncated: bool,
}

/// Lists `dir`; `bulky` are more folders not descended into.
pub fn list(
    scope: &Scope,
    dir: Dir,
    display: &str,
    opts: ListOptions,
    bulky: &[&str],
) -> Result<ListOutput, KernelError> {
    let mut out = ListOutput { path: display.to_string(), entries: Vec::new(), truncated: false };
    let limits = Limits { max: opts.max_entries, bulky };
    walk(scope, &dir, opts.depth.clamp(1, MAX_DEPTH), &limits, &mut out)?;
    Ok(out)
}

/// How much a listing holds, and what else it does not descend into.
struct Limits<'a> {
    max: usize,
    bulky: &'a [&'a str],
}

/// Lists `dir` through its open handle; folders are entered by handle too, never through a
/// link, so a folder swapped for a link while listing is not followed.
fn walk(scope: &Scope, dir: &Dir, depth: usize, limits: &Limits, out: &mut ListOutput) -> Result<(), KernelError> {
    let here = dir.path().to_path_buf();
    let mut names = dir.names().map_err(|e| KernelError::io("list", scope.display(&here), e))?;
    names.sort();
    for name in names {
        if out.entries.len() >= limits.max {
            out.truncated = true;
            return Ok(());
        }
        // rein's own journal and run reports are not part of the project.
        if name == REIN_DIR && here == scope.workspace() {
            continue;
        }
        let Ok(Some((file_type, size))) = dir.kind_of(&name) else { continue };
        let (kind, size) = match file_type {
            Kind::Link => ("symlink", 0),
            Kind::Dir => ("dir", 0),
            Kind::File => ("file", size),
            Kind::Other => ("other", 0),
        };
        out.entries.push(Entry { path: scope.display(&here.join(&name)), kind, size });
        let skip = NOT_DESCENDED.iter().chain(limits.bulky).any(|n| name == *n);
        if kind == "dir" && depth > 1 && !skip {
            if let Ok(child) = dir.child(&name) {
                walk(scope, &child, depth - 1, limits, out)?;
            }
        }
    }
    Ok(())
}
