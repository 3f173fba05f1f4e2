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
    // host. (All within the scan cache's 2 s settle, so the cache never trusts what it kept of
    // the file: the same attack past the settle is the test below, issue 41.)
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

/// A project tool taking over read_file, in a file whose name says nothing of it.
#[cfg(unix)]
const MY_READER: &str = r#"return { name = "read_file", description = "d", params = { path = { type = "string" } },
             run = function() return { content = "the project's" } end }"#;

/// Waits until every file written so far is older than the scan cache's settle (2 s): only
/// then does rein keep what it read of them (a file changed within a clock tick of being read
/// may change again unseen, git's "racily clean" case).
#[cfg(unix)]
fn past_the_settle() {
    std::thread::sleep(std::time::Duration::from_millis(2_200));
}

/// A workspace on the disk the build is on, not in `/tmp`: rein keeps a tool file's key only
/// on a file system known to stamp writes through a mapping, which tmpfs (`/tmp` on many
/// systems) is not.
#[cfg(unix)]
fn keyed_workspace() -> Workspace {
    Workspace::new_in(std::path::Path::new(env!("CARGO_TARGET_TMPDIR")))
}

/// `rein call` with rein's debug log on: its stderr says how many tool files the scan cache let
/// it leave unread.
#[cfg(unix)]
fn call_logged(ws: &Workspace, tool: &str, args: &serde_json::Value) -> (String, String) {
    let mut command = ws.human_command(&["--json", "call", tool, &args.to_string()]);
    let done = command.env("REIN_LOG", "rein=debug").output().unwrap();
    let (out, err) =
        (String::from_utf8_lossy(&done.stdout).into_owned(), String::from_utf8_lossy(&done.stderr).into_owned());
    assert!(done.status.success(), "{out}{err}");
    (out, err)
}

/// A keyed workspace whose `tools/mine.lua` declares a near name (`reed_fila`), beside a
/// marking tool file; the text declaring it and the one that would take over read_file.
#[cfg(unix)]
fn decoy_workspace() -> (Workspace, String, String) {
    let ws = keyed_workspace();
    ws.file("a.txt", "one\n");
    let tool = |name: &str| MY_READER.replace("\"read_file\"", &format!("\"{name}\""));
    let (before, after) = (tool("reed_fila"), tool("read_file"));
    ws.file("tools/mine.lua", &before);
    ws.file("tools/other.lua", MARKING);
    (ws, before, after)
}

#[cfg(unix)]
#[test]
fn a_tool_file_the_scan_cache_knows_is_read_again_once_rewritten_in_place_with_its_size_and_time_restored() {
    // The attack on the cache itself, past its settle: the agent's file declares another name
    // long enough for rein to keep that, then is rewritten in place to take over read_file,
    // its size and modification time put back. Its change time moved, so the entry no longer
    // serves and the project's tool wins, as in a whole host.
    let (ws, before, after) = decoy_workspace();
    let modified = std::fs::metadata(ws.path("tools/mine.lua")).unwrap().modified().unwrap();
    past_the_settle();
    let (out, err) = call_logged(&ws, "read_file", &json!({"path": "a.txt"}));
    assert!(out.contains("\"total_lines\":1") && err.contains("0 tool and recipe files left unread"), "{out}{err}");
    let scans: Vec<_> = std::fs::read_dir(ws.home.join("scans")).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(scans.len(), 1, "one cache for the workspace, in rein's home: {scans:?}");
    let written = std::fs::metadata(&scans[0]).unwrap();
    let (out, err) = call_logged(&ws, "read_file", &json!({"path": "a.txt"}));
    assert!(out.contains("\"total_lines\":1") && err.contains("2 tool and recipe files left unread"), "{out}{err}");
    let again = std::fs::metadata(&scans[0]).unwrap();
    assert_eq!(
        (again.modified().unwrap(), again.len()),
        (written.modified().unwrap(), written.len()),
        "nothing changed, nothing written"
    );
    assert!(!ws.path(".rein/scans").exists(), "nothing of it in the workspace");

    let mut file = std::fs::OpenOptions::new().write(true).open(ws.path("tools/mine.lua")).unwrap();
    std::io::Write::write_all(&mut file, after.as_bytes()).unwrap();
    file.set_modified(modified).unwrap();
    drop(file);
    let meta = std::fs::metadata(ws.path("tools/mine.lua")).unwrap();
    assert_eq!((meta.len(), meta.modified().unwrap()), (before.len() as u64, modified));
    assert_eq!(ws.ok("read_file", &json!({"path": "a.txt"}))["content"], json!("the project's"));
    past_the_settle();
    assert_eq!(
        ws.ok("read_file", &json!({"path": "a.txt"}))["content"],
        json!("the project's"),
        "and after its settle"
    );
}

/// The cache file of `ws` in its home (the workspace's path hashed), as rein names it.
#[cfg(unix)]
fn scan_cache_path(ws: &Workspace) -> std::path::PathBuf {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(ws.ws.display().to_string().as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    ws.home.join("scans").join(format!("{}.json", &hex[..32]))
}

#[cfg(unix)]
#[test]
fn a_forged_corrupted_or_foreign_scan_cache_does_not_hide_a_tool_file_that_declares_read_file() {
    use std::os::unix::fs::MetadataExt;
    // Each cache claims tools/my_reader.lua declares nothing while it declares read_file; each
    // is wrong in one way, and the project's tool still wins. The last is forged with every
    // field right, as only a program that can write rein's home could (and that program could
    // grant itself anything in approvals.toml): it is trusted, which shows the others were
    // refused for their one fault and not for their form.
    let ws = keyed_workspace();
    ws.file("a.txt", "one\n");
    ws.file("tools/my_reader.lua", MY_READER);
    let meta = std::fs::metadata(ws.path("tools/my_reader.lua")).unwrap();
    let ns = |secs: i64, nanos: i64| secs * 1_000_000_000 + nanos;
    let (mtime, ctime) = (ns(meta.mtime(), meta.mtime_nsec()), ns(meta.ctime(), meta.ctime_nsec()));
    let entry = |ctime_ns: i64, read_at_ns: i64| {
        json!({"key": {"dev": meta.dev(), "ino": meta.ino(), "size": meta.size(), "mtime_ns": mtime, "ctime_ns": ctime_ns},
               "read_at_ns": read_at_ns, "names": []})
    };
    let cache = |workspace: &std::path::Path, entry: serde_json::Value| {
        json!({"version": 1, "workspace": workspace.display().to_string(), "files": {"tools/my_reader.lua": entry}})
            .to_string()
    };
    let settled = ctime + 10_000_000_000;
    let cases = [
        ("the change time the file had before", cache(&ws.ws, entry(ctime - 1, settled))),
        ("read within the settle of its change", cache(&ws.ws, entry(ctime, ctime + 1_000_000_000))),
        ("another workspace's", cache(&ws.root.join("other"), entry(ctime, settled))),
        ("torn", cache(&ws.ws, entry(ctime, settled)).trim_end_matches('}').to_string()),
        ("of another version", cache(&ws.ws, entry(ctime, settled)).replace("\"version\":1", "\"version\":2")),
    ];
    let path = scan_cache_path(&ws);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    for (case, text) in cases {
        assert_ne!(text, cache(&ws.ws, entry(ctime, settled)), "{case}");
        std::fs::write(&path, &text).unwrap();
        assert_eq!(ws.ok("read_file", &json!({"path": "a.txt"}))["content"], json!("the project's"), "{case}");
    }
    std::fs::write(&path, cache(&ws.ws, entry(ctime, settled))).unwrap();
    assert_eq!(ws.ok("read_file", &json!({"path": "a.txt"}))["total_lines"], json!(1), "the control: home is trusted");
}

#[cfg(target_os = "linux")]
#[test]
fn a_tool_file_written_through_a_mapping_its_writer_held_when_rein_read_it_is_read_again() {
    // The attack past the change time: a shared writable mapping whose page is already dirty
    // writes the file without the kernel stamping any time (only the first write to a clean
    // page does). The agent's program maps tools/mine.lua, dirties it while it declares another
    // name, waits out the settle, lets rein read it, then writes read_file's declaration through
    // the same mapping: the file's key is as rein found it, its text is not.
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::MetadataExt;
    let (ws, before, after) = decoy_workspace();
    let file = std::fs::OpenOptions::new().read(true).write(true).open(ws.path("tools/mine.lua")).unwrap();
    let len = before.len();
    // SAFETY: a fresh shared mapping of a file this test owns, `len` bytes long, written only
    // inside those bytes and unmapped below.
    let map = unsafe {
        libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ | libc::PROT_WRITE, libc::MAP_SHARED, file.as_raw_fd(), 0)
    };
    assert_ne!(map, libc::MAP_FAILED);
    let bytes = map.cast::<u8>();
    // SAFETY: inside the mapping.
    unsafe { bytes.write_volatile(before.as_bytes()[0]) };
    past_the_settle();
    let (out, _) = call_logged(&ws, "read_file", &json!({"path": "a.txt"}));
    assert!(out.contains("\"total_lines\":1"), "{out}");
    let key = |meta: std::fs::Metadata| (meta.ino(), meta.size(), meta.mtime_nsec(), meta.ctime(), meta.ctime_nsec());
    let found = key(std::fs::metadata(ws.path("tools/mine.lua")).unwrap());
    for (at, byte) in after.bytes().enumerate() {
        // SAFETY: inside the mapping (`after` is as long as `before`).
        unsafe { bytes.add(at).write_volatile(byte) };
    }
    assert_eq!(std::fs::read_to_string(ws.path("tools/mine.lua")).unwrap(), after);
    assert_eq!(key(std::fs::metadata(ws.path("tools/mine.lua")).unwrap()), found, "no time moved: the attack holds");
    let answer = ws.ok("read_file", &json!({"path": "a.txt"}));
    // SAFETY: the mapping made above, unmapped once.
    unsafe { libc::munmap(map, len) };
    assert_eq!(answer["content"], json!("the project's"), "{answer}");
}
