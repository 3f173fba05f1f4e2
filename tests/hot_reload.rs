//! Hot reload: a changed tool replaces the old one only after it loads and its checks pass;
//! otherwise the old one keeps serving. Calls never fail while reloads happen.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use rein::Host;
use serde_json::json;

fn greet(version: &str, check_expect: &str) -> String {
    format!(
        r#"return {{ name = "greet", description = "greets",
  checks = {{ {{ args = {{}}, expect = {{ text = "{check_expect}" }} }} }},
  run = function() return {{ text = "{version}" }} end }}
"#
    )
}

fn setup() -> (tempfile::TempDir, std::path::PathBuf, Host) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(ws.join("tools")).unwrap();
    std::fs::write(ws.join("tools/greet.lua"), greet("v1", "v1")).unwrap();
    let host = Host::builder().workspace(&ws).home(dir.path().join("home")).build().unwrap();
    (dir, ws, host)
}

fn text(host: &Host) -> String {
    host.call("greet", json!({})).unwrap()["text"].as_str().unwrap().to_string()
}

const FILE: &str = "tools/greet.lua";

#[test]
fn a_good_change_replaces_the_tool() {
    let (_d, ws, host) = setup();
    assert_eq!(text(&host), "v1");
    std::fs::write(ws.join(FILE), greet("v2", "v2")).unwrap();
    let outcome = host.reload(&[FILE.to_string()]);
    assert!(outcome.applied, "{outcome:?}");
    assert_eq!((outcome.generation, outcome.updated.clone()), (2, vec!["greet".to_string()]));
    assert_eq!(text(&host), "v2");
}

#[test]
fn a_syntax_error_keeps_the_old_tool_and_names_file_and_line() {
    let (_d, ws, host) = setup();
    std::fs::write(ws.join(FILE), "return { name = 'greet',, }").unwrap();
    let outcome = host.reload(&[FILE.to_string()]);
    assert!(!outcome.applied);
    assert!(outcome.problems[0].contains("tools/greet.lua:1"), "{outcome:?}");
    assert_eq!(text(&host), "v1");
    assert_eq!(host.generation_number(), 1);
}

#[test]
fn a_failing_check_keeps_the_old_tool() {
    let (_d, ws, host) = setup();
    std::fs::write(ws.join(FILE), greet("v3", "something else")).unwrap();
    let outcome = host.reload(&[FILE.to_string()]);
    assert!(!outcome.applied);
    assert!(outcome.problems[0].contains("check 1 of greet"), "{outcome:?}");
    assert_eq!(text(&host), "v1");
}

#[test]
fn a_deleted_file_removes_its_tool() {
    let (_d, ws, host) = setup();
    std::fs::remove_file(ws.join(FILE)).unwrap();
    let outcome = host.reload(&[FILE.to_string()]);
    assert!(outcome.applied, "{outcome:?}");
    assert_eq!(outcome.removed, ["greet"]);
    assert_eq!(host.call("greet", json!({})).unwrap_err().code.as_str(), "TOOL_NOT_FOUND");
}

#[test]
fn the_watcher_reloads_an_edited_file_within_a_second() {
    let (_d, ws, host) = setup();
    let host = Arc::new(host);
    let (tx, rx) = mpsc::channel();
    let _watcher = host.watch(move |outcome| tx.send(outcome).unwrap()).unwrap();
    let written = Instant::now();
    std::fs::write(ws.join(FILE), greet("v2", "v2")).unwrap();
    let outcome = rx.recv_timeout(Duration::from_secs(1)).expect("a reload within 1 s of the edit");
    assert!(outcome.applied, "{outcome:?}");
    assert!(written.elapsed() < Duration::from_secs(1));
    assert_eq!(text(&host), "v2");
    std::fs::write(ws.join(FILE), "syntax error here").unwrap();
    let outcome = rx.recv_timeout(Duration::from_secs(5)).expect("a reload attempt");
    assert!(!outcome.applied);
    assert_eq!(text(&host), "v2", "the old version keeps serving");
}

#[test]
fn calls_never_fail_during_twenty_reloads() {
    let (_d, ws, host) = setup();
    let host = Arc::new(host);
    let stop = Arc::new(AtomicBool::new(false));
    let (calls, failures) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let caller = {
        let (host, stop, calls, failures) = (host.clone(), stop.clone(), calls.clone(), failures.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                match host.call("greet", json!({})) {
                    Ok(_) => calls.fetch_add(1, Ordering::Relaxed),
                    Err(_) => failures.fetch_add(1, Ordering::Relaxed),
                };
            }
        })
    };
    for i in 0..20 {
        let version = format!("v{i}");
        std::fs::write(ws.join(FILE), greet(&version, &version)).unwrap();
        assert!(host.reload(&[FILE.to_string()]).applied);
    }
    stop.store(true, Ordering::Relaxed);
    caller.join().unwrap();
    assert_eq!(failures.load(Ordering::Relaxed), 0);
    assert!(calls.load(Ordering::Relaxed) > 0);
    assert_eq!(host.generation_number(), 21);
    assert_eq!(text(&host), "v19");
}
