//! Read-before-edit (MCP connections): a change needs an earlier read in the session, and the
//! file must still have the content that was read — by sha256, not mtime.

use rein::Host;
use serde_json::json;

fn host(on: bool) -> (tempfile::TempDir, Host) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    std::fs::write(dir.path().join("ws/a.ets"), "let a = 1;\n").unwrap();
    let host = Host::builder()
        .workspace(dir.path().join("ws"))
        .home(dir.path().join("home"))
        .read_before_edit(on)
        .build()
        .unwrap();
    (dir, host)
}

fn edit(host: &Host, old: &str, new: &str) -> Result<serde_json::Value, rein::Failure> {
    host.call("edit_file", json!({"path": "a.ets", "old_string": old, "new_string": new}))
}

#[test]
fn an_unread_file_cannot_be_changed() {
    let (dir, host) = host(true);
    let err = edit(&host, "1", "2").unwrap_err();
    assert_eq!(err.code.as_str(), "NOT_READ");
    assert!(err.message.contains("read_file"));
    let err = host.call("write_file", json!({"path": "a.ets", "content": "x"})).unwrap_err();
    assert_eq!(err.code.as_str(), "NOT_READ");
    assert_eq!(std::fs::read_to_string(dir.path().join("ws/a.ets")).unwrap(), "let a = 1;\n");
    host.call("write_file", json!({"path": "new.ets", "content": "x"})).expect("new files need no read");
}

#[test]
fn read_then_edit_then_edit_again() {
    let (_dir, host) = host(true);
    host.call("read_file", json!({"path": "a.ets", "offset": 1, "limit": 1})).unwrap();
    edit(&host, "1", "2").expect("read first");
    edit(&host, "2", "3").expect("the session knows its own change");
}

#[test]
fn a_change_by_someone_else_since_the_read_is_stale() {
    let (dir, host) = host(true);
    let read = host.call("read_file", json!({"path": "a.ets"})).unwrap();
    std::fs::write(dir.path().join("ws/a.ets"), "let a = 1; // edited elsewhere\n").unwrap();
    let err = edit(&host, "1", "2").unwrap_err();
    assert_eq!(err.code.as_str(), "STALE_FILE");
    assert_eq!(err.details["expected_sha256"], read["sha256"]);
    assert_ne!(err.details["actual_sha256"], read["sha256"]);
    assert_eq!(std::fs::read_to_string(dir.path().join("ws/a.ets")).unwrap(), "let a = 1; // edited elsewhere\n");
}

#[test]
fn off_by_default() {
    let (_dir, host) = host(false);
    edit(&host, "1", "2").expect("no read needed outside MCP");
}

/// A person at the prompt who answers yes, counting the questions.
struct CountingPerson(std::sync::atomic::AtomicUsize);

impl rein::Approver for CountingPerson {
    fn answer(&self, _: &rein::ApprovalRequest) -> rein::Answer {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        rein::Answer::Once
    }
    fn name(&self) -> &'static str {
        "person"
    }
    fn is_person(&self) -> bool {
        true
    }
}

/// Issue 40: over MCP a write_file to rein.toml asked the person, then was refused NOT_READ
/// (headless the same call said APPROVAL_REQUIRED). What needs no person — NOT_READ,
/// STALE_FILE, an edit that cannot apply — is refused before anyone is asked.
#[test]
fn a_refusal_that_needs_no_person_comes_before_the_question() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    std::fs::write(dir.path().join("ws/rein.toml"), "# ours\n").unwrap();
    let person = std::sync::Arc::new(CountingPerson(Default::default()));
    let host = Host::builder()
        .workspace(dir.path().join("ws"))
        .home(dir.path().join("home"))
        .read_before_edit(true)
        .approver(person.clone())
        .build()
        .unwrap();
    let asked = || person.0.load(std::sync::atomic::Ordering::SeqCst);
    let err = host.call("write_file", json!({"path": "rein.toml", "content": "x"})).unwrap_err();
    assert_eq!((err.code.as_str(), asked()), ("NOT_READ", 0), "{err}");
    let err =
        host.call("edit_file", json!({"path": "rein.toml", "old_string": "ours", "new_string": "x"})).unwrap_err();
    assert_eq!((err.code.as_str(), asked()), ("NOT_READ", 0), "{err}");
    host.call("read_file", json!({"path": "rein.toml"})).unwrap();
    let err =
        host.call("edit_file", json!({"path": "rein.toml", "old_string": "theirs", "new_string": "x"})).unwrap_err();
    assert_eq!((err.code.as_str(), asked()), ("OLD_STRING_NOT_FOUND", 0), "{err}");
    let stale = json!({"path": "rein.toml", "content": "x", "expected_sha256": "0".repeat(64)});
    let err = host.call("write_file", stale).unwrap_err();
    assert_eq!((err.code.as_str(), asked()), ("STALE_FILE", 0), "{err}");
    assert_eq!(std::fs::read_to_string(dir.path().join("ws/rein.toml")).unwrap(), "# ours\n");
    // What would happen is asked about, once.
    host.call("edit_file", json!({"path": "rein.toml", "old_string": "ours", "new_string": "mine"})).unwrap();
    assert_eq!(asked(), 1);
    assert_eq!(std::fs::read_to_string(dir.path().join("ws/rein.toml")).unwrap(), "# mine\n");
}
