//! The journal records every decision and side effect, keeps the old content of replaced
//! files, and never holds a secret.

use crate::common::{run_json, sha256_hex, Workspace};
use serde_json::{json, Value};

fn entries(ws: &Workspace) -> Vec<Value> {
    let dir = ws.path(".rein/journal");
    let mut lines = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        if entry.path().extension().is_some_and(|e| e == "jsonl") {
            let text = std::fs::read_to_string(entry.path()).unwrap();
            lines.extend(text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()));
        }
    }
    lines
}

#[test]
fn an_edit_is_journaled_with_hashes_and_a_restorable_preimage() {
    let ws = Workspace::new();
    ws.file("src/a.ets", "let x = 1;\n");
    ws.ok("edit_file", &json!({"path": "src/a.ets", "old_string": "1", "new_string": "2"}));
    let all = entries(&ws);
    let edit = all.iter().find(|e| e["action"] == "edit").expect("an edit entry");
    assert_eq!(edit["target"], json!("src/a.ets"));
    assert_eq!(edit["decision"], json!("allowed"));
    assert_eq!(edit["decided_by"], json!("policy"));
    assert_eq!(edit["result"], json!("ok"));
    assert_eq!(edit["sha256_before"], json!(sha256_hex(b"let x = 1;\n")));
    assert_eq!(edit["sha256_after"], json!(sha256_hex(b"let x = 2;\n")));
    let preimage = ws.path(edit["preimage"].as_str().unwrap());
    assert_eq!(std::fs::read(preimage).unwrap(), b"let x = 1;\n");
    assert!(edit["time"].as_str().unwrap().ends_with('Z'));
}

#[test]
fn refusals_are_journaled_too() {
    let ws = Workspace::new();
    let outside = ws.root.join("outside.txt").display().to_string();
    ws.refused("write_file", &json!({"path": outside, "content": "x"}), "APPROVAL_REQUIRED");
    let all = entries(&ws);
    let write = all.iter().find(|e| e["action"] == "write").expect("a write entry");
    assert_eq!(write["decision"], json!("refused"));
    assert_eq!(write["result"], json!("APPROVAL_REQUIRED"));
}

// Unix only: the stand-in java is a /bin/sh script (a Windows one comes with the Rust fakes).
#[cfg(unix)]
#[test]
fn spawns_are_journaled_without_secrets() {
    use crate::common::{run_json, toml_path};
    let ws = Workspace::new();
    let bin = ws.root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    // Prints what its argument file holds, as java reads it (the kernel runs `java @FILE`).
    std::fs::write(bin.join("java"), "#!/bin/sh\necho \"signing with $(cat \"${1#@}\" | tr '\\n' ' ')\"\nexit 0\n")
        .unwrap();
    std::fs::set_permissions(bin.join("java"), std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::write(bin.join("hap-sign-tool.jar"), "").unwrap();
    std::fs::write(
        ws.home.join("config.toml"),
        format!(
            "[toolchain]\njava = {}\nhap_sign_tool_jar = {}\n",
            toml_path(&bin.join("java")),
            toml_path(&bin.join("hap-sign-tool.jar"))
        ),
    )
    .unwrap();
    ws.file(
        "tools/sign.lua",
        "return { name = 'sign', description = 'signs', run = function() return rein.proc.run('hap-sign-tool', { 'sign-app', '-inFile', 'a.hap', '-keyPwd', 'topsecret9', '-keystorePwd', 'alsosecret7' }) end }",
    );
    let mut cmd = ws.command(&["-vv", "call", "sign"]);
    let out = crate::common::output_within(&mut cmd, None, std::time::Duration::from_secs(60));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout} {stderr}");
    let journal: String = entries(&ws).iter().map(Value::to_string).collect();
    for text in [stdout.as_ref(), stderr.as_ref(), journal.as_str()] {
        assert!(!text.contains("topsecret9") && !text.contains("alsosecret7"), "a secret leaked: {text}");
    }
    let spawn = entries(&ws).into_iter().find(|e| e["action"] == "spawn").unwrap();
    assert_eq!(spawn["target"], json!("hap-sign-tool sign-app -inFile a.hap -keyPwd *** -keystorePwd ***"));
    assert_eq!(spawn["exit_code"], json!(0));
    let (_, parsed) = run_json(&mut ws.command(&["call", "sign"]), None);
    assert!(parsed["result"]["stdout"].as_str().unwrap().contains("\"-keyPwd\" \"***\""), "{parsed}");
}

/// A run's report lies in the workspace's `.rein/`, which an agent able to write the
/// workspace can forge: one naming a file outside the workspace (or in rein's home) must not
/// get `rein undo` to remove or rewrite it without a person's yes.
#[test]
fn undo_of_a_forged_report_touches_nothing_outside_without_a_person() {
    let ws = Workspace::new();
    ws.file(
        "recipes/touch.lua",
        r#"return { name = "touch", description = "writes a.txt", steps = { { name = "write", run = function() rein.fs.write("a.txt", "a\n") end } } }"#,
    );
    let (status, out) = run_json(&mut ws.command(&["recipe", "touch"]), None);
    assert_eq!(status, 0, "{out}");
    let run_id = out["result"]["run_id"].as_str().unwrap().to_string();
    let victim = ws.outside_file("outside/victim.txt", "keep me\n");
    let approvals = ws.home.join("approvals.toml");
    std::fs::write(&approvals, "").unwrap();
    // `--yes` answers what anyone may answer (a path outside, as for write_file); never for home.
    for (target, flag_sets) in [(&victim, vec![&[][..]]), (&approvals, vec![&[][..], &["--yes"][..]])] {
        // As if the run had created `target`: undo would remove it.
        let path = ws.path(&format!(".rein/runs/{run_id}/report.json"));
        let mut report: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let now = sha256_hex(&std::fs::read(target).unwrap());
        report["steps"][0]["files"] = json!([{"path": target, "sha256_before": null, "sha256_after": now}]);
        std::fs::write(&path, report.to_string()).unwrap();
        for flags in flag_sets {
            let mut args: Vec<&str> = flags.to_vec();
            args.extend(["undo", run_id.as_str()]);
            let (status, out) = run_json(&mut ws.command(&args), None);
            assert_ne!(status, 0, "undo {flags:?} of {} ran: {out}", target.display());
            assert_eq!(out["error"]["code"], json!("APPROVAL_REQUIRED"), "{out}");
            assert!(target.exists(), "{} was removed by undo {flags:?}", target.display());
        }
    }
}

/// The pre-image of a replaced file is a hard link to its old inode, which a program that held
/// the file open (a build tool, a watcher) can still write in place after rein replaced it:
/// then undo must refuse with STALE_FILE naming the saved copy, not restore other bytes.
#[cfg(unix)]
#[test]
fn undo_refuses_a_pre_image_written_in_place_through_a_held_descriptor() {
    use std::io::{Seek, SeekFrom, Write};
    let ws = Workspace::new();
    ws.file("a.txt", "old content\n");
    ws.file(
        "recipes/touch.lua",
        r#"return { name = "touch", description = "rewrites a.txt", steps = { { name = "write", run = function() rein.fs.write("a.txt", "new content\n") end } } }"#,
    );
    let mut held = std::fs::OpenOptions::new().read(true).write(true).open(ws.path("a.txt")).unwrap();
    let (status, out) = run_json(&mut ws.command(&["recipe", "touch"]), None);
    assert_eq!(status, 0, "{out}");
    let run_id = out["result"]["run_id"].as_str().unwrap().to_string();
    held.seek(SeekFrom::Start(0)).unwrap();
    held.write_all(b"EVIL").unwrap();
    drop(held);
    let (status, out) = run_json(&mut ws.command(&["undo", &run_id]), None);
    assert_ne!(status, 0, "undo put back a changed pre-image: {out}");
    assert_eq!(out["error"]["code"], json!("STALE_FILE"), "{out}");
    let details = &out["error"]["details"];
    assert_eq!(details["expected_sha256"], json!(sha256_hex(b"old content\n")), "{out}");
    assert_eq!(details["actual_sha256"], json!(sha256_hex(b"EVILcontent\n")), "{out}");
    assert!(details["preimage"].as_str().is_some_and(|p| p.starts_with(".rein/journal/pre/")), "{out}");
    let message = out["error"]["message"].as_str().unwrap_or("");
    assert!(message.contains("no longer holds its old content") && !message.contains("--force"), "{out}");
    assert_eq!(ws.read("a.txt"), b"new content\n", "nothing was restored");
}

/// The journal links a pre-image only to an inode no other name shares and only inside the
/// workspace: a file with a second name (here `b.txt`) would keep the pre-image writable
/// through it, and a file outside would bring an outside inode into the workspace. Both are
/// copied, and undo puts the old bytes back.
#[cfg(unix)]
#[test]
fn a_pre_image_is_copied_for_a_shared_inode_and_for_a_file_outside() {
    use std::os::unix::fs::MetadataExt;
    let ws = Workspace::new();
    ws.file("a.txt", "shared\n");
    std::fs::hard_link(ws.path("a.txt"), ws.path("b.txt")).unwrap();
    let shared_inode = std::fs::metadata(ws.path("b.txt")).unwrap().ino();
    ws.ok("read_file", &json!({"path": "a.txt"}));
    let edit = ws.ok("edit_file", &json!({"path": "a.txt", "old_string": "shared", "new_string": "mine"}));
    let pre = ws.path(&format!(".rein/journal/pre/{}", edit["sha256_before"].as_str().unwrap()));
    assert_eq!(std::fs::read(&pre).unwrap(), b"shared\n");
    assert_ne!(std::fs::metadata(&pre).unwrap().ino(), shared_inode, "the pre-image shares b.txt's inode");

    let outside = ws.outside_file("outside/o.txt", "outside old\n");
    let outside_inode = std::fs::metadata(&outside).unwrap().ino();
    let args = json!({"path": outside, "content": "outside new\n"}).to_string();
    let (status, out) = run_json(&mut ws.command(&["--yes", "call", "write_file", &args]), None);
    assert_eq!(status, 0, "{out}");
    assert_eq!(std::fs::read(&outside).unwrap(), b"outside new\n");
    let pre = ws.path(&format!(".rein/journal/pre/{}", sha256_hex(b"outside old\n")));
    assert_eq!(std::fs::read(&pre).unwrap(), b"outside old\n");
    assert_ne!(std::fs::metadata(&pre).unwrap().ino(), outside_inode, "an inode from outside was linked in");
}
