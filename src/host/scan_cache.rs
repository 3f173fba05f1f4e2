//! What the declared-name scan learned about each of a project's tool and recipe files, kept
//! between processes so `rein call` need not open and read every file to find the one that may
//! declare its tool (issue 41): by path, the file's [`FileKey`], when it was read, and the
//! names it writes literally (`declared_names::literal_names`).
//!
//! It lives in rein's home (`scans/<workspace hash>.json`), beside `approvals.toml`, never in
//! the workspace: the agent writes the workspace, and `.rein/` too wherever the OS confinement
//! fails or is off, and a forged entry there ("this file declares nothing") would hide its
//! `tools/read_file.lua` from `rein call read_file`. A program that can write rein's home can
//! already write `approvals.toml` and grant itself anything, so an entry there is no weaker.
//!
//! An entry serves only for the file it was made from: the same key (a rewrite changes the
//! change time, which no program can set back) and a file that had settled before it was read
//! ([`FileKey::settled_before`]); and only in the workspace it was made for. A cache that is
//! missing, unreadable, corrupted, too large or another workspace's is no cache: the files are
//! read, as they always were. It is written only when what it holds changed, in one atomic
//! rename, without an fsync: a crash leaves the old file, or one that does not parse, and either
//! only costs the next call its reads.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::file_key::{epoch_ns, from_epoch_ns, FileKey};
use crate::kernel::digest::sha256_hex;

/// The folder in rein's home.
const FOLDER: &str = "scans";
/// The format written; a file of another is not read.
const VERSION: u32 = 1;
/// A file writing more names than this is not kept (it is read on every call).
const MOST_NAMES: usize = 32;
/// Nor is one writing a longer name, so that what one entry holds stays small whatever the
/// file writes: no tool has one (MCP's limit, 64, which the registry holds names to), and a
/// file not kept is only read on every call.
const LONGEST_NAME: usize = 64;
/// Files kept per workspace; the rest are read on every call.
const MOST_FILES: usize = 100_000;
/// The largest cache file read (MOST_FILES small entries fit well inside).
const LARGEST: u64 = 64 << 20;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Scanned {
    key: FileKey,
    /// When the reading of the file began, in ns since the epoch.
    read_at_ns: i64,
    names: Vec<String>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    version: u32,
    /// The workspace the entries are of, as the kernel's scope names it.
    workspace: String,
    /// By path relative to the workspace: `tools/greet.lua`.
    files: BTreeMap<String, Scanned>,
}

/// The cache of one workspace, for one scan of its files.
#[derive(Debug)]
pub struct ScanCache {
    /// The cache file; None: rein's home does not exist, nothing is kept.
    path: Option<PathBuf>,
    workspace: String,
    /// As read from the cache file, each marked once this scan found it still true.
    known: BTreeMap<String, (Scanned, bool)>,
    /// What this scan learned that the cache did not hold.
    learned: BTreeMap<String, Scanned>,
    /// When this scan began (before any file was looked at).
    began: SystemTime,
}

impl ScanCache {
    /// The cache of `workspace` in `home`, as it is on disk now; empty when it cannot be used.
    pub fn open(home: &Path, workspace: &Path) -> ScanCache {
        let began = SystemTime::now();
        let workspace = workspace.display().to_string();
        let path =
            home.is_dir().then(|| home.join(FOLDER).join(format!("{}.json", &sha256_hex(workspace.as_bytes())[..32])));
        let known = path.as_deref().and_then(|path| read(path, &workspace)).unwrap_or_default();
        let known = known.into_iter().map(|(rel, entry)| (rel, (entry, false))).collect();
        ScanCache { path, workspace, known, learned: BTreeMap::new(), began }
    }

    /// The names the file `rel` writes, if an entry made from the file as `key` describes it
    /// says; the entry is kept for the next call.
    pub fn names(&mut self, rel: &str, key: &FileKey) -> Option<&[String]> {
        let (entry, still_true) = self.known.get_mut(rel)?;
        if entry.key != *key || !entry.key.settled_before(from_epoch_ns(entry.read_at_ns)) {
            return None;
        }
        *still_true = true;
        Some(&entry.names)
    }

    /// Keeps what reading `rel` (its key `key` taken before the read) found: `names`. Not
    /// kept when the file changed too recently for its key to tell the next change.
    pub fn learn(&mut self, rel: &str, key: FileKey, names: Vec<String>) {
        let long = names.iter().any(|name| name.len() > LONGEST_NAME);
        if names.len() > MOST_NAMES || long || self.learned.len() >= MOST_FILES || !key.settled_before(self.began) {
            return;
        }
        // A file the cache knew, read all the same (it may serve the call), is no change.
        if let Some((entry, still_true)) = self.known.get_mut(rel).filter(|(e, _)| e.key == key && e.names == names) {
            *still_true = entry.key.settled_before(from_epoch_ns(entry.read_at_ns));
            if *still_true {
                return;
            }
        }
        self.learned.insert(rel.to_string(), Scanned { key, read_at_ns: epoch_ns(self.began), names });
    }

    /// Writes what this scan found, when it differs from what was read (entries of files gone
    /// are dropped). A cache that cannot be written only costs later calls their reads; why is
    /// logged.
    pub fn save(self) {
        let Some(path) = self.path else { return };
        if self.learned.is_empty() && self.known.values().all(|(_, still_true)| *still_true) {
            return;
        }
        let mut files = self.learned;
        for (rel, (entry, still_true)) in self.known {
            if still_true && files.len() < MOST_FILES {
                files.entry(rel).or_insert(entry);
            }
        }
        let file = CacheFile { version: VERSION, workspace: self.workspace, files };
        if let Err(e) = write(&path, &file, LARGEST) {
            tracing::warn!("rein could not keep what it learned of the tool files in {}: {e}", path.display());
        }
    }
}

/// The entries of `path` if it is a cache of this version for `workspace`.
fn read(path: &Path, workspace: &str) -> Option<BTreeMap<String, Scanned>> {
    let file = std::fs::File::open(path).ok()?;
    let len = file.metadata().ok()?.len();
    if len > LARGEST {
        return None;
    }
    let mut bytes = Vec::with_capacity(len as usize + 1);
    std::io::Read::read_to_end(&mut std::io::Read::take(file, LARGEST), &mut bytes).ok()?;
    let cache: CacheFile = serde_json::from_slice(&bytes).ok()?;
    (cache.version == VERSION && cache.workspace == workspace).then_some(cache.files)
}

/// One rename of a complete temporary file over `path`. A cache larger than `largest` would
/// never be read: none is kept (the one there is removed: later calls would read it in vain).
fn write(path: &Path, file: &CacheFile, largest: u64) -> std::io::Result<()> {
    let folder = path.parent().expect("in the scans folder");
    let text = serde_json::to_vec(file)?;
    if text.len() as u64 > largest {
        return match std::fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
    }
    match std::fs::create_dir(folder) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
        _ => {}
    }
    let mut temporary = tempfile::NamedTempFile::new_in(folder)?;
    temporary.write_all(&text)?;
    temporary.persist(path).map(drop).map_err(|e| e.error)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn settled_key(ino: u64) -> FileKey {
        FileKey { dev: 1, ino, size: 10, mtime_ns: 1_000_000_000, ctime_ns: 1_000_000_000 }
    }

    #[test]
    fn what_a_scan_learned_serves_the_next_one_for_the_same_file_only() {
        let (home, ws) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut first = ScanCache::open(home.path(), ws.path());
        assert_eq!(first.names("tools/a.lua", &settled_key(7)), None);
        first.learn("tools/a.lua", settled_key(7), vec!["a".into()]);
        first.save();
        let mut second = ScanCache::open(home.path(), ws.path());
        assert_eq!(second.names("tools/a.lua", &settled_key(7)), Some(&["a".to_string()][..]));
        assert_eq!(second.names("tools/a.lua", &settled_key(8)), None, "another inode");
        assert_eq!(second.names("tools/b.lua", &settled_key(7)), None, "another path");
        let other = tempfile::tempdir().unwrap();
        assert_eq!(ScanCache::open(home.path(), other.path()).names("tools/a.lua", &settled_key(7)), None);
    }

    #[test]
    fn a_file_that_changed_just_before_it_was_read_is_not_kept() {
        let (home, ws) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut scan = ScanCache::open(home.path(), ws.path());
        let now = epoch_ns(SystemTime::now());
        let fresh = FileKey { ctime_ns: now, mtime_ns: now, ..settled_key(7) };
        scan.learn("tools/a.lua", fresh, vec![]);
        scan.save();
        assert!(!home.path().join(FOLDER).exists(), "nothing learned, nothing written");
    }

    #[test]
    fn a_cache_is_written_only_when_it_changed_and_drops_files_gone() {
        let (home, ws) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut scan = ScanCache::open(home.path(), ws.path());
        scan.learn("tools/a.lua", settled_key(1), vec!["a".into()]);
        scan.learn("tools/b.lua", settled_key(2), vec!["b".into()]);
        let path = scan.path.clone().unwrap();
        scan.save();
        let mut same = ScanCache::open(home.path(), ws.path());
        same.names("tools/a.lua", &settled_key(1));
        same.names("tools/b.lua", &settled_key(2));
        std::fs::remove_file(&path).unwrap();
        same.save();
        assert!(!path.exists(), "unchanged: not written again");
        let mut fewer = ScanCache::open(home.path(), ws.path());
        fewer.learn("tools/a.lua", settled_key(1), vec!["a".into()]);
        fewer.save();
        let kept = read(&path, &ws.path().display().to_string()).unwrap();
        assert_eq!(kept.keys().collect::<Vec<_>>(), ["tools/a.lua"]);
    }

    #[test]
    fn a_known_file_read_all_the_same_is_no_change() {
        let (home, ws) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut scan = ScanCache::open(home.path(), ws.path());
        scan.learn("tools/a.lua", settled_key(1), vec!["a".into()]);
        let path = scan.path.clone().unwrap();
        scan.save();
        let mut again = ScanCache::open(home.path(), ws.path());
        std::fs::write(&path, "kept").unwrap();
        assert!(again.names("tools/a.lua", &settled_key(1)).is_some());
        again.learn("tools/a.lua", settled_key(1), vec!["a".into()]);
        again.save();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "kept", "not written again");
    }

    #[test]
    fn what_would_make_the_cache_large_is_not_kept() {
        // The agent's files decide what the cache holds: a name no tool can have, or a cache
        // too large to be read again, would only cost every call a write.
        let (home, ws) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut scan = ScanCache::open(home.path(), ws.path());
        let path = scan.path.clone().unwrap();
        scan.learn("tools/long.lua", settled_key(1), vec!["a".repeat(LONGEST_NAME + 1)]);
        scan.save();
        assert!(!path.exists(), "a name longer than any tool's is not kept");
        let mut scan = ScanCache::open(home.path(), ws.path());
        scan.learn("tools/a.lua", settled_key(2), vec!["a".repeat(LONGEST_NAME)]);
        scan.save();
        let small = std::fs::metadata(&path).unwrap().len();
        let file = CacheFile { version: VERSION, workspace: "w".into(), files: BTreeMap::new() };
        write(&path, &file, small).unwrap();
        assert!(path.exists(), "within the limit: written");
        let mut files = BTreeMap::new();
        for at in 0..3 {
            let entry = Scanned { key: settled_key(at), read_at_ns: 0, names: vec!["b".repeat(LONGEST_NAME)] };
            files.insert(format!("tools/{at}.lua"), entry);
        }
        write(&path, &CacheFile { files, ..file }, small).unwrap();
        assert!(!path.exists(), "too large to be read again: none kept, the old one gone");
    }

    #[test]
    fn a_corrupted_cache_is_no_cache() {
        let (home, ws) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut scan = ScanCache::open(home.path(), ws.path());
        scan.learn("tools/a.lua", settled_key(1), vec!["a".into()]);
        let path = scan.path.clone().unwrap();
        scan.save();
        let text = std::fs::read(&path).unwrap();
        std::fs::write(&path, &text[..text.len() - 3]).unwrap();
        assert_eq!(ScanCache::open(home.path(), ws.path()).names("tools/a.lua", &settled_key(1)), None);
    }
}
