//! Collecting pre-images nobody needs any more, so the journal's disk stays bounded. Which
//! pre-images a run or an undo window still needs is the caller's to say (`keep`); the kernel
//! only guarantees that a pre-image made recently (linked or copied after `cutoff`) survives,
//! because a recipe running in another process may still roll back to it before its report
//! names it.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::Path;
use std::time::SystemTime;

use crate::kernel::files::dir::Kind;
use serde::Serialize;

use super::{Journal, PREIMAGE_DIR};

/// What collecting the journal's saved copies (pre-images) removed and kept.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Collected {
    /// The pre-images removed (their sha256 names).
    pub removed: Vec<String>,
    /// How many pre-images are left.
    pub kept: usize,
    /// The bytes the removed copies took.
    pub bytes_freed: u64,
}

impl Journal {
    /// Removes every pre-image whose name is not in `keep` and that was made before `cutoff`.
    /// Entries that are not pre-images (not a regular file named by a sha256) are left alone.
    pub fn collect_preimages(&self, keep: &BTreeSet<String>, cutoff: SystemTime) -> std::io::Result<Collected> {
        let pre = match self.root.open_beneath(Path::new(PREIMAGE_DIR)) {
            Ok(dir) => dir,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Collected::default()),
            Err(e) => return Err(e),
        };
        let mut collected = Collected::default();
        let mut names: Vec<String> =
            pre.names()?.into_iter().filter_map(|n| n.into_string().ok()).filter(|n| is_sha256(n)).collect();
        names.sort();
        for name in names {
            let Some(stat) = pre.stat(OsStr::new(&name))? else { continue };
            let is_file = stat.kind == Kind::File;
            // Linking or copying a pre-image sets its inode's change time, never its
            // modification time (a link keeps the old file's), so ctime says when it was made.
            let made = stat.changed;
            if !is_file || keep.contains(&name) || made >= cutoff {
                collected.kept += 1;
                continue;
            }
            pre.remove_file(OsStr::new(&name))?;
            collected.bytes_freed += stat.size;
            collected.removed.push(name);
        }
        Ok(collected)
    }
}

/// The pre-image name in `path` (`.rein/journal/pre/<sha256>`), if it is one.
pub fn preimage_name(path: &str) -> Option<&str> {
    path.strip_prefix(PREIMAGE_DIR).and_then(|rest| rest.strip_prefix('/')).filter(|name| is_sha256(name))
}

fn is_sha256(name: &str) -> bool {
    name.len() == 64 && name.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::files::dir::Dir;
    use std::sync::Arc;
    use std::time::Duration;

    fn journal_with(names: &[&str]) -> (tempfile::TempDir, Journal) {
        let dir = tempfile::tempdir().unwrap();
        let pre = dir.path().join(PREIMAGE_DIR);
        std::fs::create_dir_all(&pre).unwrap();
        for name in names {
            std::fs::write(pre.join(name), name.as_bytes()).unwrap();
        }
        let journal = Journal::new(Arc::new(Dir::open_path(dir.path()).unwrap()));
        (dir, journal)
    }

    #[test]
    fn only_old_unneeded_preimages_go() {
        let old = "a".repeat(64);
        let needed = "b".repeat(64);
        let (dir, journal) = journal_with(&[&old, &needed, "notes.txt"]);
        let keep = BTreeSet::from([needed.clone()]);
        let later = SystemTime::now() + Duration::from_secs(60);
        let collected = journal.collect_preimages(&keep, later).unwrap();
        assert_eq!(collected.removed, vec![old.clone()]);
        assert_eq!((collected.kept, collected.bytes_freed), (1, 64));
        let pre = dir.path().join(PREIMAGE_DIR);
        assert!(!pre.join(&old).exists() && pre.join(&needed).exists() && pre.join("notes.txt").exists());
    }

    #[test]
    fn a_preimage_made_after_the_cutoff_stays_even_when_nothing_names_it() {
        let fresh = "c".repeat(64);
        let (_dir, journal) = journal_with(&[&fresh]);
        let earlier = SystemTime::now() - Duration::from_secs(3600);
        let collected = journal.collect_preimages(&BTreeSet::new(), earlier).unwrap();
        assert!(collected.removed.is_empty(), "{collected:?}");
    }

    #[test]
    fn preimage_names_are_read_from_journal_paths() {
        let sha = "d".repeat(64);
        assert_eq!(preimage_name(&format!(".rein/journal/pre/{sha}")), Some(sha.as_str()));
        assert_eq!(preimage_name(".rein/journal/pre/../x"), None);
        assert_eq!(preimage_name("src/a.txt"), None);
    }
}
