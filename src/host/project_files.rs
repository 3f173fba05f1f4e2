//! The project's Lua files as one generation sees them: every `.lua` file under `tools/`,
//! `recipes/` and `prelude/`, read once. Loading, `require` and checks all use these texts,
//! never the disk again, so a generation is consistent with itself, and a file whose new text
//! was rejected can go on serving its last good text while the disk holds the broken one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
}

/// A scan that leaves out the tool and recipe files known not to matter: `cache` knows their
/// names, and `unwanted(rel, names)` says a file writing them cannot serve the call.
pub(crate) struct Scan<'s> {
    pub cache: &'s mut ScanCache,
    pub unwanted: &'s dyn Fn(&str, &[String]) -> bool,
}

impl ProjectFiles {
    /// Reads every `.lua` file under the code folders of `root`. A folder that does not exist
    /// holds nothing; a file that cannot be read, or a link rein does not follow
    /// (`code_reading`), is an error naming it.
    pub fn read(root: &Path) -> Result<ProjectFiles, SourceError> {
        Self::read_from(root, None)
    }

    /// [`ProjectFiles::read`], but for the tool and recipe files `scan` leaves out (not opened
    /// at all); what the files read declare is kept in its cache for the next call.
    pub(crate) fn read_scanning(root: &Path, scan: Scan) -> Result<ProjectFiles, SourceError> {
        Self::read_from(root, Some(scan))
    }

    fn read_from(root: &Path, mut scan: Option<Scan>) -> Result<ProjectFiles, SourceError> {
        let mut files = ProjectFiles::default();
        let code = CodeRoot::open(root).map_err(|source| SourceError { path: root.to_path_buf(), source })?;
        for folder in CODE_FOLDERS {
            collect(&code, root, &root.join(folder), &mut files, &mut scan)?;
        }
        Ok(files)
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
    scan: &mut Option<Scan>,
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
    // Only tool and recipe files are scanned for names; a plain one is looked at before it is
    // read, so a key taken then is never newer than the text read after it.
    let scanned = scan.is_some() && ["tools", "recipes"].iter().any(|f| dir == root.join(f));
    for entry in if scanned { entries_stat(dir) } else { entries(dir) } {
        if entry.folder {
            collect(code, root, &entry.path, files, scan)?;
        } else if entry.links_to_folder() {
            return Err(SourceError { path: entry.path, source: folder_link() });
        } else if entry.may_be_file() && entry.path.extension().is_some_and(|e| e == "lua") {
            let rel = relative_name(&entry.path, root).expect("under the root");
            let key = entry.meta.as_ref().and_then(FileKey::of).filter(|_| scanned);
            if let (Some(scan), Some(key)) = (scan.as_mut(), &key) {
                if scan.cache.names(&rel, key).is_some_and(|names| (scan.unwanted)(&rel, names)) {
                    files.left_out += 1;
                    continue;
                }
            }
            let text = match (&held, entry.file, entry.path.file_name()) {
                (Some(folder), true, Some(name)) => code.read_plain(folder, name, &rel),
                _ => code.read(&rel),
            };
            let text = text.map_err(|source| SourceError { path: entry.path.clone(), source })?;
            if let (Some(scan), Some(key)) = (scan.as_mut(), key) {
                scan.cache.learn(&rel, key, literal_names(&text).map(str::to_string).collect());
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
}
