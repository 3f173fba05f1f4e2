//! Reading the project's code from disk. A build script (hvigorfile.ts, run on a plain
//! `hvigor_build`) can put links among the code pointing anywhere, and files of any size or
//! kind, so the code folders are walked without following links to folders (two links to their
//! own folder made every command that loads tools walk 2^40 paths), a link to a file is read
//! only when it resolves inside the project (a read outside the workspace asks a person;
//! loading code would not), and every file is opened beneath the project without following a
//! link (one swapped in after the check fails the read), without waiting on a FIFO, and only up
//! to [`CODE_FILE_LIMIT`].

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::kernel::files::dir::{Dir, Place};
use crate::kernel::files::read::read_all;
use crate::kernel::platform::held_read::{held_by_no_writer, stamps_mapped_writes};
use crate::visible::shown_path;

/// The largest Lua file rein reads from a project: a tool is a few KB, and a file of gigabytes
/// (a build script makes a sparse one in a moment) would be read whole by every command.
pub const CODE_FILE_LIMIT: u64 = 16 << 20;

/// The project folder, held open: where its code files are read from.
pub struct CodeRoot {
    /// The project folder, its links resolved.
    real: PathBuf,
    dir: Dir,
}

impl CodeRoot {
    pub fn open(root: &Path) -> std::io::Result<CodeRoot> {
        let real = std::fs::canonicalize(root)?;
        Ok(CodeRoot { dir: Dir::open_path(&real)?, real })
    }

    /// The text of the code file `rel` (a link to a file inside the project is read as that
    /// file); an error says why it cannot be.
    pub fn read(&self, rel: &str) -> std::io::Result<String> {
        let target = std::fs::canonicalize(self.real.join(rel))?;
        if !target.starts_with(&self.real) {
            return Err(refused(format!(
                "it is a link to {}, outside the project: rein loads the project's code from the project only; put the file itself there",
                shown_path(&target)
            )));
        }
        let place = Place::beneath(&self.dir, &target, false)?;
        text_of(place.dir.open_read(&place.name)?).map(|(text, _)| text)
    }

    /// The project's folder `rel` (e.g. `tools`), held open without following a link: the plain
    /// files listed in it are read through it ([`CodeRoot::read_plain`]).
    pub fn folder(&self, rel: &Path) -> std::io::Result<Dir> {
        self.dir.open_beneath(rel)
    }

    /// The text of `name` in `folder`, listed there as a plain file (no link), whose path
    /// relative to the project is `rel`: one open, one stat and one read through the folder held
    /// open, since `rein call` reads every tool file of the project (issue 41). Whatever stops
    /// that (a link swapped in since the listing, a file gone) goes [`CodeRoot::read`]'s way,
    /// which follows a link inside the project and says why anything else cannot be read.
    /// With the text, the metadata of the file read when it was read so (taken before the read)
    /// and no one held it open for writing as it was read: only then does its key
    /// (`file_key`) tell a later change.
    pub fn read_plain(
        &self,
        folder: &Dir,
        name: &OsStr,
        rel: &str,
    ) -> std::io::Result<(String, Option<std::fs::Metadata>)> {
        match folder.open_read(name) {
            Ok(file) => {
                // Looked at before the read: a writer that did not hold the file then can
                // change it afterwards only by a write that stamps its times (`held_read`),
                // where the file system stamps writes through a mapping made later.
                let no_writer = stamps_mapped_writes(&file) && held_by_no_writer(&file);
                text_of(file).map(|(text, meta)| (text, Some(meta).filter(|_| no_writer)))
            }
            Err(_) => self.read(rel).map(|text| (text, None)),
        }
    }
}

/// The text of a code file opened to be read: a regular file of at most [`CODE_FILE_LIMIT`],
/// UTF-8; and its metadata, read before its bytes.
fn text_of(file: std::fs::File) -> std::io::Result<(String, std::fs::Metadata)> {
    let meta = file.metadata()?;
    if !meta.is_file() || meta.len() > CODE_FILE_LIMIT {
        return Err(refused(format!(
            "it is not a file of at most {} MiB (a tool or module is a few KB)",
            CODE_FILE_LIMIT >> 20
        )));
    }
    let bytes = read_all(file, meta.len(), CODE_FILE_LIMIT)?;
    let text = String::from_utf8(bytes).map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
    Ok((text, meta))
}

/// One entry of a folder of code, its kind read without following a link.
pub struct Entry {
    pub path: PathBuf,
    /// A folder itself (never a link to one).
    pub folder: bool,
    /// A regular file itself (never a link to one).
    pub file: bool,
    pub link: bool,
    /// Its metadata (links not followed), for a plain file listed by [`entries_stat`].
    pub meta: Option<std::fs::Metadata>,
}

impl Entry {
    /// A link to a folder: never walked nor watched.
    pub fn links_to_folder(&self) -> bool {
        self.link && std::fs::metadata(&self.path).is_ok_and(|meta| meta.is_dir())
    }

    /// A file, or a link to something that exists and is no folder (read only if it is a file
    /// in the project).
    pub fn may_be_file(&self) -> bool {
        self.file || (self.link && std::fs::metadata(&self.path).is_ok_and(|meta| !meta.is_dir()))
    }
}

/// The entries of `dir`, sorted by path; none when it cannot be listed.
pub fn entries(dir: &Path) -> Vec<Entry> {
    listing(dir, false)
}

/// [`entries`], each plain file's metadata read through the folder as it is listed (one
/// `statx` beside the listing's open folder, no walk from the root).
pub fn entries_stat(dir: &Path) -> Vec<Entry> {
    listing(dir, true)
}

fn listing(dir: &Path, stat: bool) -> Vec<Entry> {
    let Ok(listed) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut found: Vec<Entry> = listed
        .flatten()
        .filter_map(|e| {
            let kind = e.file_type().ok()?;
            let meta = if stat && kind.is_file() { e.metadata().ok() } else { None };
            Some(Entry { path: e.path(), folder: kind.is_dir(), file: kind.is_file(), link: kind.is_symlink(), meta })
        })
        .collect();
    // One folder's entries share their parent: their paths' bytes order them as their
    // components would, without parsing every path again for each comparison.
    found.sort_by(|a, b| a.path.as_os_str().cmp(b.path.as_os_str()));
    found
}

/// Whether `path` is a folder itself, not a link to one: the only kind of folder rein walks or
/// watches among the project's code.
pub fn is_real_folder(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|meta| meta.is_dir())
}

/// Why a link to a folder among the code is not followed.
pub fn folder_link() -> std::io::Error {
    refused(
        "it is a link to a folder, which rein does not follow among the project's code (it may lead anywhere, or back to itself); put the folder itself there"
            .to_string(),
    )
}

fn refused(why: String) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::PermissionDenied, why)
}
