//! Installing a pack in two steps. `stage` copies the source into a folder of rein's own under
//! home (only files; a link that stays inside the pack is copied as a file), then reads the
//! manifest and the content hash from that copy — so the permissions and the hash a person is
//! shown are those of exactly the bytes that will be installed, whatever happens to the source
//! afterwards. `install` makes the copy read-only, checks its hash again and moves it into
//! place in one rename; a failed install leaves nothing behind.

use std::path::{Path, PathBuf};

use super::hash::content_hash;
use super::installed::install_dir;
use super::Manifest;
use crate::error::{Code, Failure};
use crate::kernel::files::write;
use crate::kernel::platform::perms::set_mode;
use crate::kernel::scope::protected::is_git_dir;
use crate::visible::shown_path;

/// A pack copied into home's staging folder, not installed yet; removed when dropped.
#[derive(Debug)]
pub struct Staged {
    /// The manifest, as the copy holds it.
    pub manifest: Manifest,
    /// The copy's content hash.
    pub sha256: String,
    folder: tempfile::TempDir,
}

/// Copies the pack at `source` into `<home>/packs/.staging-*` and reads it from there.
pub fn stage(home: &Path, source: &Path) -> Result<Staged, Failure> {
    let dir = std::fs::canonicalize(source)
        .map_err(|e| Failure::new(Code::InvalidArgs, format!("pack source {}: {e}", shown_path(source))))?;
    check_links(&dir, &dir)?;
    let parent = home.join("packs");
    std::fs::create_dir_all(&parent).map_err(|e| io(&parent, e))?;
    let folder = tempfile::Builder::new().prefix(".staging-").tempdir_in(&parent).map_err(|e| io(&parent, e))?;
    copy_tree(&dir, folder.path())?;
    let manifest = Manifest::load(folder.path()).map_err(Failure::from)?;
    manifest.check_compatible(env!("CARGO_PKG_VERSION")).map_err(Failure::from)?;
    let sha256 = content_hash(folder.path()).map_err(|e| Failure::new(Code::IoError, e.to_string()))?;
    Ok(Staged { manifest, sha256, folder })
}

/// Symlinks that stay inside the pack are copied as files; any other is refused.
fn check_links(root: &Path, dir: &Path) -> Result<(), Failure> {
    for entry in std::fs::read_dir(dir).map_err(|e| io(dir, e))?.flatten() {
        let path = entry.path();
        if is_git_dir(&entry.file_name().to_string_lossy()) {
            continue;
        }
        let kind = entry.file_type().map_err(|e| io(&path, e))?;
        if kind.is_symlink() {
            let target = std::fs::canonicalize(&path).ok();
            if !target.as_deref().is_some_and(|t| t.starts_with(root) && t.is_file()) {
                return Err(Failure::new(
                    Code::ApprovalDenied,
                    format!(
                        "{} is a symlink that leaves the pack (or is dangling); packs may only link to their own files",
                        shown_path(&path)
                    ),
                ));
            }
        } else if kind.is_dir() {
            check_links(root, &path)?;
        } else if !kind.is_file() {
            return Err(Failure::new(
                Code::InvalidArgs,
                format!(
                    "{} is not a regular file (a FIFO, socket or device); packs hold files only",
                    shown_path(&path)
                ),
            ));
        }
    }
    Ok(())
}

/// Moves the staged copy to `<home>/packs/<name>/<sha256>/`, read-only. Idempotent.
pub fn install(home: &Path, staged: Staged) -> Result<PathBuf, Failure> {
    let target = install_dir(home, &staged.manifest.name, &staged.sha256);
    if target.is_dir() && content_hash(&target).ok().as_deref() == Some(staged.sha256.as_str()) {
        return Ok(target);
    }
    let parent = target.parent().expect("install dirs have a parent");
    std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
    let staging = staged.folder.keep();
    let result = settle(&staging, &staged.sha256).and_then(|()| {
        if target.exists() {
            make_writable(&target);
            std::fs::remove_dir_all(&target).map_err(|e| io(&target, e))?;
        }
        std::fs::rename(&staging, &target).map_err(|e| io(&target, e))?;
        write::sync_dir(parent).map_err(|e| io(parent, e))
    });
    if result.is_err() {
        make_writable(&staging);
        let _ = std::fs::remove_dir_all(&staging);
    }
    result.map(|()| target)
}

/// Makes the staged copy durable (before one rename puts it in place, so a crash leaves no
/// pack or the whole pack) and read-only, and checks it still holds what was hashed.
fn settle(staging: &Path, sha256: &str) -> Result<(), Failure> {
    write::sync_tree(staging).map_err(|e| io(staging, e))?;
    make_read_only(staging);
    let now = content_hash(staging).map_err(|e| Failure::new(Code::IoError, e.to_string()))?;
    if now != sha256 {
        return Err(Failure::new(
            Code::PackTampered,
            format!(
                "the staged copy of the pack in {} changed before it was installed; nothing was installed, try again",
                shown_path(staging)
            ),
        ));
    }
    Ok(())
}

fn copy_tree(from: &Path, to: &Path) -> Result<(), Failure> {
    std::fs::create_dir_all(to).map_err(|e| io(to, e))?;
    for entry in std::fs::read_dir(from).map_err(|e| io(from, e))?.flatten() {
        if is_git_dir(&entry.file_name().to_string_lossy()) {
            continue;
        }
        let target = to.join(entry.file_name());
        // Following the link: check_links made sure it stays inside the pack.
        let meta = std::fs::metadata(entry.path()).map_err(|e| io(&entry.path(), e))?;
        if meta.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else if meta.is_file() {
            std::fs::copy(entry.path(), &target).map_err(|e| io(&target, e))?;
        } else {
            return Err(Failure::new(
                Code::InvalidArgs,
                format!("{} is not a regular file; packs hold files only", shown_path(entry.path())),
            ));
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
    Failure::new(Code::IoError, format!("{}: {e}", shown_path(path)))
}
