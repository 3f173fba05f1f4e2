//! A pack's content hash: sha256 over its files, sorted by path, each as its path, a NUL, its
//! length and its bytes — so renaming, adding or changing any file changes the hash. The path
//! is the `/`-joined name (`tools/a.lua`) on every OS, so a `rein.lock` pinned on one OS
//! verifies on another.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::PackError;
use crate::kernel::files::names::slash_name;
use crate::kernel::scope::protected::is_git_dir;

pub fn content_hash(dir: &Path) -> Result<String, PackError> {
    let mut files = Vec::new();
    collect(dir, dir, &mut files)?;
    files.sort();
    let mut hasher = Sha256::new();
    for rel in files {
        let bytes = std::fs::read(dir.join(&rel)).map_err(|e| PackError::read(dir.join(&rel), e))?;
        let name = slash_name(&rel).expect("collected relative to the pack");
        hasher.update(name.as_bytes());
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

    /// The hashes a pack's files give, written down once: every OS must compute these same
    /// values (a `rein.lock` pinned on Linux verifies on Windows, whose paths use `\`).
    /// Nested folders and `a.lua` beside a folder `a/` check the names and their order.
    #[test]
    fn the_same_files_hash_the_same_on_every_os() {
        let table: [(&[(&str, &str)], &str); 3] = [
            (&[("tools/a.lua", "return 1")], "3b6afb0597221ddb81e1b29f955c0e161c989cc0a5684c8fc025e2e647eb7d25"),
            (
                &[("rein-pack.toml", "name = \"kit\"\n"), ("prelude/kit/words.lua", "return {}"), ("tools/a.lua", "x")],
                "ed0914dcd3d1a791f98a170cba74c04ce95be5ece4f5c1e89911b94e0332f386",
            ),
            (
                &[("tools/a.lua", "a"), ("tools/a/x.lua", "x"), ("tools/a-b.lua", "b"), ("prelude/a/b/c.lua", "c")],
                "33d0b6c48fbde797467c9ed04e2a7bcef01d41f2ea7241607e07a77dc79efa76",
            ),
        ];
        for (files, expected) in table {
            let dir = tempfile::tempdir().unwrap();
            for (rel, text) in files {
                let path = dir.path().join(rel);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, text).unwrap();
            }
            assert_eq!(content_hash(dir.path()).unwrap(), expected, "{files:?}");
        }
    }

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
