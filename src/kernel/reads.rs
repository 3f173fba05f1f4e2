//! Read-before-edit: in a session that asks for it (an MCP connection), a file may be changed
//! only after this session read it, and only if it still has the content that was read —
//! compared by sha256, never by mtime.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::KernelError;

#[derive(Debug, Default)]
pub struct ReadLedger {
    seen: Mutex<HashMap<PathBuf, String>>,
}

impl ReadLedger {
    /// This session now knows `real` as having `sha256` (after reading or writing it).
    pub fn note(&self, real: &Path, sha256: &str) {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).insert(real.to_path_buf(), sha256.to_string());
    }

    /// Refuses a change to an existing file this session has not read, or that changed since.
    pub fn check(&self, real: &Path, display: &str, current: Option<&str>) -> Result<(), KernelError> {
        let Some(current) = current else { return Ok(()) };
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        match seen.get(real) {
            None => Err(KernelError::NotRead { path: display.to_string() }),
            Some(read) if read != current => Err(KernelError::StaleFile {
                path: display.to_string(),
                expected: read.clone(),
                actual: Some(current.to_string()),
            }),
            Some(_) => Ok(()),
        }
    }
}
