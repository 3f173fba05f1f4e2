//! Hot reload: a changed tool replaces the old one only after it loads and its checks pass;
//! otherwise the old one keeps serving. Calls never fail while reloads happen.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

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
    assert!(outcome.loaded.is_empty(), "a deleted file is not `loaded`: {:?}", outcome.loaded);
    assert_eq!(outcome.deleted, [FILE]);
    assert_eq!(host.call("greet", json!({})).unwrap_err().code.as_str(), "TOOL_NOT_FOUND");
}

#[test]
fn the_watcher_reloads_an_edited_file() {
    let (_d, ws, host) = setup();
    let host = Arc::new(host);
    let (tx, rx) = mpsc::channel();
    let _watcher = host.watch(move |outcome| tx.send(outcome).unwrap()).unwrap();
    std::fs::write(ws.join(FILE), greet("v2", "v2")).unwrap();
    // A bound, not a speed check (a loaded machine is slow; benches measure speed).
    let outcome = rx.recv_timeout(Duration::from_secs(10)).expect("a reload of the edit within 10 s");
    assert!(outcome.applied, "{outcome:?}");
    assert_eq!(text(&host), "v2");
    std::fs::write(ws.join(FILE), "syntax error here").unwrap();
    let outcome = rx.recv_timeout(Duration::from_secs(5)).expect("a reload attempt");
    assert!(!outcome.applied);
    assert_eq!(text(&host), "v2", "the old version keeps serving");
}

#[test]
fn a_change_made_before_watching_started_is_reloaded_when_it_starts() {
    // `rein serve` answers its client while the tools load: a file the agent saves between the
    // read and the start of watching must not wait for the next save.
    let (_d, ws, host) = setup();
    let host = Arc::new(host);
    std::fs::write(ws.join(FILE), greet("v2", "v2")).unwrap();
    let (tx, rx) = mpsc::channel();
    let _watcher = host.watch(move |outcome| tx.send(outcome).unwrap()).unwrap();
    let outcome = rx.recv_timeout(Duration::from_secs(10)).expect("a reload of the earlier change within 10 s");
    assert!(outcome.applied, "{outcome:?}");
    assert_eq!(text(&host), "v2");
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

/// Every outcome the watcher reports, collected until `quiet` passes without a new one (at
/// most `limit` in all); panics naming `what` when not even one arrives.
fn outcomes_until_quiet(
    rx: &mpsc::Receiver<rein::ReloadOutcome>,
    what: &str,
    quiet: Duration,
) -> Vec<rein::ReloadOutcome> {
    let first = rx.recv_timeout(Duration::from_secs(10)).unwrap_or_else(|_| panic!("no reload within 10 s of {what}"));
    let mut all = vec![first];
    while let Ok(next) = rx.recv_timeout(quiet) {
        all.push(next);
        assert!(all.len() < 20, "the watcher keeps reloading after {what}: {all:?}");
    }
    all
}

#[test]
fn one_save_gives_one_reload_and_then_the_watcher_stays_quiet() {
    let (_d, ws, host) = setup();
    let host = Arc::new(host);
    let (tx, rx) = mpsc::channel();
    let _watcher = host.watch(move |outcome| tx.send(outcome).unwrap()).unwrap();
    std::fs::write(ws.join(FILE), greet("v2", "v2")).unwrap();
    let outcomes = outcomes_until_quiet(&rx, "one save", Duration::from_secs(3));
    assert_eq!(outcomes.len(), 1, "one save, one reload: {outcomes:?}");
    assert!(outcomes[0].applied, "{outcomes:?}");
    assert_eq!(host.generation_number(), 2, "the reload's own reads caused no further generation");
    // Reading the tools (as every call and reload does) is not a change.
    for _ in 0..5 {
        assert_eq!(text(&host), "v2");
        let _ = std::fs::read_to_string(ws.join(FILE)).unwrap();
    }
    assert!(rx.recv_timeout(Duration::from_secs(1)).is_err(), "reads are not changes");
    // A broken save is reported once, not once per tick.
    std::fs::write(ws.join(FILE), "return { name = 'greet',, }").unwrap();
    let outcomes = outcomes_until_quiet(&rx, "a broken save", Duration::from_secs(3));
    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    assert!(!outcomes[0].applied);
    assert_eq!(outcomes[0].problems.len(), 1, "{outcomes:?}");
    assert_eq!(host.generation_number(), 2);
}

#[test]
fn a_broken_file_keeps_its_last_good_version_while_a_new_file_goes_in() {
    let (_d, ws, host) = setup();
    std::fs::write(ws.join(FILE), "return { name = 'greet',, }").unwrap();
    std::fs::write(
        ws.join("tools/bye.lua"),
        "return { name = 'bye', description = 'says bye', run = function() return { text = 'bye' } end }",
    )
    .unwrap();
    let outcome = host.reload(&[FILE.to_string(), "tools/bye.lua".to_string()]);
    assert!(outcome.applied, "{outcome:?}");
    assert_eq!(outcome.added, ["bye"]);
    assert_eq!(outcome.loaded, ["tools/bye.lua"]);
    assert_eq!(outcome.kept.len(), 1, "{outcome:?}");
    assert_eq!(outcome.kept[0].file, FILE);
    assert_eq!(outcome.kept[0].serving, rein::Serving::PreviousVersion);
    assert!(outcome.kept[0].problem.contains("tools/greet.lua:1"), "{outcome:?}");
    assert_eq!(text(&host), "v1", "the last good version serves");
    assert_eq!(host.call("bye", json!({})).unwrap()["text"], "bye");
    // The next change of another file keeps greet's good version too.
    std::fs::write(
        ws.join("tools/bye.lua"),
        "return { name = 'bye', description = 'says bye', run = function() return { text = 'bye2' } end }",
    )
    .unwrap();
    let outcome = host.reload(&["tools/bye.lua".to_string()]);
    assert!(outcome.applied && outcome.kept.is_empty(), "{outcome:?}");
    assert_eq!(text(&host), "v1");
    assert_eq!(host.call("bye", json!({})).unwrap()["text"], "bye2");
}

#[test]
fn a_new_file_that_never_loaded_stays_absent() {
    let (_d, ws, host) = setup();
    std::fs::write(ws.join("tools/bad.lua"), "return { name = 'bad', run = 42 }").unwrap();
    std::fs::write(ws.join(FILE), greet("v2", "v2")).unwrap();
    let outcome = host.reload(&["tools/bad.lua".to_string(), FILE.to_string()]);
    assert!(outcome.applied, "{outcome:?}");
    assert_eq!(outcome.kept[0].file, "tools/bad.lua");
    assert_eq!(outcome.kept[0].serving, rein::Serving::Nothing);
    assert_eq!(text(&host), "v2");
    assert_eq!(host.call("bad", json!({})).unwrap_err().code.as_str(), "TOOL_NOT_FOUND");
}

fn prelude_setup() -> (tempfile::TempDir, std::path::PathBuf, Host) {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(ws.join("tools")).unwrap();
    std::fs::create_dir_all(ws.join("prelude/kit")).unwrap();
    std::fs::write(ws.join("prelude/kit/words.lua"), "return { hello = 'hi' }").unwrap();
    std::fs::write(
        ws.join("tools/greet.lua"),
        r#"local words = require("kit.words")
return { name = "greet", description = "greets",
  checks = { { args = {}, expect = { text = "hi" } } },
  run = function() return { text = words.hello } end }
"#,
    )
    .unwrap();
    // Its check always fails: it must not be run by changes it does not depend on.
    std::fs::write(
        ws.join("tools/other.lua"),
        r#"return { name = "other", description = "independent",
  checks = { { args = {}, expect = { never = true } } },
  run = function() return { n = 1 } end }
"#,
    )
    .unwrap();
    let host = Host::builder().workspace(&ws).home(dir.path().join("home")).build().unwrap();
    (dir, ws, host)
}

const WORDS: &str = "prelude/kit/words.lua";

#[test]
fn a_prelude_change_rechecks_the_tools_that_require_it_and_a_failure_keeps_the_old_module() {
    let (_d, ws, host) = prelude_setup();
    std::fs::write(ws.join(WORDS), "return { hello = 'bye' }").unwrap();
    let outcome = host.reload(&[WORDS.to_string()]);
    assert!(!outcome.applied, "greet's check fails with the new module: {outcome:?}");
    assert_eq!(outcome.kept.len(), 1, "only the module is kept back, other's check was not run: {outcome:?}");
    assert_eq!(outcome.kept[0].file, WORDS);
    assert!(outcome.kept[0].problem.contains("check 1 of greet"), "{outcome:?}");
    assert_eq!(host.call("greet", json!({})).unwrap()["text"], "hi", "the old module serves");

    std::fs::write(ws.join(WORDS), "return { hello = 'hi', extra = 1 }").unwrap();
    let outcome = host.reload(&[WORDS.to_string()]);
    assert!(outcome.applied, "{outcome:?}");
    assert_eq!(outcome.updated, Vec::<String>::new(), "no tool file changed");
}

#[test]
fn a_prelude_syntax_error_is_named_by_file_and_line_and_keeps_the_old_module() {
    let (_d, ws, host) = prelude_setup();
    std::fs::write(ws.join(WORDS), "return {\n hello = = 'x' }").unwrap();
    std::fs::write(
        ws.join("tools/other.lua"),
        "return { name = 'other', description = 'independent', run = function() return { n = 2 } end }",
    )
    .unwrap();
    let outcome = host.reload(&[WORDS.to_string(), "tools/other.lua".to_string()]);
    assert!(outcome.applied, "other's change goes in: {outcome:?}");
    assert_eq!(outcome.kept.len(), 1, "{outcome:?}");
    assert!(outcome.kept[0].problem.contains("prelude/kit/words.lua:2"), "{outcome:?}");
    assert_eq!(host.call("greet", json!({})).unwrap()["text"], "hi");
    assert_eq!(host.call("other", json!({})).unwrap()["n"], 2);
}

#[test]
fn a_tools_folder_created_after_the_watch_started_is_picked_up() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let host = Arc::new(Host::builder().workspace(&ws).home(dir.path().join("home")).build().unwrap());
    let (tx, rx) = mpsc::channel();
    let _watcher = host.watch(move |outcome| tx.send(outcome).unwrap()).unwrap();
    std::fs::create_dir_all(ws.join("tools")).unwrap();
    std::fs::write(ws.join(FILE), greet("new", "new")).unwrap();
    let outcomes = outcomes_until_quiet(&rx, "creating tools/", Duration::from_secs(2));
    assert!(outcomes.iter().any(|o| o.added.contains(&"greet".to_string())), "{outcomes:?}");
    assert_eq!(text(&host), "new");
    // And it is watched from then on.
    std::fs::write(ws.join(FILE), greet("newer", "newer")).unwrap();
    let outcomes = outcomes_until_quiet(&rx, "editing the new tool", Duration::from_secs(2));
    assert_eq!(outcomes.len(), 1, "{outcomes:?}");
    assert_eq!(text(&host), "newer");
}
