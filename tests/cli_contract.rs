//! The CLI contract of DESIGN.md: one JSON object on stdout with --json, exit 0/1/2, logs on
//! stderr, human output without --json.

use std::time::Duration;

use crate::common::{output_within, rein_json, Workspace, REIN};
use rein::visible::shown_path;
use serde_json::{json, Value};

const LIMIT: Duration = Duration::from_secs(60);

#[test]
fn tools_lists_every_built_in_with_origin_and_schema() {
    let ws = Workspace::new();
    let (status, out) = rein_json(&ws, &["tools"]);
    assert_eq!(status, 0);
    let tools = out["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "api_check",
            "api_lookup",
            "app_install",
            "app_launch",
            "app_stop",
            "app_uninstall",
            "config_check",
            "crash_scan",
            "device_list",
            "device_ready",
            "device_test",
            "edit_file",
            "emulator_list",
            "emulator_start",
            "emulator_stop",
            "hap_sign",
            "hilog_read",
            "hstack",
            "hvigor_build",
            "lint",
            "list_dir",
            "local_test",
            "multi_edit",
            "project_create",
            "project_info",
            "read_file",
            "screenshot",
            "ui_dump",
            "ui_find",
            "ui_key",
            "ui_swipe",
            "ui_tap",
            "ui_type",
            "ui_wait",
            "write_file"
        ]
    );
    for tool in tools {
        assert_eq!(tool["origin"], json!("built-in"));
        assert_eq!(tool["schema"]["type"], json!("object"));
    }
    let edit = tools.iter().find(|t| t["name"] == "edit_file").unwrap();
    assert_eq!(edit["schema"]["required"], json!(["new_string", "old_string", "path"]));
    assert_eq!(edit["schema"]["properties"]["replace_all"]["default"], json!(false));
}

#[test]
fn exit_status_separates_success_tool_failure_and_usage() {
    let ws = Workspace::new();
    ws.file("a.txt", "hello\n");
    assert_eq!(rein_json(&ws, &["call", "read_file", r#"{"path":"a.txt"}"#]).0, 0);
    let (status, out) = rein_json(&ws, &["call", "read_file", r#"{"path":"missing.txt"}"#]);
    assert_eq!((status, out["error"]["code"].as_str()), (1, Some("FILE_NOT_FOUND")));
    let (status, out) = rein_json(&ws, &["call", "read_file", "{not json"]);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_ARGS")));
    let (status, out) = rein_json(&ws, &["call", "read_file", "[1,2]"]);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_ARGS")));
    let (status, out) = rein_json(&ws, &["call", "no_such_tool"]);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("TOOL_NOT_FOUND")));
}

#[test]
fn a_missing_workspace_is_a_configuration_error() {
    let ws = Workspace::new();
    let mut cmd = std::process::Command::new(REIN);
    cmd.args(["--json", "--workspace"])
        .arg(ws.root.join("nope"))
        .arg("--home")
        .arg(&ws.home)
        .args(["call", "read_file"]);
    let out = output_within(&mut cmd, None, LIMIT);
    assert_eq!(out.status.code(), Some(2));
    let parsed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(parsed["error"]["code"], json!("INVALID_CONFIG"));
    assert!(parsed["error"]["message"].as_str().unwrap().contains("--workspace"));
}

#[test]
fn check_fails_with_the_broken_file_named() {
    let ws = Workspace::new();
    assert_eq!(rein_json(&ws, &["check"]).0, 0);
    ws.file("tools/broken.lua", "return { name = 'broken' ");
    let (status, out) = rein_json(&ws, &["check"]);
    assert_eq!(status, 1);
    assert_eq!(out["error"]["code"], json!("TOOL_INVALID"));
    assert_eq!(out["error"]["details"]["problems"][0]["file"], json!("tools/broken.lua"));
}

#[test]
fn calling_a_tool_whose_file_does_not_load_is_tool_invalid_with_the_file_and_line() {
    let ws = Workspace::new();
    // The file name is not the tool's name: the name it declares is what a caller uses.
    ws.file("tools/greeting.lua", "return {\n  name = \"greet\",\n  description = \"d\",\n  oops oops\n}\n");
    let (status, out) = rein_json(&ws, &["call", "greet", "{}"]);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("TOOL_INVALID")), "{out}");
    let message = out["error"]["message"].as_str().unwrap();
    assert!(message.contains("tools/greeting.lua:4"), "where it broke: {message}");
    assert_eq!(out["error"]["details"]["file"], json!("tools/greeting.lua"));

    // A name no file declares: unknown, and the broken file is named, since it may be the one.
    let (status, out) = rein_json(&ws, &["call", "hello", "{}"]);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("TOOL_NOT_FOUND")), "{out}");
    assert!(out["error"]["message"].as_str().unwrap().contains("1 file did not load (tools/greeting.lua:4)"), "{out}");
    assert_eq!(out["error"]["details"]["not_loaded"], json!(["tools/greeting.lua:4"]));
}

#[test]
fn human_output_shows_numbered_lines_and_diffs() {
    let ws = Workspace::new();
    ws.file("a.txt", "one\ntwo\n");
    let mut read = std::process::Command::new(REIN);
    read.arg("--workspace").arg(&ws.ws).arg("--home").arg(&ws.home).args(["call", "read_file", r#"{"path":"a.txt"}"#]);
    let out = output_within(&mut read, None, LIMIT);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "     1\tone\n     2\ttwo\n");
    let mut edit = std::process::Command::new(REIN);
    edit.arg("--workspace").arg(&ws.ws).arg("--home").arg(&ws.home).args([
        "call",
        "edit_file",
        r#"{"path":"a.txt","old_string":"two","new_string":"2"}"#,
    ]);
    let out = output_within(&mut edit, None, LIMIT);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n");
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 replacement"));
    let mut failing = std::process::Command::new(REIN);
    failing.arg("--workspace").arg(&ws.ws).arg("--home").arg(&ws.home).args([
        "call",
        "edit_file",
        r#"{"path":"a.txt","old_string":"zzz","new_string":"y"}"#,
    ]);
    let out = output_within(&mut failing, None, LIMIT);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error[OLD_STRING_NOT_FOUND]"));
}

#[test]
fn the_example_project_runs_the_quick_start_and_its_own_tool() {
    let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hello-app");
    let ws = Workspace::new();
    crate::common::copy_dir(&example, &ws.ws);
    let before = ws.read("AppScope/app.json5");
    let (status, out) = rein_json(&ws, &["call", "bump_version", r#"{"version_name":"1.0.1","dry_run":true}"#]);
    assert_eq!(status, 0, "{out}");
    assert_eq!(ws.read("AppScope/app.json5"), before, "dry run writes nothing");
    let (status, out) = rein_json(&ws, &["call", "bump_version", r#"{"by":2}"#]);
    assert_eq!(status, 0, "{out}");
    assert_eq!(out["result"]["version_code"], json!({"old": 1000000, "new": 1000002}));
    let after = String::from_utf8(ws.read("AppScope/app.json5")).unwrap();
    assert!(after.contains("\"versionCode\": 1000002,"));
    assert_eq!(after.replace("1000002", "1000000").as_bytes(), before.as_slice());
    assert_eq!(rein_json(&ws, &["check"]).0, 0);
}

/// People read paths the way they type them. On Windows rein opens files by their verbatim
/// form (`\\?\C:\…`), which must never reach a message, a report or a prompt.
#[test]
fn messages_show_paths_the_way_people_write_them() {
    let ws = Workspace::new();
    let config = ws.home.join("config.toml");
    let familiar = shown_path(&config);
    let (_, doctor, _) = ws.human(&["doctor"]);
    assert!(doctor.contains(&familiar), "doctor names {familiar}: {doctor}");
    std::fs::write(&config, "[toolchain\n").unwrap();
    let (status, out) = rein_json(&ws, &["call", "read_file", r#"{"path": "x"}"#]);
    let message = out["error"]["message"].as_str().unwrap_or_default();
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_CONFIG")), "{out}");
    assert!(message.contains(&familiar), "the broken file is named as {familiar}: {message}");
    std::fs::remove_file(&config).unwrap();
    let outside = ws.root.join("outside.txt");
    let args = json!({"path": outside.to_string_lossy(), "content": "x"}).to_string();
    let (_, out) = rein_json(&ws, &["call", "write_file", &args]);
    assert_eq!(out["error"]["code"], "APPROVAL_REQUIRED", "{out}");
    for text in [doctor.as_str(), message, &out.to_string()] {
        assert!(!text.contains(r"\\?\") && !text.contains(r"\\\\?\\"), "a verbatim path is shown: {text}");
    }
}

/// Issue 40: `rein serve` with stdin closed said INVALID_ARGS, as if the person had passed a
/// wrong argument. A client that leaves before it begins is no error: no session, exit 0, and
/// stderr says what `rein serve` is for.
#[test]
fn serve_with_stdin_closed_ends_without_an_error() {
    let ws = Workspace::new();
    let mut serve = ws.human_command(&["serve"]);
    serve.stdin(std::process::Stdio::null());
    let done = crate::common::output_within(&mut serve, None, std::time::Duration::from_secs(60));
    let err = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(0), "{err}");
    assert!(done.stdout.is_empty(), "stdout belongs to the protocol");
    assert!(!err.contains("INVALID_ARGS") && err.contains("closed the connection before it initialized"), "{err}");
    assert!(err.contains("started by an MCP client"), "{err}");
}
