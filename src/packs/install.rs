//! Installing a pack: checked (manifest, compatibility, symlinks), copied into a staging
//! folder, verified by hash, made read-only, and moved into place in one rename — a failed
//! install leaves nothing behind.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

use super::hash::content_hash;
use super::installed::install_dir;
use super::Manifest;
use crate::error::{Code, Failure};
use crate::kernel::files::names::shown;
use crate::kernel::platform::perms::set_mode;

/// What `rein pack add` will install, shown to the person before they confirm.
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    pub manifest: Manifest,
    pub source: String,
    pub sha256: String,
    #[serde(skip)]
    pub dir: PathBuf,
}

pub fn plan(source: &Path) -> Result<Plan, Failure> {
    let dir = std::fs::canonicalize(source)
        .map_err(|e| Failure::new(Code::InvalidArgs, format!("pack source {}: {e}", shown(source))))?;
    let manifest = Manifest::load(&dir).map_err(|e| Failure::new(Code::InvalidArgs, e.to_string()))?;
    manifest
        .check_compatible(env!("CARGO_PKG_VERSION"))
        .map_err(|e| Failure::new(Code::InvalidConfig, e.to_string()))?;
    check_links(&dir, &dir)?;
    let sha256 = content_hash(&dir).map_err(|e| Failure::new(Code::IoError, e.to_string()))?;
    Ok(Plan { manifest, source: shown(&dir), sha256, dir })
}

/// Symlinks that stay inside the pack are copied as files; any other is refused.
fn check_links(root: &Path, dir: &Path) -> Result<(), Failure> {
    for entry in std::fs::read_dir(dir).map_err(|e| Failure::new(Code::IoError, e.to_string()))?.flatten() {
        let path = entry.path();
        if entry.file_name() == ".git" {
            continue;
        }
        let kind = entry.file_type().map_err(|e| Failure::new(Code::IoError, e.to_string()))?;
        if kind.is_symlink() {
            let target = std::fs::canonicalize(&path).ok();
            if !target.as_deref().is_some_and(|t| t.starts_with(root) && t.is_file()) {
                return Err(Failure::new(
                    Code::ApprovalDenied,
                    format!(
                        "{} is a symlink that leaves the pack (or is dangling); packs may only link to their own files",
                        shown(&path)
                    ),
                ));
            }
        } else if kind.is_dir() {
            check_links(root, &path)?;
        } else if !kind.is_file() {
            return Err(Failure::new(
                Code::InvalidArgs,
                format!("{} is not a regular file (a FIFO, socket or device); packs hold files only", shown(&path)),
            ));
        }
    }
    Ok(())
}

/// Copies the plan into `<home>/packs/<name>/<sha256>/`, read-only. Idempotent.
pub fn install(home: &Path, plan: &Plan) -> Result<PathBuf, Failure> {
    let target = install_dir(home, &plan.manifest.name, &plan.sha256);
    if target.is_dir() && content_hash(&target).ok().as_deref() == Some(plan.sha256.as_str()) {
        return Ok(target);
    }
    let parent = target.parent().expect("install dirs have a parent");
    std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
    static N: AtomicU64 = AtomicU64::new(0);
    let staging = parent.join(format!(".staging-{}-{}", std::process::id(), N.fetch_add(1, Ordering::Relaxed)));
    let result = stage(&plan.dir, &staging, &plan.sha256).and_then(|()| {
        if target.exists() {
            make_writable(&target);
            std::fs::remove_dir_all(&target).map_err(|e| io(&target, e))?;
        }
        std::fs::rename(&staging, &target).map_err(|e| io(&target, e))
    });
    if result.is_err() {
        make_writable(&staging);
        let _ = std::fs::remove_dir_all(&staging);
    }
    result.map(|()| target)
}

fn stage(source: &Path, staging: &Path, sha256: &str) -> Result<(), Failure> {
    copy_tree(source, staging)?;
    let copied = content_hash(staging).map_err(|e| Failure::new(Code::IoError, e.to_string()))?;
    if copied != sha256 {
        return Err(Failure::new(Code::PackTampered, "the pack changed while it was being installed; try again"));
    }
    make_read_only(staging);
    Ok(())
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), Failure> {
    std::fs::create_dir_all(to).map_err(|e| io(to, e))?;
    for entry in std::fs::read_dir(from).map_err(|e| io(from, e))?.flatten() {
        if entry.file_name() == ".git" {
            continue;
        }
        let target = to.join(entry.file_name());
        // Following the link: check_links made sure it stays inside the pack.
        let meta = std::fs::metadata(entry.path()).map_err(|e| io(&entry.path(), e))?;
        if meta.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target).map_err(|e| io(&target, e))?;
        }
    }
    Ok(())
}

fn make_read_only(dir: &Path) {
    set_modes(dir, 0o555, 0o444);
}

fn make_writable(dir: &Path) {
    set_modes(dir, 0o755, 0o644);
}

fn set_modes(dir: &Path, dir_mode: u32, file_mode: u32) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    // Children first while the folder is still writable (when making writable, parent first).
    let _ = set_mode(dir, dir_mode | 0o200);
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            set_modes(&path, dir_mode, file_mode);
        } else {
            let _ = set_mode(&path, file_mode);
        }
    }
    let _ = set_mode(dir, dir_mode);
}

fn io(path: &Path, e: std::io::Error) -> Failure {
    Failure::new(Code::IoError, format!("{}: {e}", shown(path)))
}
