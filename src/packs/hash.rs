//! A pack's content hash: sha256 over its files, sorted by path, each as its path, a NUL, its
//! length and its bytes — so renaming, adding or changing any file changes the hash.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::PackError;
use crate::kernel::scope::protected::is_git_dir;

pub fn content_hash(dir: &Path) -> Result<String, PackError> {
    let mut files = Vec::new();
    collect(dir, dir, &mut files)?;
    files.sort();
    let mut hasher = Sha256::new();
    for rel in files {
        let bytes = std::fs::read(dir.join(&rel)).map_err(|e| PackError::read(dir.join(&rel), e))?;
        hasher.update(rel.to_string_lossy().as_bytes());
        hasher.update([0u8]);
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    Ok(format!("{:x}", hasher.finalize()))
}

fn collect(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), PackError> {
    let entries = std::fs::read_dir(dir).map_err(|e| PackError::read(dir, e))?;
    for entry in entries.flatten() {
        let path = entry.path();
        // git's folder is never part of a pack's content.
        if is_git_dir(&entry.file_name().to_string_lossy()) {
            continue;
        }
        let kind = entry.file_type().map_err(|e| PackError::read(&path, e))?;
        if kind.is_dir() {
            collect(root, &path, out)?;
        } else {
            out.push(path.strip_prefix(root).expect("under root").to_path_buf());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_change_changes_the_hash_and_git_does_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("tools")).unwrap();
        std::fs::write(dir.path().join("tools/a.lua"), "return 1").unwrap();
        let first = content_hash(dir.path()).unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/HEAD"), "x").unwrap();
        assert_eq!(content_hash(dir.path()).unwrap(), first);
        // On macOS and Windows `.Git` is git's folder too: the hash must not depend on the OS.
        std::fs::create_dir_all(dir.path().join(".Git")).unwrap();
        std::fs::write(dir.path().join(".Git/HEAD"), "x").unwrap();
        assert_eq!(content_hash(dir.path()).unwrap(), first);
        std::fs::write(dir.path().join("tools/a.lua"), "return 2").unwrap();
        assert_ne!(content_hash(dir.path()).unwrap(), first);
        std::fs::write(dir.path().join("tools/a.lua"), "return 1").unwrap();
        std::fs::rename(dir.path().join("tools/a.lua"), dir.path().join("tools/b.lua")).unwrap();
        assert_ne!(content_hash(dir.path()).unwrap(), first);
    }
}
