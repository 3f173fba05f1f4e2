//! `rein call` loads only the files that can declare its tool (a file writes its name as a
//! literal), and everything else when that could change what runs: a tool that may call other
//! tools, a name no such file declares.

use serde_json::json;

use crate::common::{rein_json, Workspace};

/// A project tool whose loading leaves a mark on stderr (a file's top level runs when it loads;
/// it may not write: top-level code is held to reading, tests/annotations_hold.rs).
const MARKING: &str = r#"rein.log.warn("loaded-other")
return { name = "other", description = "d", params = {}, run = function() return {} end }"#;

#[test]
fn a_call_loads_only_the_files_that_can_declare_its_tool() {
    let ws = Workspace::new();
    ws.file("a.txt", "one\n");
    ws.file("tools/other.lua", MARKING);
    let (status, out, err) = ws.human(&["--json", "call", "read_file", r#"{"path": "a.txt"}"#]);
    assert_eq!(status, 0, "{out}{err}");
    assert!(out.contains("\"total_lines\":1"), "{out}");
    assert!(!err.contains("loaded-other"), "a file that cannot declare read_file was loaded: {err}");
    // Listing loads everything.
    let (status, out, err) = ws.human(&["--json", "tools"]);
    assert_eq!(status, 0, "{out}{err}");
    assert!(err.contains("loaded-other"), "{err}");
}

#[test]
fn a_project_tool_under_a_built_in_name_still_wins_whatever_its_file_is_called() {
    let ws = Workspace::new();
    ws.file(
        "tools/my_reader.lua",
        r#"return { name = "read_file", description = "d", params = { path = { type = "string" } },
             run = function() return { content = "the project's" } end }"#,
    );
    assert_eq!(ws.ok("read_file", &json!({"path": "a.txt"}))["content"], json!("the project's"));
}

#[test]
fn a_tool_that_calls_another_tool_gets_every_tool() {
    let ws = Workspace::new();
    ws.file("a.txt", "one\n");
    ws.file("tools/other.lua", MARKING);
    // The other tool's name made at run time: no text says which tool it calls.
    ws.file(
        "tools/outer.lua",
        r#"local t = rein
return { name = "outer", description = "d", params = {},
  run = function() return t["to" .. "ol"]("read_" .. "file", { path = "a.txt" }) end }"#,
    );
    let (status, out, err) = ws.human(&["--json", "call", "outer", "{}"]);
    assert_eq!(status, 0, "{out}{err}");
    assert!(out.contains("\"total_lines\":1"), "{out}");
    assert!(err.contains("loaded-other"), "the whole host served the call: {err}");
}

#[test]
fn a_project_tool_calling_another_in_a_way_a_reader_misses_still_reaches_it() {
    // Spellings that slipped past an earlier reader of the text (an attack): the agent's files
    // always get the whole host, whatever a reader makes of them.
    for (case, call) in [
        ("concatenation", r#"pcall(function() return "" ..rein.tool("inner", {}) end)"#),
        ("line continuation", "local s = \"\\z\n\" local T = rein.tool local t = \"\"\nT(\"inner\", {})"),
    ] {
        let ws = Workspace::new();
        ws.file(
            "tools/inner.lua",
            r#"return { name = "inner", description = "d", params = {},
                 run = function() rein.fs.write("reached.txt", "yes") return {} end }"#,
        );
        let outer =
            format!("return {{ name = \"outer\", description = \"d\", params = {{}}, run = function() {call} return {{}} end }}");
        ws.file("tools/outer.lua", outer);
        let (status, out) = ws.call("outer", &json!({}));
        assert_eq!(status, 0, "{case}: {out}");
        assert!(ws.path("reached.txt").exists(), "{case}: the call did not reach the other tool");
    }
}

#[test]
fn a_name_not_written_as_a_literal_is_refused_with_what_to_write() {
    let ws = Workspace::new();
    ws.file(
        "tools/made.lua",
        r#"local n = "made" return { name = n .. "_up", description = "d", params = {}, run = function() return {} end }"#,
    );
    let (status, out) = rein_json(&ws, &["check"]);
    assert_eq!((status, out["error"]["code"].as_str()), (1, Some("TOOL_INVALID")), "{out}");
    let message = out["error"]["details"]["problems"][0]["message"].as_str().unwrap();
    assert!(message.contains(r#"name = \"made_up\""#) || message.contains(r#"name = "made_up""#), "{message}");
    // Called by that name, it is not served, and the answer names the file that did not load.
    let (status, out) = ws.call("made_up", &json!({}));
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("TOOL_NOT_FOUND")), "{out}");
    assert_eq!(out["error"]["details"]["not_loaded"], json!(["tools/made.lua"]), "{out}");
}

#[test]
fn a_name_no_file_declares_gets_the_whole_hosts_answer() {
    let ws = Workspace::new();
    let (status, out) = ws.call("read_fil", &json!({}));
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("TOOL_NOT_FOUND")), "{out}");
    let suggestions = out["error"]["details"]["suggestions"].as_array().unwrap();
    assert!(suggestions.contains(&json!("read_file")), "{out}");
}

#[test]
fn a_tool_file_rewritten_in_place_with_its_size_and_time_restored_is_read_again() {
    // The attack on any memory of what a file declared, kept by its size and modification
    // time: the agent's file first declares another name, then, rewritten in place to take over
    // read_file with the same size and its old time put back, must win as it would in a whole
    // host. (rein keeps no such memory today: every call reads every tool file; issue 41.)
    let ws = Workspace::new();
    ws.file("a.txt", "one\n");
    let tool = |name: &str| {
        format!(
            r#"return {{ name = "{name}", description = "d", params = {{ path = {{ type = "string" }} }},
             run = function() return {{ content = "the project's" }} end }}"#
        )
    };
    let (before, after) = (tool("reed_fila"), tool("read_file"));
    assert_eq!(before.len(), after.len());
    ws.file("tools/mine.lua", &before);
    let modified = std::fs::metadata(ws.path("tools/mine.lua")).unwrap().modified().unwrap();
    assert_eq!(ws.ok("read_file", &json!({"path": "a.txt"}))["total_lines"], json!(1));
    let mut file = std::fs::OpenOptions::new().write(true).open(ws.path("tools/mine.lua")).unwrap();
    std::io::Write::write_all(&mut file, after.as_bytes()).unwrap();
    file.set_modified(modified).unwrap();
    drop(file);
    let meta = std::fs::metadata(ws.path("tools/mine.lua")).unwrap();
    assert_eq!((meta.len(), meta.modified().unwrap()), (before.len() as u64, modified));
    assert_eq!(ws.ok("read_file", &json!({"path": "a.txt"}))["content"], json!("the project's"));
}
