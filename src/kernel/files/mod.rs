//! Files: reading, listing and writing, each through the scope, the gate and the journal.

pub mod ledger;
pub mod list;
pub mod lock;
pub mod read;
pub mod write;

use std::path::Path;

use serde::Serialize;
use sha2::{Digest, Sha256};

pub use ledger::ReadLedger;
pub use list::{ListOptions, ListOutput};
pub use read::{ReadOptions, ReadOutput};

use super::journal::Action;
use super::{Access, Call, Kernel, KernelError};

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
            let out = read::read_numbered(&resolved.real, &display, opts)?;
            ledger::note(call, &resolved.real, &out.sha256);
            Ok(out)
        })
    }

    pub fn read_text(&self, call: &Call, path: &str) -> Result<TextFile, KernelError> {
        self.journaled(call, Action::Read, path, |entry| {
            let (resolved, display) = self.authorize(call, path, Access::Read, entry)?;
            let (text, sha256) = read::read_text(&resolved.real, &display)?;
            ledger::note(call, &resolved.real, &sha256);
            Ok(TextFile { path: display, text, sha256 })
        })
    }

    pub fn exists(&self, call: &Call, path: &str) -> Result<bool, KernelError> {
        self.journaled(call, Action::Exists, path, |entry| {
            let (resolved, _) = self.authorize(call, path, Access::Read, entry)?;
            Ok(std::fs::symlink_metadata(&resolved.real).is_ok())
        })
    }

    pub fn list(&self, call: &Call, path: &str, opts: ListOptions) -> Result<ListOutput, KernelError> {
        self.journaled(call, Action::List, path, |entry| {
            let (resolved, display) = self.authorize(call, path, Access::Read, entry)?;
            list::list(&self.scope, &resolved.real, &display, opts)
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
            let parent = resolved.real.parent().unwrap_or(Path::new("/"));
            if expected_sha256.is_some() && !parent.is_dir() {
                // The file cannot exist, so it cannot have the expected content: refuse before
                // creating any directory.
                ledger::check_fresh(&display, expected_sha256, None)?;
            }
            write::create_parents(&resolved.real, &display)?;
            let _lock = lock::lock_dir(parent)?;
            let before = match std::fs::read(&resolved.real) {
                Ok(bytes) => Some(sha256_hex(&bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(KernelError::io("read", display, e)),
            };
            ledger::check_fresh(&display, expected_sha256, before.as_deref())?;
            ledger::check_read(call, &resolved.real, &display, before.as_deref())?;
            if let Some(sha) = &before {
                entry.preimage = Some(self.keep_preimage(&resolved.real, &display, sha)?);
            }
            let created = write::write_atomic(&resolved.real, &display, content)?;
            let sha256 = sha256_hex(content);
            ledger::note(call, &resolved.real, &sha256);
            entry.sha256_before = before;
            entry.sha256_after = Some(sha256.clone());
            Ok(WriteOutput { path: display, bytes: content.len(), sha256, created })
        })
    }

    /// Creates a directory and its missing parents. Returns whether anything was created.
    pub fn create_dir(&self, call: &Call, path: &str) -> Result<bool, KernelError> {
        self.journaled(call, Action::Mkdir, path, |entry| {
            let (resolved, display) = self.authorize(call, path, Access::Write, entry)?;
            match std::fs::metadata(&resolved.real) {
                Ok(meta) if meta.is_dir() => return Ok(false),
                Ok(_) => return Err(KernelError::invalid(format!("{display} exists and is not a directory"))),
                Err(_) => {}
            }
            std::fs::create_dir_all(&resolved.real).map_err(|e| KernelError::io("create the directory", display, e))?;
            Ok(true)
        })
    }

    /// Keeps the current content of `real` (whose sha256 is `sha`) for undo.
    pub(super) fn keep_preimage(&self, real: &Path, display: &str, sha: &str) -> Result<String, KernelError> {
        self.journal.keep_preimage(real, sha).map_err(|e| KernelError::io("keep the old content of", display, e))
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

/// `dir/` names a directory; resolution would drop the slash and act on a file named `dir`.
pub(super) fn refuse_directory_syntax(requested: &str, display: &str) -> Result<(), KernelError> {
    if requested.ends_with('/') || requested.ends_with("/.") || requested.ends_with("/..") {
        return Err(KernelError::NotAFile { path: display.to_string(), kind: "directory path" });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_is_lowercase_hex() {
        assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        assert_eq!(sha256_hex(b""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }
}
