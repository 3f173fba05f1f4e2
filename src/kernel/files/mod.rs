//! Files: reading, listing and writing, each through the scope, the gate and the journal; and
//! `names`: paths as rein keys and shows them, the same on every OS.

pub mod dir;
pub mod ledger;
pub mod list;
pub mod lock;
pub mod names;
mod numbered;
pub mod read;
pub mod write;

use std::path::Path;

use serde::Serialize;

pub use ledger::ReadLedger;
pub use list::{ListOptions, ListOutput};
pub use read::{ReadOptions, ReadOutput};

use dir::{Dir, Place};

use super::digest::sha256_hex;
use super::scope::{PathClass, SEPARATORS};
use super::{Access, Action, Call, EventKind, Kernel, KernelError};

/// The largest file of rein's own (a run report) that rein reads back.
const REIN_FILE_LIMIT: u64 = 64 * 1024 * 1024;

/// What a write did: the result `write_file` gives.
#[derive(Debug, Clone, Serialize)]
pub struct WriteOutput {
    /// The file, as the caller named it.
    pub path: String,
    /// How many bytes it holds now.
    pub bytes: usize,
    /// Their sha256.
    pub sha256: String,
    /// Whether the file is new.
    pub created: bool,
}

/// A whole text file, as read.
#[derive(Debug, Clone, Serialize)]
pub struct TextFile {
    /// The file, as the caller named it.
    pub path: String,
    /// Its text.
    pub text: String,
    /// The sha256 of its bytes.
    pub sha256: String,
}

impl Kernel {
    pub fn read(&self, call: &Call, path: &str, opts: ReadOptions) -> Result<ReadOutput, KernelError> {
        self.journaled(call, Action::Read, path, |entry| {
            let (resolved, display) = self.authorize(call, path, Access::Read, entry)?;
            refuse_directory_syntax(path, &display)?;
            let place = self.place(&resolved.real, &display, false)?;
            let out = read::read_numbered(&place, &display, opts)?;
            ledger::note(call, &resolved.real, &out.sha256);
            Ok(out)
        })
    }

    /// Whether `path` resolves into the workspace proper: not outside it, and not a protected
    /// folder, a policy file or rein's home. A check of the project's own files (its
    /// configuration, its build's outputs) reads only there and asks nobody otherwise: the
    /// paths it follows are named by workspace files, and a yes (or `--yes`) given for the
    /// run would have read a file of the person's elsewhere and shown it in the result.
    pub fn is_workspace_path(&self, path: &str) -> bool {
        self.scope.resolve(path).is_ok_and(|resolved| resolved.class == PathClass::Workspace)
    }

    pub fn read_text(&self, call: &Call, path: &str) -> Result<TextFile, KernelError> {
        self.journaled(call, Action::Read, path, |entry| {
            let (resolved, display) = self.authorize(call, path, Access::Read, entry)?;
            let place = self.place(&resolved.real, &display, false)?;
            let (text, sha256) = read::read_text(&place, &display)?;
            ledger::note(call, &resolved.real, &sha256);
            Ok(TextFile { path: display, text, sha256 })
        })
    }

    pub fn exists(&self, call: &Call, path: &str) -> Result<bool, KernelError> {
        self.journaled(call, Action::Exists, path, |entry| {
            let (resolved, display) = self.authorize(call, path, Access::Read, entry)?;
            match self.place(&resolved.real, &display, false) {
                Ok(place) => {
                    Ok(place.dir.kind_of(&place.name).map_err(|e| KernelError::io("inspect", display, e))?.is_some())
                }
                Err(KernelError::FileNotFound { .. }) => Ok(false),
                Err(e) => Err(e),
            }
        })
    }

    pub fn list(&self, call: &Call, path: &str, opts: ListOptions) -> Result<ListOutput, KernelError> {
        self.journaled(call, Action::List, path, |entry| {
            let (resolved, display) = self.authorize(call, path, Access::Read, entry)?;
            let dir = self.dir_at(&resolved.real, &display)?;
            list::list(&self.scope, dir, &display, opts, self.spawn.profile.bulky_dirs())
        })
    }

    /// Writes `content` atomically and durably. With `expected_sha256`, refuses (STALE_FILE)
    /// unless the file has exactly that content now.
    pub fn write(
        &self,
        call: &Call,
        path: &str,
        content: &[u8],
        expected_sha256: Option<&str>,
    ) -> Result<WriteOutput, KernelError> {
        self.journaled(call, Action::Write, path, |entry| {
            let unasked = |resolved: &super::ResolvedPath, display: &str| {
                refuse_directory_syntax(path, display)?;
                let before = match self.place(&resolved.real, display, false) {
                    Ok(place) => current_sha(&place, display)?,
                    Err(KernelError::FileNotFound { .. }) => None,
                    Err(e) => return Err(e),
                };
                ledger::check_fresh(display, expected_sha256, before.as_deref())?;
                ledger::check_read(call, &resolved.real, display, before.as_deref())
            };
            let (resolved, display) = self.authorize_checked(call, path, Access::Write, entry, &unasked)?;
            refuse_directory_syntax(path, &display)?;
            // With an expected sha256 the file must exist, so no folder is made for it.
            let place = match self.place(&resolved.real, &display, expected_sha256.is_none()) {
                Err(KernelError::FileNotFound { .. }) if expected_sha256.is_some() => {
                    return ledger::check_fresh(&display, expected_sha256, None)
                        .and(Err(KernelError::FileNotFound { path: display.clone() }));
                }
                other => other?,
            };
            let _lock = lock::lock_dir(&place.dir)?;
            let before = current_sha(&place, &display)?;
            // Again under the lock: a file made since `authorize` looked is one this would replace.
            self.held_to_annotation(call, before.is_some(), &display, entry)?;
            ledger::check_fresh(&display, expected_sha256, before.as_deref())?;
            ledger::check_read(call, &resolved.real, &display, before.as_deref())?;
            if let Some(sha) = &before {
                entry.preimage = Some(self.keep_preimage(&place, &display, sha)?);
            }
            let created = write::write_in(&place, &display, std::iter::once(content), || Ok(()))?;
            let sha256 = sha256_hex(content);
            ledger::note(call, &resolved.real, &sha256);
            entry.sha256_before = before;
            entry.sha256_after = Some(sha256.clone());
            call.emit(|| EventKind::FileWritten { path: call.secrets().scrub(&display), bytes: content.len() as u64 });
            Ok(WriteOutput { path: display, bytes: content.len(), sha256, created })
        })
    }

    /// Creates a directory and its missing parents. Returns whether anything was created.
    pub fn create_dir(&self, call: &Call, path: &str) -> Result<bool, KernelError> {
        self.journaled(call, Action::Mkdir, path, |entry| {
            let (resolved, display) = self.authorize(call, path, Access::Write, entry)?;
            let place = self.place(&resolved.real, &display, true)?;
            match place.dir.kind_of(&place.name).map_err(|e| KernelError::io("inspect", &display, e))? {
                Some((dir::Kind::Dir, _)) => Ok(false),
                Some(_) => Err(KernelError::invalid(format!("{display} exists and is not a directory"))),
                None => {
                    place
                        .dir
                        .create_dir(&place.name)
                        .map_err(|e| KernelError::io("create the directory", display, e))?;
                    Ok(true)
                }
            }
        })
    }

    /// Writes `rel` (a file of rein's own under `.rein/`, e.g. a run report) atomically, through
    /// folders held open beneath the workspace. Not journaled: it is rein's record, not a
    /// change to the project.
    pub fn write_rein_file(&self, rel: &Path, content: &[u8]) -> Result<(), KernelError> {
        let display = rein_file_name(rel);
        let place = Place::beneath(&self.root, &self.root.path().join(rel), true)
            .map_err(|e| KernelError::io("open the folder of", &display, e))?;
        write::write_in(&place, &display, std::iter::once(content), || Ok(())).map(drop)
    }

    /// Creates `rel` (a new file of rein's own under `.rein/`, a kept program's log) through
    /// folders held open beneath the workspace, refusing one that is there already (a link an
    /// agent put in its place included); the file is open for writing.
    pub(crate) fn create_rein_file(&self, rel: &Path) -> Result<std::fs::File, KernelError> {
        let display = rein_file_name(rel);
        let place = Place::beneath(&self.root, &self.root.path().join(rel), true)
            .map_err(|e| KernelError::io("open the folder of", &display, e))?;
        place.dir.create_new(&place.name, 0o600).map_err(|e| KernelError::io("create", &display, e))
    }

    /// [`Kernel::write_rein_file`] with the content copied from `source` as it is read.
    pub(crate) fn write_rein_file_from(&self, rel: &Path, source: &mut dyn std::io::Read) -> Result<(), KernelError> {
        let display = rein_file_name(rel);
        let place = Place::beneath(&self.root, &self.root.path().join(rel), true)
            .map_err(|e| KernelError::io("open the folder of", &display, e))?;
        write::write_in_from(&place, &display, source).map(drop)
    }

    /// Reads `rel` (a file of rein's own under `.rein/`, e.g. a run report) through folders
    /// held open beneath the workspace, following no link: `.rein/` is in the workspace, so an
    /// agent may have put a link there to a file it could not read otherwise. None when it is
    /// not there.
    pub fn read_rein_file(&self, rel: &Path) -> Result<Option<Vec<u8>>, KernelError> {
        let display = rein_file_name(rel);
        let place = match Place::beneath(&self.root, &self.root.path().join(rel), false) {
            Ok(place) => place,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(KernelError::io("open the folder of", &display, e)),
        };
        let file = match place.dir.open_read(&place.name) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(KernelError::io("read", &display, e)),
        };
        let meta = file.metadata().map_err(|e| KernelError::io("read", &display, e))?;
        if !meta.is_file() || meta.len() > REIN_FILE_LIMIT {
            return Err(KernelError::invalid(format!("{display} is not a file rein wrote; remove it")));
        }
        let bytes =
            read::read_all(file, meta.len(), REIN_FILE_LIMIT).map_err(|e| KernelError::io("read", &display, e))?;
        Ok(Some(bytes))
    }

    /// A small workspace file a toolchain profile reads for its decisions (a project's own
    /// settings), `rel` to the workspace root. An agent can write it: read as every workspace
    /// file is (no link, a regular file, opened without waiting on a FIFO, at most 1 MiB),
    /// never by name — a link to `/dev/zero` would be read until memory ran out, a FIFO would
    /// wait for ever.
    pub fn small_workspace_text(&self, rel: &str) -> Result<String, KernelError> {
        const LIMIT: u64 = 1 << 20;
        let hint = "a project's settings file is a few KB; make it a regular file in the workspace";
        let place = Place::beneath(&self.root, &self.root.path().join(rel), false)
            .map_err(|e| KernelError::io("open", rel, e))?;
        let bytes = read::read_whole_text(&place, rel, LIMIT, hint)?;
        String::from_utf8(bytes)
            .map_err(|_| KernelError::BinaryFile { path: rel.to_string(), reason: "it is not UTF-8 text".to_string() })
    }

    /// The names in `rel` (a folder of rein's own under `.rein/`), opened like
    /// [`Kernel::read_rein_file`]; empty when it is not there.
    pub fn rein_dir_names(&self, rel: &Path) -> Result<Vec<String>, KernelError> {
        let display = rein_file_name(rel);
        let dir = match self.root.open_beneath(rel) {
            Ok(dir) => dir,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(KernelError::io("open", &display, e)),
        };
        let names = dir.names().map_err(|e| KernelError::io("list", &display, e))?;
        Ok(names.into_iter().filter_map(|name| name.into_string().ok()).collect())
    }

    /// Keeps the current content of `place` (whose sha256 is `sha`) for undo.
    pub(super) fn keep_preimage(&self, place: &Place, display: &str, sha: &str) -> Result<String, KernelError> {
        self.journal.keep_preimage(place, display, sha)
    }

    /// Where `real` is: its folder held open from the workspace root (or from the filesystem's
    /// root — `/`, or `C:\` on Windows — for a path outside that a person approved), following
    /// no link; `create` makes missing folders.
    pub(crate) fn place(&self, real: &Path, display: &str, create: bool) -> Result<Place, KernelError> {
        let opened = if real.starts_with(self.root.path()) {
            Place::beneath(&self.root, real, create)
        } else {
            self.open_root_of(real).and_then(|top| Place::beneath(&top, real, create))
        };
        opened.map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => KernelError::FileNotFound { path: display.to_string() },
            _ => KernelError::io("open the folder of", display, e),
        })
    }

    /// The folder `real` itself, held open like [`Kernel::place`].
    pub(super) fn dir_at(&self, real: &Path, display: &str) -> Result<Dir, KernelError> {
        let opened = match real.strip_prefix(self.root.path()) {
            Ok(rel) => self.root.open_beneath(rel),
            Err(_) => self.open_root_of(real).and_then(|top| {
                let rel = real.strip_prefix(top.path()).unwrap_or(real);
                top.open_beneath(rel)
            }),
        };
        opened.map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => KernelError::FileNotFound { path: display.to_string() },
            std::io::ErrorKind::NotADirectory => {
                KernelError::invalid(format!("{display} is a file, not a directory; read it with read_file"))
            }
            _ => KernelError::io("open", display, e),
        })
    }
}

impl Kernel {
    /// The root of the filesystem `real` is on (`/`; on Windows its drive or share), held open
    /// with the workspace's strategy.
    fn open_root_of(&self, real: &Path) -> std::io::Result<Dir> {
        let top: std::path::PathBuf = real
            .components()
            .take_while(|c| matches!(c, std::path::Component::Prefix(_) | std::path::Component::RootDir))
            .collect();
        Dir::open_with(&top, self.root.strategy().clone())
    }
}

/// The sha256 of the file at `place`, or None when there is none.
pub(super) fn current_sha(place: &Place, display: &str) -> Result<Option<String>, KernelError> {
    let mut file = match place.dir.open_read(&place.name) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(KernelError::io("read", display, e)),
    };
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut file, &mut bytes).map_err(|e| KernelError::io("read", display, e))?;
    Ok(Some(sha256_hex(&bytes)))
}

/// `dir/` names a directory; resolution would drop the slash and act on a file named `dir`.
pub(super) fn refuse_directory_syntax(requested: &str, display: &str) -> Result<(), KernelError> {
    // `x/`, `x/.` and `x/..`.
    let before_dots = requested.strip_suffix("..").or_else(|| requested.strip_suffix('.')).unwrap_or(requested);
    if before_dots.ends_with(SEPARATORS) {
        return Err(KernelError::NotAFile { path: display.to_string(), kind: "directory path" });
    }
    Ok(())
}

/// How a file of rein's own is named in messages: `/`-joined, as on every OS.
fn rein_file_name(rel: &Path) -> String {
    names::slash_name(rel).unwrap_or_else(|| crate::visible::shown_path(rel))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_syntax_is_refused_for_files() {
        for path in ["src/", "src/.", "src/..", "a/b/"] {
            assert!(refuse_directory_syntax(path, path).is_err(), "{path}");
        }
        for path in ["src", "a.", "a..", "a/...", "a/.b", "a/b.."] {
            assert!(refuse_directory_syntax(path, path).is_ok(), "{path}");
        }
        // A backslash ends a folder only where it is a separator.
        assert_eq!(refuse_directory_syntax(r"src\", "src").is_err(), cfg!(windows));
    }
}
