//! Freshness: a change is refused (STALE_FILE) when the file no longer has the content the
//! caller based it on — the sha256 the caller passed, or, in a session with read-before-edit
//! (an MCP connection), what this session last read. Compared by sha256, never by mtime.

use std::path::Path;

pub use crate::kernel::call::ReadLedger;
use crate::kernel::{Call, KernelError};

/// The call's session now knows `real` as having `sha256` (after reading or writing it).
pub(crate) fn note(call: &Call, real: &Path, sha256: &str) {
    if let Some(ledger) = call.reads() {
        ledger.note(real, sha256);
    }
}

/// In a read-before-edit session, refuses changing an existing file (`current` is its sha256)
/// that the session has not read (NOT_READ), or that changed since (STALE_FILE).
pub(crate) fn check_read(call: &Call, real: &Path, display: &str, current: Option<&str>) -> Result<(), KernelError> {
    let (Some(ledger), Some(_)) = (call.reads(), current) else { return Ok(()) };
    match ledger.seen(real) {
        None => Err(KernelError::NotRead { path: display.to_string() }),
        Some(read) => check_fresh(display, Some(&read), current),
    }
}

/// Refuses (STALE_FILE) when the file's sha256 (`actual`, None: no file) is not `expected`.
pub(crate) fn check_fresh(display: &str, expected: Option<&str>, actual: Option<&str>) -> Result<(), KernelError> {
    match expected {
        Some(expected) if !actual.is_some_and(|a| expected.eq_ignore_ascii_case(a)) => Err(KernelError::StaleFile {
            path: display.to_string(),
            expected: expected.to_string(),
            actual: actual.map(str::to_string),
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_session_must_read_what_it_changes_and_nothing_changed_since() {
        let call = Call::new().with_read_ledger(Arc::new(ReadLedger::new()));
        let path = Path::new("/ws/a.txt");
        assert!(matches!(check_read(&call, path, "a.txt", Some("aa")), Err(KernelError::NotRead { .. })));
        assert!(check_read(&call, path, "a.txt", None).is_ok(), "creating a file needs no read");
        note(&call, path, "aa");
        assert!(check_read(&call, path, "a.txt", Some("aa")).is_ok());
        assert!(matches!(check_read(&call, path, "a.txt", Some("bb")), Err(KernelError::StaleFile { .. })));
        assert!(check_read(&Call::new(), path, "a.txt", Some("bb")).is_ok(), "no ledger, no check");
    }

    #[test]
    fn an_expected_hash_must_match_in_any_case() {
        assert!(check_fresh("a", Some("ABC"), Some("abc")).is_ok());
        assert!(check_fresh("a", None, Some("abc")).is_ok());
        assert!(matches!(check_fresh("a", Some("abc"), None), Err(KernelError::StaleFile { actual: None, .. })));
    }
}
