//! Files: reading, listing and writing, each through the scope, the gate and the journal; and
//! `names`: paths as rein keys and shows them, the same on every OS.

pub mod dir;
pub mod ledger;
pub mod list;
pub mod lock;
pub mod names;
pub mod read;
pub mod write;

use std::path::Path;

use serde::Serialize;
use sha2::{Digest, Sha256};

pub use ledger::ReadLedger;
pub use list::{ListOptions, ListOutput};
pub use read::{ReadOptions, ReadOutput};

use dir::{Dir, Place};

use super::journal::Action;
use super::{Access, Call, EventKind, Kernel, KernelError};

#[derive(Debug, Clone, Serialize)]
pub struct WriteOutput {
    pub path: String,
    pub bytes: usize,
    pub sha256: String,
    pub created: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct TextFile {
    pub path: String,
    pub text: String,
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
            list::list(&self.scope, dir, &display, opts)
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
            let (resolved, display) = self.authorize(call, path, Access::Write, entry)?;
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
        let display = rel.display().to_string();
        let place = Place::beneath(&self.root, &self.root.path().join(rel), true)
            .map_err(|e| KernelError::io("open the folder of", &display, e))?;
        write::write_in(&place, &display, std::iter::once(content), || Ok(())).map(drop)
    }

    /// Keeps the current content of `place` (whose sha256 is `sha`) for undo.
    pub(super) fn keep_preimage(&self, place: &Place, display: &str, sha: &str) -> Result<String, KernelError> {
        self.journal.keep_preimage(place, sha).map_err(|e| KernelError::io("keep the old content of", display, e))
    }

    /// Where `real` is: its folder held open from the workspace root (or from the filesystem's
    /// root — `/`, or `C:\` on Windows — for a path outside that a person approved), following
    /// no link; `create` makes missing folders.
    pub(super) fn place(&self, real: &Path, display: &str, create: bool) -> Result<Place, KernelError> {
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

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    Sha256::digest(bytes)
        .iter()
        .flat_map(|byte| [HEX[usize::from(byte >> 4)], HEX[usize::from(byte & 0x0f)]])
        .map(char::from)
        .collect()
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
    // `x/`, `x/.` and `x/..`; Windows also takes `\` as a separator (on Unix it is a character
    // of a name).
    let seps: &[char] = if cfg!(windows) { &['/', '\\'] } else { &['/'] };
    let before_dots = requested.strip_suffix("..").or_else(|| requested.strip_suffix('.')).unwrap_or(requested);
    if before_dots.ends_with(seps) {
        return Err(KernelError::NotAFile { path: display.to_string(), kind: "directory path" });
    }
    Ok(())
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

    #[test]
    fn sha256_is_lowercase_hex() {
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }
}
