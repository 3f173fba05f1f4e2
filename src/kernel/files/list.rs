//! Directory listings: what is there, never following links out of the tree.

use std::path::Path;

use serde::Serialize;

use crate::kernel::{KernelError, Scope};

/// Folders listed but never descended into: tool state and dependency caches. (`.rein` at the
/// workspace root is not listed at all.)
const NOT_DESCENDED: [&str; 6] = [".git", ".rein", "node_modules", "oh_modules", ".hvigor", "target"];
pub const MAX_DEPTH: usize = 16;

#[derive(Debug, Clone, Copy)]
pub struct ListOptions {
    pub depth: usize,
    pub max_entries: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    pub path: String,
    pub kind: &'static str,
    pub size: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ListOutput {
    pub path: String,
    pub entries: Vec<Entry>,
    pub truncated: bool,
}

pub fn list(scope: &Scope, real: &Path, display: &str, opts: ListOptions) -> Result<ListOutput, KernelError> {
    let meta = std::fs::metadata(real).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => KernelError::FileNotFound { path: display.to_string() },
        _ => KernelError::io("list", display, e),
    })?;
    if !meta.is_dir() {
        return Err(KernelError::invalid(format!("{display} is a file, not a directory; read it with read_file")));
    }
    let mut out = ListOutput { path: display.to_string(), entries: Vec::new(), truncated: false };
    walk(scope, real, opts.depth.clamp(1, MAX_DEPTH), opts.max_entries, &mut out)?;
    Ok(out)
}

fn walk(scope: &Scope, dir: &Path, depth: usize, max: usize, out: &mut ListOutput) -> Result<(), KernelError> {
    let mut children: Vec<_> =
        std::fs::read_dir(dir).map_err(|e| KernelError::io("list", scope.display(dir), e))?.flatten().collect();
    children.sort_by_key(|e| e.file_name());
    for child in children {
        if out.entries.len() >= max {
            out.truncated = true;
            return Ok(());
        }
        let Ok(file_type) = child.file_type() else { continue };
        // rein's own journal and run reports are not part of the project.
        if child.file_name() == ".rein" && dir == scope.workspace() {
            continue;
        }
        let path = child.path();
        let (kind, size) = if file_type.is_symlink() {
            ("symlink", 0)
        } else if file_type.is_dir() {
            ("dir", 0)
        } else if file_type.is_file() {
            ("file", child.metadata().map(|m| m.len()).unwrap_or(0))
        } else {
            ("other", 0)
        };
        out.entries.push(Entry { path: scope.display(&path), kind, size });
        let skip = NOT_DESCENDED.iter().any(|n| child.file_name() == *n);
        if kind == "dir" && depth > 1 && !skip {
            walk(scope, &path, depth - 1, max, out)?;
        }
    }
    Ok(())
}
