//! The project's Lua files as one generation sees them: every `.lua` file under `tools/`,
//! `recipes/` and `prelude/`, read once. Loading, `require` and checks all use these texts,
//! never the disk again, so a generation is consistent with itself, and a file whose new text
//! was rejected can go on serving its last good text while the disk holds the broken one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use super::code_reading::{entries, entries_stat, folder_link, is_real_folder, CodeRoot, Entry};
use super::declared_names::literal_names;
use super::file_key::FileKey;
use super::scan_cache::ScanCache;
use crate::kernel::files::names::relative_name;
use crate::visible::shown_path;

/// The folders of a project (and of a pack) that hold Lua code.
pub const CODE_FOLDERS: [&str; 3] = ["tools", "recipes", "prelude"];

/// A source file (the project's, a pack's) that cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read {}: {source}", shown_path(path))]
pub struct SourceError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectFiles {
    /// Text by path relative to the project, e.g. `tools/greet.lua`, `prelude/kit/words.lua`.
    texts: BTreeMap<String, Arc<str>>,
    /// How many tool or recipe files were left out ([`ProjectFiles::read_scanning`]): these
    /// files serve only the names they were read for.
    left_out: usize,
    /// Each file's key as it was just before its text was read, where the platform gives one.
    keys: BTreeMap<String, FileKey>,
    /// When this reading began.
    read_at: Option<SystemTime>,
}

/// A scan that leaves out the tool and recipe files known not to matter: `cache` knows their
/// names, and `unwanted(rel, names)` says a file writing them cannot serve the call.
pub(crate) struct Scan<'s> {
    pub cache: &'s mut ScanCache,
    pub unwanted: &'s dyn Fn(&str, &[String]) -> bool,
}

/// What a reading already knows, to open fewer files.
enum Known<'s> {
    Nothing,
    Names(Scan<'s>),
    /// An earlier reading: a file whose key is as it was then, and had settled, has that text.
    Texts(&'s ProjectFiles),
}

impl Known<'_> {
    /// What stands for reading `rel`, found as `key`: its earlier text (`Some(Some)`), or
    /// nothing, the file left out (`Some(None)`); None: read it.
    fn instead_of_reading(&mut self, rel: &str, key: &FileKey) -> Option<Option<Arc<str>>> {
        match self {
            Known::Nothing => None,
            Known::Names(scan) => {
                scan.cache.names(rel, key).is_some_and(|names| (scan.unwanted)(rel, names)).then_some(None)
            }
            Known::Texts(earlier) => earlier.unchanged(rel, key).map(Some),
        }
    }
}

impl ProjectFiles {
    /// Reads every `.lua` file under the code folders of `root`. A folder that does not exist
    /// holds nothing; a file that cannot be read, or a link rein does not follow
    /// (`code_reading`), is an error naming it.
    pub fn read(root: &Path) -> Result<ProjectFiles, SourceError> {
        Self::read_from(root, Known::Nothing)
    }

    /// [`ProjectFiles::read`], but for the tool and recipe files `scan` leaves out (not opened
    /// at all); what the files read declare is kept in its cache for the next call.
    pub(crate) fn read_scanning(root: &Path, scan: Scan) -> Result<ProjectFiles, SourceError> {
        Self::read_from(root, Known::Names(scan))
    }

    /// [`ProjectFiles::read`] again after `earlier`: a file whose key is as `earlier` found it,
    /// settled before that reading ([`FileKey::settled_before`]), keeps its text unread.
    pub fn read_since(root: &Path, earlier: &ProjectFiles) -> Result<ProjectFiles, SourceError> {
        Self::read_from(root, Known::Texts(earlier))
    }

    fn read_from(root: &Path, mut known: Known) -> Result<ProjectFiles, SourceError> {
        let mut files = ProjectFiles { read_at: Some(SystemTime::now()), ..ProjectFiles::default() };
        let code = CodeRoot::open(root).map_err(|source| SourceError { path: root.to_path_buf(), source })?;
        for folder in CODE_FOLDERS {
            collect(&code, root, &root.join(folder), &mut files, &mut known)?;
        }
        Ok(files)
    }

    /// The text `rel` had when this reading found it as `key`, if the key tells that.
    fn unchanged(&self, rel: &str, key: &FileKey) -> Option<Arc<str>> {
        let read_at = self.read_at?;
        (self.keys.get(rel) == Some(key) && key.settled_before(read_at)).then(|| self.shared(rel)).flatten()
    }

    /// How many tool or recipe files were left out: a host serving every name must read again.
    pub fn left_out(&self) -> usize {
        self.left_out
    }

    pub fn get(&self, rel: &str) -> Option<&str> {
        self.texts.get(rel).map(|text| &**text)
    }

    /// The text of `rel`, shared (a module is found once per file that requires it).
    pub fn shared(&self, rel: &str) -> Option<Arc<str>> {
        self.texts.get(rel).cloned()
    }

    /// These files with `rel` set to `text` (None: the file is gone).
    pub fn with(&self, rel: &str, text: Option<String>) -> ProjectFiles {
        let mut changed = self.clone();
        match text {
            Some(text) => changed.texts.insert(rel.to_string(), text.into()),
            None => changed.texts.remove(rel),
        };
        changed.keys.remove(rel);
        changed
    }

    /// The `.lua` files directly in `folder` (tools and recipes; deeper ones are modules),
    /// sorted by path.
    pub fn top_level<'a>(&'a self, folder: &'a str) -> impl Iterator<Item = (&'a str, &'a Arc<str>)> + 'a {
        self.texts.iter().filter(move |(rel, _)| is_top_level_in(rel, folder)).map(|(r, t)| (r.as_str(), t))
    }

    /// Every file's path relative to the project, sorted.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.texts.keys().map(String::as_str)
    }

    #[cfg(test)]
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.texts.iter().map(|(r, t)| (r.as_str(), &**t))
    }
}

/// Whether `rel` is a tool or recipe file (`tools/x.lua`, `recipes/x.lua`), not a module.
pub fn is_top_level_in(rel: &str, folder: &str) -> bool {
    rel.strip_prefix(folder)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|name| !name.contains('/') && name.ends_with(".lua"))
}

/// Whether a path relative to the project is Lua code rein loads (`.lua` under a code folder).
pub fn is_code_file(rel: &str) -> bool {
    rel.ends_with(".lua")
        && CODE_FOLDERS.iter().any(|folder| rel.strip_prefix(folder).is_some_and(|r| r.starts_with('/')))
}

/// Reads one project file now: its text, or None when it no longer exists (or is no file).
pub fn read_one(root: &Path, rel: &str) -> Result<Option<String>, SourceError> {
    let path = root.join(rel);
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(SourceError { path, source }),
    };
    let entry =
        Entry { path: path.clone(), folder: meta.is_dir(), file: meta.is_file(), link: meta.is_symlink(), meta: None };
    if !entry.may_be_file() {
        return Ok(None);
    }
    CodeRoot::open(root).and_then(|code| code.read(rel)).map(Some).map_err(|source| SourceError { path, source })
}

fn collect(
    code: &CodeRoot,
    root: &Path,
    dir: &Path,
    files: &mut ProjectFiles,
    known: &mut Known,
) -> Result<(), SourceError> {
    if !is_real_folder(dir) {
        return match std::fs::symlink_metadata(dir) {
            Ok(meta) if meta.is_symlink() => Err(SourceError { path: dir.to_path_buf(), source: folder_link() }),
            _ => Ok(()),
        };
    }
    // Plain files are read through their folder held open; where it cannot be opened so, each
    // file goes the longer way, which says why.
    let held = dir.strip_prefix(root).ok().and_then(|rel| code.folder(rel).ok());
    // A plain file is looked at before it is read, so a key taken then is never newer than the
    // text read after it. Names are scanned for in tool and recipe files only.
    let stat = match known {
        Known::Nothing => false,
        Known::Names(_) => ["tools", "recipes"].iter().any(|f| dir == root.join(f)),
        Known::Texts(_) => true,
    };
    for entry in if stat { entries_stat(dir) } else { entries(dir) } {
        if entry.folder {
            collect(code, root, &entry.path, files, known)?;
        } else if entry.links_to_folder() {
            return Err(SourceError { path: entry.path, source: folder_link() });
        } else if entry.may_be_file() && entry.path.extension().is_some_and(|e| e == "lua") {
            let rel = relative_name(&entry.path, root).expect("under the root");
            let key = entry.meta.as_ref().and_then(FileKey::of);
            if let Some(key) = &key {
                if let Some(text) = known.instead_of_reading(&rel, key) {
                    match text {
                        Some(text) => {
                            files.keys.insert(rel.clone(), *key);
                            files.texts.insert(rel, text);
                        }
                        None => files.left_out += 1,
                    }
                    continue;
                }
            }
            let (text, meta) = match (&held, entry.file, entry.path.file_name()) {
                (Some(folder), true, Some(name)) => code.read_plain(folder, name, &rel),
                _ => code.read(&rel).map(|text| (text, None)),
            }
            .map_err(|source| SourceError { path: entry.path.clone(), source })?;
            // A file someone held open for writing as it was read (a writable mapping writes
            // it without stamping its times) has no key: it is read again every time. Nor has
            // one that is not the file listed (another renamed over it in between: the text
            // read is not that key's).
            let key = key.filter(|key| meta.as_ref().and_then(FileKey::of).is_some_and(|read| read == *key));
            if let (Known::Names(scan), Some(key)) = (&mut *known, key) {
                scan.cache.learn(&rel, key, literal_names(&text).map(str::to_string).collect());
            }
            // A link read as its target has no key: what it points to may change unseen.
            if let Some(key) = key.or_else(|| meta.as_ref().and_then(FileKey::of)).filter(|_| entry.file) {
                files.keys.insert(rel.clone(), key);
            }
            files.texts.insert(rel, text.into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_code_folders_only_and_tells_tools_from_modules() {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in [("tools/a.lua", "a"), ("tools/lib/m.lua", "m"), ("prelude/p.lua", "p"), ("src/x.lua", "x")]
        {
            std::fs::create_dir_all(dir.path().join(rel).parent().unwrap()).unwrap();
            std::fs::write(dir.path().join(rel), text).unwrap();
        }
        let files = ProjectFiles::read(dir.path()).unwrap();
        let all: Vec<&str> = files.iter().map(|(r, _)| r).collect();
        assert_eq!(all, ["prelude/p.lua", "tools/a.lua", "tools/lib/m.lua"]);
        let tools: Vec<&str> = files.top_level("tools").map(|(r, _)| r).collect();
        assert_eq!(tools, ["tools/a.lua"]);
        assert_eq!(files.with("tools/a.lua", None).get("tools/a.lua"), None);
        assert!(is_code_file("prelude/x/y.lua") && !is_code_file("src/x.lua") && !is_code_file("tools/a.lua~"));
    }

    #[cfg(unix)]
    #[test]
    fn reading_again_keeps_the_texts_of_files_whose_keys_tell_they_did_not_change() {
        // On the build's disk: no key is kept on tmpfs (`/tmp` on many systems).
        let dir = tempfile::tempdir_in(concat!(env!("CARGO_MANIFEST_DIR"), "/target")).unwrap();
        for (rel, text) in [("tools/a.lua", "aaa"), ("tools/b.lua", "bbb"), ("prelude/p.lua", "ppp")] {
            std::fs::create_dir_all(dir.path().join(rel).parent().unwrap()).unwrap();
            std::fs::write(dir.path().join(rel), text).unwrap();
        }
        let mut earlier = ProjectFiles::read(dir.path()).unwrap();
        let fresh = ProjectFiles::read_since(dir.path(), &earlier).unwrap();
        assert!(
            !Arc::ptr_eq(&fresh.shared("tools/a.lua").unwrap(), &earlier.shared("tools/a.lua").unwrap()),
            "files just written are read again"
        );
        // As if the files had settled long before that reading.
        earlier.read_at = Some(SystemTime::now() + std::time::Duration::from_secs(60));
        let path = dir.path().join("tools/b.lua");
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        // Past a tick of the file system's clock (the settle guards that case; it is set aside here).
        std::thread::sleep(std::time::Duration::from_millis(20));
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        std::io::Write::write_all(&mut &file, b"BBB").unwrap();
        file.set_modified(modified).unwrap();
        drop(file);
        std::fs::remove_file(dir.path().join("prelude/p.lua")).unwrap();
        let now = ProjectFiles::read_since(dir.path(), &earlier).unwrap();
        assert!(
            Arc::ptr_eq(&now.shared("tools/a.lua").unwrap(), &earlier.shared("tools/a.lua").unwrap()),
            "kept unread"
        );
        assert_eq!(now.get("tools/b.lua"), Some("BBB"), "rewritten in place, size and time put back: read again");
        assert_eq!(now.get("prelude/p.lua"), None);
    }

    /// tmpfs maps a page writable at a read fault and never stamps a time for writes through
    /// it: a program mapping a tool file after rein read it changes the file unseen by its key,
    /// without holding it open for writing when rein looked.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_on_tmpfs_written_through_a_mapping_made_after_the_reading_is_read_again() {
        use std::os::fd::AsRawFd;
        let dir = tempfile::tempdir_in("/dev/shm").expect("Linux has a tmpfs at /dev/shm");
        let path = dir.path().join("tools/a.lua");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "aaa").unwrap();
        let mut earlier = ProjectFiles::read(dir.path()).unwrap();
        // As if the file had settled long before that reading.
        earlier.read_at = Some(SystemTime::now() + std::time::Duration::from_secs(60));
        let file = std::fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
        // SAFETY: a shared mapping of the 3-byte file, read and written inside it, unmapped below.
        unsafe {
            let map = libc::mmap(
                std::ptr::null_mut(),
                3,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            );
            assert_ne!(map, libc::MAP_FAILED);
            let bytes = map.cast::<u8>();
            assert_eq!(bytes.read_volatile(), b'a');
            std::thread::sleep(std::time::Duration::from_millis(20));
            for at in 0..3 {
                bytes.add(at).write_volatile(b'b');
            }
            libc::munmap(map, 3);
        }
        drop(file);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "bbb");
        let now = ProjectFiles::read_since(dir.path(), &earlier).unwrap();
        assert_eq!(now.get("tools/a.lua"), Some("bbb"));
    }
}
