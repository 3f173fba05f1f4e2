//! Sessions that hold for hours, through rmcp's client against `rein serve`: one save is one
//! reload and one list_changed, a broken file keeps its last good version while the others go
//! in, `logging/setLevel` filters, every tool name is one clients accept, a server with a
//! broken configuration still answers, and malformed input gets a JSON-RPC error.
// MCP logging is deprecated upstream (SEP-2577), but rein declares it, so it is tested.
#![allow(deprecated)]

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, LoggingLevel, SetLevelRequestParams};
use serde_json::{json, Value};

use crate::common::Workspace;
use crate::mcp_server::{connect, greet_tool, list_changes, logs_at, within, Person};

#[tokio::test(flavor = "multi_thread")]
async fn one_save_gives_one_list_changed_and_then_the_server_is_quiet() {
    let ws = Workspace::new();
    ws.file("tools/greet.lua", greet_tool("v1"));
    let mut session = connect(&ws, &[], &[], Person::Absent).await;
    ws.file("tools/greet.lua", greet_tool("v2"));
    let events = session.events_until_quiet("the reload after one save", Duration::from_secs(4)).await;
    assert_eq!(list_changes(&events), 1, "one save, one list_changed, then 4 s of quiet: {events:?}");
    assert_eq!(logs_at(&events, "info").len(), 1, "one info line naming what went in: {events:?}");
    assert!(logs_at(&events, "error").is_empty(), "{events:?}");
    // Calls read the tools: that is no change either.
    for _ in 0..3 {
        assert_eq!(session.ok("greet", json!({})).await["text"], json!("v2"));
    }
    let more = tokio::time::timeout(Duration::from_secs(2), session.events.recv()).await;
    assert!(more.is_err(), "calls caused no reload: {more:?}");
    session.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_broken_file_keeps_its_old_version_while_a_new_file_is_served() {
    let ws = Workspace::new();
    let a = |text: &str| {
        format!("return {{ name = 'a', description = 'a', run = function() return {{ text = '{text}' }} end }}\n")
    };
    ws.file("tools/a.lua", a("old a"));
    let mut session = connect(&ws, &[], &[], Person::Absent).await;
    assert_eq!(session.ok("a", json!({})).await["text"], json!("old a"));
    // One burst: a broken edit of a.lua and a new b.lua.
    ws.file("tools/a.lua", "return {\n  name = 'a',,\n}\n");
    ws.file("tools/b.lua", "return { name = 'b', description = 'b', run = function() return { text = 'b' } end }\n");
    let events = session.events_until_quiet("the reload of a and b", Duration::from_secs(3)).await;
    assert_eq!(list_changes(&events), 1, "b went in: {events:?}");
    let errors = logs_at(&events, "error");
    assert_eq!(errors.len(), 1, "one log message about a: {events:?}");
    let kept = &errors[0]["kept"];
    assert_eq!(kept.as_array().map(Vec::len), Some(1), "{events:?}");
    assert_eq!(kept[0]["file"], json!("tools/a.lua"));
    assert_eq!(kept[0]["serving"], json!("previous_version"));
    assert!(kept[0]["problem"].as_str().unwrap().contains("tools/a.lua:2"), "{events:?}");
    assert!(logs_at(&events, "info").is_empty(), "the error message says it all: {events:?}");
    assert_eq!(session.ok("b", json!({})).await["text"], json!("b"));
    assert_eq!(session.ok("a", json!({})).await["text"], json!("old a"), "a keeps its last good version");
    let names: Vec<String> = within("tools/list", session.client.list_all_tools())
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(names.contains(&"a".to_string()) && names.contains(&"b".to_string()), "{names:?}");
    session.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn logging_set_level_filters_the_log_messages() {
    let ws = Workspace::new();
    ws.file("tools/greet.lua", greet_tool("v1"));
    let mut session = connect(&ws, &[], &[], Person::Absent).await;
    let peer = session.client.peer().clone();
    let set = |level| {
        let peer = peer.clone();
        async move { peer.set_level(SetLevelRequestParams::new(level)).await }
    };
    within("logging/setLevel", set(LoggingLevel::Error)).await.expect("setLevel is answered");
    ws.file("tools/greet.lua", greet_tool("v2"));
    let events = session.events_until_quiet("the reload", Duration::from_secs(2)).await;
    assert_eq!(list_changes(&events), 1, "{events:?}");
    assert!(logs_at(&events, "info").is_empty(), "info is below error: {events:?}");
    ws.file("tools/greet.lua", "return {,}");
    let events = session.events_until_quiet("the rejected reload", Duration::from_secs(2)).await;
    assert_eq!(logs_at(&events, "error").len(), 1, "errors still pass: {events:?}");
    within("logging/setLevel", set(LoggingLevel::Emergency)).await.unwrap();
    ws.file("tools/greet.lua", "return {,,}");
    let quiet = tokio::time::timeout(Duration::from_secs(3), session.events.recv()).await;
    assert!(quiet.is_err(), "nothing below emergency is sent: {quiet:?}");
    within("logging/setLevel", set(LoggingLevel::Debug)).await.unwrap();
    ws.file("tools/greet.lua", greet_tool("v3"));
    let events = session.events_until_quiet("the reload of v3", Duration::from_secs(2)).await;
    assert_eq!(logs_at(&events, "info").len(), 1, "{events:?}");
    session.close().await;
}

pub(crate) fn team_kit(ws: &Workspace) {
    let dir = ws.root.join("team-kit");
    std::fs::create_dir_all(dir.join("tools")).unwrap();
    std::fs::create_dir_all(dir.join("recipes")).unwrap();
    std::fs::write(
        dir.join("pack.toml"),
        "name = \"team-kit\"\nversion = \"1.0.0\"\ndescription = \"kit\"\nrein = \">=0.1\"\npermissions = []\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("tools/greet.lua"),
        "return { name = 'greet', description = 'greets', run = function() return { text = 'from the kit' } end }",
    )
    .unwrap();
    std::fs::write(
        dir.join("recipes/clean-run.lua"),
        "return { name = 'clean-run', description = 'runs', steps = { { name = 'one', run = function(ctx) return { done = true } end } } }",
    )
    .unwrap();
    let sha = rein::packs::hash::content_hash(&dir).unwrap();
    crate::common::copy_dir(&dir, &ws.home.join("packs/team-kit").join(&sha));
    ws.file(
        "rein.lock",
        format!("[[pack]]\nname = \"team-kit\"\nversion = \"1.0.0\"\nsource = \"../team-kit\"\nsha256 = \"{sha}\"\n"),
    );
    crate::common::approve_policy(ws);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_tool_name_is_one_clients_accept_and_the_mapped_names_work() {
    let ws = Workspace::new();
    team_kit(&ws);
    let session = connect(&ws, &[], &[], Person::Absent).await;
    let tools = within("tools/list", session.client.list_all_tools()).await.unwrap();
    let names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
    for name in &names {
        let valid = !name.is_empty()
            && name.len() <= 64
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        assert!(valid, "{name:?} does not match ^[a-zA-Z0-9_-]{{1,64}}$");
    }
    assert!(names.contains(&"team_kit__greet".to_string()), "{names:?}");
    assert!(names.contains(&"recipe_team_kit__clean_run".to_string()), "{names:?}");
    assert_eq!(session.ok("team_kit__greet", json!({})).await["text"], json!("from the kit"));
    assert_eq!(session.ok("team-kit.greet", json!({})).await["text"], json!("from the kit"), "dotted alias");
    let run = session.ok("recipe_team_kit__clean_run", json!({})).await;
    assert_eq!(run["status"], json!("succeeded"), "{run}");
    session.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_clash_of_mcp_names_is_refused_at_load_with_a_clear_error() {
    let ws = Workspace::new();
    team_kit(&ws);
    ws.file(
        "tools/team_kit__greet.lua",
        "return { name = 'team_kit__greet', description = 'x', run = function() return {} end }",
    );
    let (status, out) = crate::common::rein_json(&ws, &["check"]);
    assert_eq!(status, 1, "{out}");
    let problems = out["error"]["details"]["problems"].to_string();
    assert!(problems.contains("the same MCP name \\\"team_kit__greet\\\""), "{problems}");
    assert!(problems.contains("tools/team_kit__greet.lua"), "{problems}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_pack_still_initializes_and_says_what_to_run() {
    let ws = Workspace::new();
    team_kit(&ws);
    std::fs::remove_dir_all(ws.home.join("packs")).unwrap();
    let mut session = connect(&ws, &[], &[], Person::Absent).await;
    let info = session.client.peer_info().expect("initialized");
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(instructions.contains("team-kit") && instructions.contains("rein pack sync"), "{instructions}");
    let event = session.next_event("the warning about the missing pack", Duration::from_secs(5)).await;
    assert_eq!(event["level"], json!("warning"), "{event}");
    assert!(event["log"]["message"].as_str().unwrap().contains("rein pack sync"), "{event}");
    session.ok("list_dir", json!({})).await;
    let error = session.refused("team_kit__greet", json!({}), "INVALID_CONFIG").await;
    assert!(error["message"].as_str().unwrap().contains("rein pack sync"), "{error}");
    session.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_broken_rein_toml_still_initializes_and_serves_nothing() {
    let ws = Workspace::new();
    ws.file("rein.toml", "[[allow]]\nprogram = \"hdc\"\n");
    let session = connect(&ws, &[], &[], Person::Absent).await;
    let instructions = session.client.peer_info().unwrap().instructions.clone().unwrap_or_default();
    assert!(instructions.contains("rein.toml is not valid"), "{instructions}");
    let tools = within("tools/list", session.client.list_all_tools()).await.unwrap();
    assert!(tools.is_empty(), "nothing is served without the project's policy: {tools:?}");
    let params = CallToolRequestParams::new("read_file").with_arguments(serde_json::Map::new());
    let result = within("a call", session.client.call_tool(params)).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert_eq!(result.structured_content.unwrap()["code"], json!("INVALID_CONFIG"));
    session.close().await;
}

/// `rein serve` driven with raw lines: initialize, then `lines`; the replies that carry an
/// error, in order.
fn raw_exchange(ws: &Workspace, lines: &[Vec<u8>], replies: usize) -> Vec<Value> {
    let mut child = ws
        .serve_command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn rein serve");
    let mut input = child.stdin.take().unwrap();
    let output = child.stdout.take().unwrap();
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    let writer = {
        let lines = lines.to_vec();
        std::thread::spawn(move || {
            input.write_all(format!("{init}\n").as_bytes()).unwrap();
            input.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").unwrap();
            for line in lines {
                input.write_all(&line).unwrap();
                input.write_all(b"\n").unwrap();
            }
            input
        })
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(output).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut errors = Vec::new();
    let mut answered = 0;
    while answered < replies + 1 {
        let line = rx.recv_timeout(Duration::from_secs(30)).expect("rein answers every line within 30 s");
        let value: Value = serde_json::from_str(&line).unwrap();
        if value.get("id").is_some() {
            answered += 1;
            if value.get("error").is_some() {
                errors.push(value);
            }
        }
    }
    drop(writer.join().unwrap());
    let _ = child.wait();
    errors
}

#[test]
fn malformed_json_gets_a_parse_error_and_an_oversized_message_an_error_naming_the_limit() {
    let ws = Workspace::new();
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"write_file","arguments":{{"path":"big.txt","content":"{}"}}}}}}"#,
        "x".repeat(17 * 1024 * 1024)
    );
    let lines = vec![
        b"{this is not json".to_vec(),
        big.into_bytes(),
        br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"list_dir","arguments":{}}}"#.to_vec(),
    ];
    let errors = raw_exchange(&ws, &lines, 3);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert_eq!(errors[0]["id"], Value::Null);
    assert_eq!(errors[0]["error"]["code"], json!(-32700), "{errors:?}");
    assert_eq!(errors[1]["id"], json!(5), "the oversized request is answered by its id");
    let message = errors[1]["error"]["message"].as_str().unwrap();
    assert!(message.contains("16777216 bytes (16 MiB)"), "the limit is named: {message}");
    assert!(!ws.path("big.txt").exists(), "the oversized call did not run");
}

#[tokio::test(flavor = "multi_thread")]
async fn rein_toml_changes_over_mcp_ask_a_person_and_hand_edits_wait_for_one() {
    let ws = Workspace::new();
    ws.file("rein.toml", "[[deny]]\nprogram = \"hdc\"\nargs = [\"list\"]\n");
    crate::common::approve_policy(&ws);
    // The agent removes the deny rule with its own file tools, outside rein.
    ws.file("rein.toml", "");
    let mut session = connect(&ws, &[], &[], Person::Absent).await;
    let info = session.client.peer_info().expect("initialized");
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(instructions.contains("rein approvals policy") && instructions.contains("was removed"), "{instructions}");
    let event = session.next_event("the warning about the pending policy", Duration::from_secs(5)).await;
    assert_eq!(event["level"], json!("warning"), "{event}");
    assert!(event["log"]["message"].as_str().unwrap().contains("rein approvals policy"), "{event}");
    // The approved deny rule still holds.
    session.refused("device_list", json!({}), "APPROVAL_DENIED").await;
    // Through rein, the policy files change only with a person's yes (once read: what needs no
    // person is refused first, issue 40).
    session.refused("write_file", json!({"path": "rein.toml", "content": ""}), "NOT_READ").await;
    session.ok("read_file", json!({"path": "rein.toml"})).await;
    let error = session.refused("write_file", json!({"path": "rein.toml", "content": ""}), "APPROVAL_REQUIRED").await;
    assert_eq!(error["details"]["class"], json!("policy"), "{error}");
    let error = session.refused("write_file", json!({"path": "rein.lock", "content": ""}), "APPROVAL_REQUIRED").await;
    assert_eq!(error["details"]["class"], json!("policy"), "{error}");
    session.close().await;
    assert_eq!(std::fs::read_to_string(ws.path("rein.toml")).unwrap(), "");
    assert!(!ws.path("rein.lock").exists());
}

#[test]
fn a_session_logs_nothing_of_rmcp_on_stderr_unless_logs_are_asked_for() {
    let ws = Workspace::new();
    let mut input = String::new();
    input.push_str(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#);
    input.push_str("\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    input.push_str(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_dir","arguments":{}}}"#);
    input.push('\n');
    let stderr_of = |flags: &[&str]| {
        let mut cmd = std::process::Command::new(crate::common::REIN);
        cmd.arg("--workspace").arg(&ws.ws).arg("--home").arg(&ws.home).args(flags).arg("serve").env_remove("REIN_LOG");
        let out = crate::common::output_within(&mut cmd, Some(input.as_bytes()), Duration::from_secs(60));
        assert!(String::from_utf8_lossy(&out.stdout).contains("\"id\":1"), "the call was answered");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let quiet = stderr_of(&[]);
    for noise in ["INFO", "InitializeRequestParams", "peer_info"] {
        assert!(!quiet.contains(noise), "no {noise} by default: {quiet}");
    }
    let verbose = stderr_of(&["-v"]);
    assert!(verbose.contains("INFO"), "-v shows info lines: {verbose}");
}

#[test]
fn a_client_that_closes_stdin_right_after_its_requests_still_gets_every_response() {
    if crate::common::under_wine() {
        // Under Wine 8 some runs lose the responses still queued when rein exits (241 of 301
        // arrived, or 119: about what fits in the pipe), others pass. Whether Wine's pipes or
        // rein's end of session on Windows loses them is open (docs/src/platforms.md).
        eprintln!("SKIPPED a_client_that_closes_stdin_right_after_its_requests_still_gets_every_response: loses responses in some runs under Wine, cause open");
        return;
    }
    let ws = Workspace::new();
    ws.file("a.txt", "one\ntwo\n");
    let calls = 300;
    let mut input = String::new();
    input.push_str(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#);
    input.push_str("\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    for id in 1..=calls {
        input.push_str(&format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"read_file\",\"arguments\":{{\"path\":\"a.txt\"}}}}}}\n"
        ));
    }
    let mut child = ws
        .serve_command()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn rein serve");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()).expect("write the requests"));
    let (tx, rx) = std::sync::mpsc::channel();
    let output = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        // Read late, so the responses (over 64 KiB) fill the pipe while rein is done with the
        // calls and its input: it must still wait for them to be written before it exits.
        std::thread::sleep(Duration::from_millis(1500));
        let answered =
            BufReader::new(output).lines().map_while(Result::ok).filter(|l| l.contains("\"result\"")).count();
        let _ = tx.send(answered);
    });
    writer.join().unwrap();
    let answered = rx.recv_timeout(Duration::from_secs(60)).expect("rein serve exits after stdin closes");
    let _ = child.wait();
    assert_eq!(answered, calls + 1, "initialize and every call are answered before rein exits");
}

/// A pipe whose both ends are non-blocking (O_NONBLOCK lives on each end's file description).
#[cfg(target_os = "linux")] // pipe2
fn nonblocking_pipe() -> (std::os::fd::OwnedFd, std::os::fd::OwnedFd) {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the two-element array with two new descriptors, which we then own.
    unsafe {
        assert_eq!(libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC), 0);
        (std::os::fd::OwnedFd::from_raw_fd(fds[0]), std::os::fd::OwnedFd::from_raw_fd(fds[1]))
    }
}

#[cfg(target_os = "linux")]
fn make_blocking(fd: &std::os::fd::OwnedFd) {
    use std::os::fd::AsRawFd;
    // SAFETY: fcntl on a descriptor we own, changing only its O_NONBLOCK flag.
    unsafe {
        let flags = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
        assert_eq!(libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK), 0);
    }
}

#[test]
// Linux only: pipe2 with O_NONBLOCK (a non-blocking pipe has no Windows counterpart for a child's stdio).
#[cfg(target_os = "linux")]
fn stdin_and_stdout_left_non_blocking_by_the_client_still_serve_every_call() {
    let ws = Workspace::new();
    ws.file("a.txt", "one\ntwo\n");
    let (child_in, ours_in) = nonblocking_pipe();
    let (ours_out, child_out) = nonblocking_pipe();
    make_blocking(&ours_in);
    make_blocking(&ours_out);
    let mut child = ws
        .serve_command()
        .stdin(Stdio::from(child_in))
        .stdout(Stdio::from(child_out))
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn rein serve");
    let calls = 300;
    let mut input = std::fs::File::from(ours_in);
    let writer = std::thread::spawn(move || {
        // The server starts reading before anything is written: its reads would block.
        std::thread::sleep(Duration::from_millis(300));
        writeln!(input, r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"2025-06-18","capabilities":{{}},"clientInfo":{{"name":"raw","version":"0"}}}}}}"#).expect("rein serve keeps reading stdin");
        writeln!(input, r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#)
            .expect("rein serve keeps reading stdin");
        for id in 1..=calls {
            writeln!(input, r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"read_file","arguments":{{"path":"a.txt"}}}}}}"#).expect("rein serve keeps reading stdin");
        }
        input
    });
    let (tx, rx) = std::sync::mpsc::channel();
    let output = std::fs::File::from(ours_out);
    std::thread::spawn(move || {
        // Read late: the responses (over 64 KiB) fill the pipe, so the server's writes would block.
        std::thread::sleep(Duration::from_millis(1000));
        let mut answered = 0;
        for line in BufReader::new(output).lines().map_while(Result::ok) {
            if line.contains("\"result\"") {
                answered += 1;
                if answered == calls + 1 {
                    break;
                }
            }
        }
        let _ = tx.send(answered);
    });
    let answered = rx.recv_timeout(Duration::from_secs(60)).expect("the responses are read within 60 s");
    drop(writer.join().unwrap());
    let _ = child.wait();
    assert_eq!(answered, calls + 1, "initialize and every call are answered");
}
