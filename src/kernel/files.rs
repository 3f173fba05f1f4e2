//! Reading, listing and writing files: each through the scope, the policy and the journal.

use std::path::Path;

use super::journal::Entry;
use super::{
    list, lock, read, text, write, Access, Kernel, KernelError, ListOptions, ListOutput, ReadOptions, ReadOutput,
    TextFile, WriteOutput,
};

impl Kernel {
    pub fn read(&self, path: &str, opts: ReadOptions) -> Result<ReadOutput, KernelError> {
        self.journaled("read", path, |entry| {
            let (resolved, display) = self.authorize_for(path, Access::Read, entry)?;
            refuse_directory_syntax(path, &display)?;
            let out = read::read_numbered(&resolved.real, &display, opts)?;
            self.note_read(&resolved.real, &out.sha256);
            Ok(out)
        })
    }

    pub fn read_text(&self, path: &str) -> Result<TextFile, KernelError> {
        self.journaled("read", path, |entry| {
            let (resolved, display) = self.authorize_for(path, Access::Read, entry)?;
            let (text, sha256) = read::read_text(&resolved.real, &display)?;
            self.note_read(&resolved.real, &sha256);
            Ok(TextFile { path: display, text, sha256 })
        })
    }

    pub fn exists(&self, path: &str) -> Result<bool, KernelError> {
        self.journaled("exists", path, |entry| {
            let (resolved, _) = self.authorize_for(path, Access::Read, entry)?;
            Ok(std::fs::symlink_metadata(&resolved.real).is_ok())
        })
    }

    pub fn list(&self, path: &str, opts: ListOptions) -> Result<ListOutput, KernelError> {
        self.journaled("list", path, |entry| {
            let (resolved, display) = self.authorize_for(path, Access::Read, entry)?;
            list::list(&self.scope, &resolved.real, &display, opts)
        })
    }

    pub fn write(&self, path: &str, content: &[u8], expected_sha256: Option<&str>) -> Result<WriteOutput, KernelError> {
        self.journaled("write", path, |entry| {
            let (resolved, display) = self.authorize_for(path, Access::Write, entry)?;
            refuse_directory_syntax(path, &display)?;
            let parent = resolved.real.parent().unwrap_or(Path::new("/"));
            if expected_sha256.is_some() && !parent.is_dir() {
                // The file cannot exist, so it cannot have the expected content: refuse before
                // creating any directory.
                check_fresh(&display, expected_sha256.unwrap_or_default(), None)?;
            }
            write::create_parents(&resolved.real, &display)?;
            let _lock = lock::lock_dir(parent)?;
            let before = match std::fs::read(&resolved.real) {
                Ok(bytes) => Some(text::sha256_hex(&bytes)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
                Err(e) => return Err(KernelError::io("read", display, e)),
            };
            if let Some(expected) = expected_sha256 {
                check_fresh(&display, expected, before.as_deref())?;
            }
            self.check_read(&resolved.real, &display, before.as_deref())?;
            if let Some(sha) = &before {
                entry.preimage = self.keep_preimage(&resolved.real, &display, sha)?;
            }
            let created = write::write_atomic(&resolved.real, &display, content)?;
            let sha256 = text::sha256_hex(content);
            self.note_read(&resolved.real, &sha256);
            entry.sha256_before = before;
            entry.sha256_after = Some(sha256.clone());
            Ok(WriteOutput { path: display, bytes: content.len(), sha256, created })
        })
    }

    /// Creates a directory and its missing parents. Returns whether anything was created.
    pub fn create_dir(&self, path: &str) -> Result<bool, KernelError> {
        self.journaled("mkdir", path, |entry| {
            let (resolved, display) = self.authorize_for(path, Access::Write, entry)?;
            match std::fs::metadata(&resolved.real) {
                Ok(meta) if meta.is_dir() => return Ok(false),
                Ok(_) => return Err(KernelError::invalid(format!("{display} exists and is not a directory"))),
                Err(_) => {}
            }
            std::fs::create_dir_all(&resolved.real).map_err(|e| KernelError::io("create the directory", display, e))?;
            Ok(true)
        })
    }

    /// Resolves and authorizes `path`, noting in the journal entry who allowed it.
    fn authorize_for(
        &self,
        path: &str,
        access: Access,
        entry: &mut Entry,
    ) -> Result<(super::ResolvedPath, String), KernelError> {
        let resolved = self.scope.resolve(path)?;
        entry.target = resolved.display(&self.scope);
        entry.decided_by = Some(self.check_file(&resolved, access)?);
        let display = resolved.display(&self.scope);
        Ok((resolved, display))
    }
}

pub(super) fn check_fresh(display: &str, expected: &str, actual: Option<&str>) -> Result<(), KernelError> {
    if actual.is_some_and(|a| expected.eq_ignore_ascii_case(a)) {
        return Ok(());
    }
    Err(KernelError::StaleFile {
        path: display.to_string(),
        expected: expected.to_string(),
        actual: actual.map(str::to_string),
    })
}

/// `dir/` names a directory; resolution would drop the slash and act on a file named `dir`.
pub(super) fn refuse_directory_syntax(requested: &str, display: &str) -> Result<(), KernelError> {
    if requested.ends_with('/') || requested.ends_with("/.") || requested.ends_with("/..") {
        return Err(KernelError::NotAFile { path: display.to_string(), kind: "directory path" });
    }
    Ok(())
}
