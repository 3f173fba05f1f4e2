//! Every way a path can point out of the workspace is refused (APPROVAL_REQUIRED, or
//! INVALID_ARGS for a NUL byte), for every file tool, and nothing outside the workspace is
//! created or changed. Writes into .git/, .rein/ and rein's home are refused the same way.

use std::os::unix::fs::symlink;
use std::path::Path;

use crate::common::{run_json, Workspace};
use serde_json::{json, Value};

/// A workspace with neighbours worth escaping to: `outside/`, a sibling `ws2/` that shares the
/// workspace's name as a prefix, and links inside the workspace that point at them.
fn escape_fixture() -> Workspace {
    let ws = Workspace::new();
    ws.file("inside.txt", "secret = inside\n");
    ws.outside_file("outside/secret.txt", "secret = outside\n");
    ws.outside_file("ws2/file.txt", "secret = sibling\n");
    symlink(ws.root.join("outside/secret.txt"), ws.path("link_to_outside_file")).unwrap();
    symlink("../outside", ws.path("link_to_outside_dir")).unwrap();
    symlink(ws.root.join("outside/not_yet.txt"), ws.path("dangling_to_outside")).unwrap();
    symlink(ws.root.join("nowhere/deeper"), ws.path("dangling_dir_to_outside")).unwrap();
    ws
}

/// Paths that name something outside the workspace, with what each one tries.
fn escaping_paths(ws: &Workspace) -> Vec<(String, &'static str)> {
    let abs = |rel: &str| ws.root.join(rel).display().to_string();
    vec![
        ("../outside/secret.txt".into(), "dot-dot"),
        (abs("outside/secret.txt"), "absolute path outside"),
        (abs("ws2/file.txt"), "sibling sharing the workspace's prefix"),
        ("../ws2/file.txt".into(), "sibling through dot-dot"),
        ("link_to_outside_file".into(), "symlink to a file outside"),
        ("link_to_outside_dir/secret.txt".into(), "symlinked directory outside"),
        ("missing/../../outside/secret.txt".into(), "dot-dot through a missing directory"),
        ("./missing/deeper/../../../outside/secret.txt".into(), "dot-dot through missing directories"),
        ("../../../../../../../../../../etc/passwd".into(), "dot-dot past the root"),
    ]
}

fn assert_scope_refusal(error: &Value, access: &str, class: &str, what: &str) {
    assert_eq!(error["details"]["access"], access, "{what}: {error}");
    assert_eq!(error["details"]["class"], class, "{what}: {error}");
}

#[test]
fn reads_outside_the_workspace_are_refused() {
    let ws = escape_fixture();
    let before = ws.snapshot();
    for (path, what) in escaping_paths(&ws) {
        let error = ws.refused("read_file", &json!({"path": path}), "APPROVAL_REQUIRED");
        assert_scope_refusal(&error, "read", "outside", what);
        assert!(!error.to_string().contains("secret = "), "{what}: refusal leaked content: {error}");
    }
    before.assert_unchanged("refused reads");
}

#[test]
fn writes_outside_the_workspace_are_refused() {
    let ws = escape_fixture();
    let before = ws.snapshot();
    for (path, what) in escaping_paths(&ws) {
        let error = ws.refused("write_file", &json!({"path": path, "content": "pwned\n"}), "APPROVAL_REQUIRED");
        assert_scope_refusal(&error, "write", "outside", what);
    }
    before.assert_unchanged("refused writes");
}

#[test]
fn edits_outside_the_workspace_are_refused() {
    let ws = escape_fixture();
    let before = ws.snapshot();
    for (path, what) in escaping_paths(&ws) {
        let args = json!({"path": path, "old_string": "secret", "new_string": "pwned"});
        let error = ws.refused("edit_file", &args, "APPROVAL_REQUIRED");
        assert_scope_refusal(&error, "write", "outside", what);
        let args = json!({"path": path, "edits": [{"old_string": "secret", "new_string": "pwned"}]});
        let error = ws.refused("multi_edit", &args, "APPROVAL_REQUIRED");
        assert_scope_refusal(&error, "write", "outside", what);
    }
    before.assert_unchanged("refused edits");
}

#[test]
fn listings_outside_the_workspace_are_refused() {
    let ws = escape_fixture();
    let abs = |rel: &str| ws.root.join(rel).display().to_string();
    let before = ws.snapshot();
    let dirs = [
        ("..".to_string(), "parent"),
        ("../outside".into(), "dot-dot"),
        (abs("outside"), "absolute"),
        (abs("ws2"), "sibling sharing the prefix"),
        ("link_to_outside_dir".into(), "symlinked directory"),
        ("missing/../../outside".into(), "dot-dot through a missing directory"),
        ("/".into(), "filesystem root"),
    ];
    for (path, what) in dirs {
        let error = ws.refused("list_dir", &json!({"path": path, "depth": 3}), "APPROVAL_REQUIRED");
        assert_scope_refusal(&error, "read", "outside", what);
    }
    before.assert_unchanged("refused listings");
}

#[test]
fn listing_the_workspace_shows_links_without_following_them_out() {
    let ws = escape_fixture();
    let listing = ws.ok("list_dir", &json!({"path": ".", "depth": 5}));
    let entries = listing["entries"].as_array().unwrap();
    let kind_of = |p: &str| entries.iter().find(|e| e["path"] == p).map(|e| e["kind"].clone());
    assert_eq!(kind_of("link_to_outside_dir"), Some(json!("symlink")));
    assert_eq!(kind_of("inside.txt"), Some(json!("file")));
    assert!(
        entries.iter().all(|e| !e["path"].as_str().unwrap().contains("secret.txt")),
        "the listing followed a link out of the workspace: {listing}"
    );
}

#[test]
fn dangling_symlinks_to_outside_do_not_create_their_targets() {
    let ws = escape_fixture();
    let before = ws.snapshot();
    let error = ws.refused("write_file", &json!({"path": "dangling_to_outside", "content": "x"}), "APPROVAL_REQUIRED");
    assert_scope_refusal(&error, "write", "outside", "dangling link");
    let args = json!({"path": "dangling_dir_to_outside/new/file.txt", "content": "x"});
    let error = ws.refused("write_file", &args, "APPROVAL_REQUIRED");
    assert_scope_refusal(&error, "write", "outside", "dangling directory link");
    let args = json!({"path": "dangling_to_outside", "old_string": "a", "new_string": "b"});
    ws.refused("edit_file", &args, "APPROVAL_REQUIRED");
    ws.refused("read_file", &json!({"path": "dangling_to_outside"}), "APPROVAL_REQUIRED");
    before.assert_unchanged("writes through dangling links");
    assert!(!ws.root.join("outside/not_yet.txt").exists());
    assert!(!ws.root.join("nowhere").exists());
}

#[test]
fn new_files_outside_in_missing_directories_are_not_created() {
    let ws = escape_fixture();
    let before = ws.snapshot();
    let target = ws.root.join("made/up/dir/f.txt").display().to_string();
    for path in [target.as_str(), "../made/up/dir/f.txt", "missing/../../made/f.txt"] {
        ws.refused("write_file", &json!({"path": path, "content": "x"}), "APPROVAL_REQUIRED");
    }
    before.assert_unchanged("writes to new outside paths");
}

#[test]
fn nul_byte_in_a_path_is_invalid_args_for_every_tool() {
    let ws = escape_fixture();
    let before = ws.snapshot();
    let path = "inside.txt\u{0}../../outside/secret.txt";
    let calls = [
        ("read_file", json!({"path": path})),
        ("write_file", json!({"path": path, "content": "x"})),
        ("edit_file", json!({"path": path, "old_string": "secret", "new_string": "x"})),
        ("multi_edit", json!({"path": path, "edits": [{"old_string": "secret", "new_string": "x"}]})),
        ("list_dir", json!({"path": "\u{0}"})),
    ];
    for (tool, args) in calls {
        let error = ws.refused(tool, &args, "INVALID_ARGS");
        assert!(error["message"].as_str().unwrap().contains("control character (\\u{0})"), "{tool}: {error}");
    }
    before.assert_unchanged("paths with NUL");
}

#[test]
fn writes_into_git_and_rein_folders_are_refused_as_protected() {
    let ws = Workspace::new();
    ws.file(".git/config", "[core]\n\tbare = false\n");
    ws.file(".rein/journal/1.json", "{}\n");
    ws.file("src/main.ets", "x\n");
    symlink(".git", ws.path("git_alias")).unwrap();
    let before = ws.snapshot();
    let writes = [
        ".git/config",
        ".git/hooks/pre-commit",
        ".rein/journal/1.json",
        ".rein/approvals.toml",
        "src/../.git/config",
        "git_alias/config",
        ".git",
        ".rein",
    ];
    for path in writes {
        let error = ws.refused("write_file", &json!({"path": path, "content": "x"}), "APPROVAL_REQUIRED");
        assert_scope_refusal(&error, "write", "protected", path);
    }
    for path in [".git/config", "git_alias/config"] {
        let args = json!({"path": path, "old_string": "false", "new_string": "true"});
        let error = ws.refused("edit_file", &args, "APPROVAL_REQUIRED");
        assert_scope_refusal(&error, "write", "protected", path);
    }
    before.assert_unchanged("writes into protected folders");
    // Reading them is fine; a nested repository's .git is protected too (its config can run
    // commands), while names that merely start alike are not.
    assert!(ws.ok("read_file", &json!({"path": ".git/config"}))["content"].as_str().unwrap().contains("bare"));
    let error =
        ws.refused("write_file", &json!({"path": "vendor/lib/.git/config", "content": "x"}), "APPROVAL_REQUIRED");
    assert_scope_refusal(&error, "write", "protected", "vendor/lib/.git/config");
    ws.ok("write_file", &json!({"path": ".github/workflows/ci.yml", "content": "ok\n"}));
}

#[test]
fn writes_into_home_are_refused() {
    let ws = Workspace::new();
    std::fs::write(ws.home.join("approvals.toml"), "[[rule]]\nprogram = \"hdc\"\nargs = [\"list\"]\n").unwrap();
    symlink(&ws.home, ws.path("home_alias")).unwrap();
    let before = ws.snapshot();
    let approvals = ws.home.join("approvals.toml").display().to_string();
    let new_file = ws.home.join("packs/evil/tool.lua").display().to_string();
    for path in [approvals.as_str(), new_file.as_str(), "home_alias/approvals.toml", "../home/config.toml"] {
        let error = ws.refused(
            "write_file",
            &json!({"path": path, "content": "[[rule]]\nprogram = \"bash\"\n"}),
            "APPROVAL_REQUIRED",
        );
        assert_scope_refusal(&error, "write", "home", path);
        let args = json!({"path": path, "old_string": "[[rule]]", "new_string": "[[deny]]"});
        let error = ws.refused("edit_file", &args, "APPROVAL_REQUIRED");
        assert_scope_refusal(&error, "write", "home", path);
    }
    before.assert_unchanged("writes into home");
}

#[test]
fn home_inside_the_workspace_is_still_home() {
    let ws = Workspace::new();
    ws.file(".agent-home/config.toml", "[spawn]\npass_env = [\"A\"]\n");
    let before = ws.snapshot();
    let home = ws.path(".agent-home");
    let args = json!({"path": ".agent-home/config.toml", "content": "[spawn]\npass_env = [\"GITHUB_TOKEN\"]\n"});
    let mut cmd = std::process::Command::new(crate::common::REIN);
    cmd.arg("--workspace").arg(&ws.ws).arg("--home").arg(&home).arg("--json");
    cmd.args(["call", "write_file", &args.to_string()]);
    let (status, out) = run_json(&mut cmd, None);
    crate::common::assert_refusal(status, &out, "APPROVAL_REQUIRED", "write into a home inside the workspace");
    assert_eq!(out["error"]["details"]["class"], "home");
    before.assert_unchanged("write into a home inside the workspace");
}

#[test]
fn relative_paths_start_at_the_workspace_not_the_current_directory() {
    let ws = Workspace::new();
    ws.file("a.txt", "in the workspace\n");
    let elsewhere = ws.root.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    std::fs::write(elsewhere.join("a.txt"), "in the current directory\n").unwrap();
    let run = |tool: &str, args: Value| {
        let mut cmd = ws.command(&["call", tool, &args.to_string()]);
        cmd.current_dir(&elsewhere);
        let (status, out) = run_json(&mut cmd, None);
        assert_eq!(status, 0, "{tool} {args}: {out}");
        out["result"].clone()
    };
    let read = run("read_file", json!({"path": "a.txt"}));
    assert_eq!(read["content"], "     1\tin the workspace");
    run("edit_file", json!({"path": "a.txt", "old_string": "in the", "new_string": "inside the"}));
    run("write_file", json!({"path": "new.txt", "content": "new\n"}));
    let listing = run("list_dir", json!({"path": "."}));
    let names: Vec<&str> = listing["entries"].as_array().unwrap().iter().map(|e| e["path"].as_str().unwrap()).collect();
    assert_eq!(names, ["a.txt", "new.txt"]);
    assert_eq!(ws.read("a.txt"), b"inside the workspace\n");
    assert_eq!(ws.read("new.txt"), b"new\n");
    assert_eq!(std::fs::read(elsewhere.join("a.txt")).unwrap(), b"in the current directory\n");
    assert!(!Path::new(&elsewhere.join("new.txt")).exists());
}

#[test]
fn symlink_chains_and_relative_links_are_judged_by_their_final_target() {
    let ws = escape_fixture();
    symlink("link_to_outside_file", ws.path("chain_2")).unwrap();
    symlink("chain_2", ws.path("chain_1")).unwrap();
    symlink("..", ws.path("up")).unwrap();
    std::fs::create_dir(ws.path("sub")).unwrap();
    symlink("../../outside/secret.txt", ws.path("sub/rel_out")).unwrap();
    symlink("loop_b", ws.path("loop_a")).unwrap();
    symlink("loop_a", ws.path("loop_b")).unwrap();
    let before = ws.snapshot();
    for path in ["chain_1", "up/outside/secret.txt", "up/ws2/file.txt", "sub/rel_out"] {
        let error = ws.refused("write_file", &json!({"path": path, "content": "x"}), "APPROVAL_REQUIRED");
        assert_scope_refusal(&error, "write", "outside", path);
        ws.refused("read_file", &json!({"path": path}), "APPROVAL_REQUIRED");
    }
    ws.refused("write_file", &json!({"path": "loop_a/x", "content": "x"}), "INVALID_ARGS");
    before.assert_unchanged("writes through link chains");
    // A link that leaves and comes back is judged by where it lands: inside.
    assert_eq!(ws.ok("read_file", &json!({"path": "up/ws/inside.txt"}))["content"], "     1\tsecret = inside");
}
