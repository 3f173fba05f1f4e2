//! Packs: installed packs load namespaced, tamper and incompatibility are refused, and the CLI
//! adds, lists, verifies and removes them.

use std::path::{Path, PathBuf};

use crate::common::{git, rein_json, toml_path, Workspace};
use rein::packs::hash::content_hash;
use serde_json::json;

const MANIFEST: &str = r#"name = "team-kit"
version = "1.0.0"
description = "Our team's helpers"
rein = ">=0.1"
permissions = ["hdc list targets"]
"#;

/// A pack source folder under the test root.
fn pack_source(ws: &Workspace, manifest: &str) -> PathBuf {
    let dir = ws.root.join("team-kit");
    std::fs::create_dir_all(dir.join("tools")).unwrap();
    std::fs::create_dir_all(dir.join("prelude")).unwrap();
    std::fs::write(dir.join("pack.toml"), manifest).unwrap();
    std::fs::write(dir.join("prelude/words.lua"), "return { hello = 'hello from the pack' }").unwrap();
    std::fs::write(
        dir.join("tools/greet.lua"),
        "local words = require('team-kit.words')\nreturn { name = 'greet', description = 'greets', run = function() return { text = words.hello } end }",
    )
    .unwrap();
    dir
}

/// Installs `source` as rein would: under home/packs/<name>/<sha>/ with a rein.lock entry,
/// approved by a person.
fn install(ws: &Workspace, source: &Path) -> String {
    let sha = install_unapproved(ws, source);
    crate::common::approve_policy(ws);
    sha
}

/// [`install`], the new rein.lock not approved yet (as an agent would leave it).
fn install_unapproved(ws: &Workspace, source: &Path) -> String {
    let sha = content_hash(source).unwrap();
    let dir = ws.home.join("packs/team-kit").join(&sha);
    crate::common::copy_dir(source, &dir);
    ws.file(
        "rein.lock",
        format!(
            "[[pack]]\nname = \"team-kit\"\nversion = \"1.0.0\"\nsource = {}\nsha256 = \"{sha}\"\n",
            toml_path(source)
        ),
    );
    sha
}

#[test]
fn an_installed_pack_loads_namespaced_next_to_a_same_named_project_tool() {
    let ws = Workspace::new();
    let source = pack_source(&ws, MANIFEST);
    install(&ws, &source);
    ws.file(
        "tools/greet.lua",
        "return { name = 'greet', description = 'project greet', run = function() return { text = 'project' } end }",
    );
    let (status, out) = rein_json(&ws, &["call", "team-kit.greet"]);
    assert_eq!(status, 0, "{out}");
    assert_eq!(out["result"], json!({"text": "hello from the pack"}));
    assert_eq!(rein_json(&ws, &["call", "greet"]).1["result"], json!({"text": "project"}));
    let (_, tools) = rein_json(&ws, &["tools"]);
    let pack_tool =
        tools["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "team-kit.greet").unwrap().clone();
    assert_eq!(pack_tool["origin"], json!("pack"));
    assert_eq!(pack_tool["file"], json!("team-kit/tools/greet.lua"));
}

#[test]
fn a_tampered_pack_is_refused() {
    let ws = Workspace::new();
    let source = pack_source(&ws, MANIFEST);
    let sha = install(&ws, &source);
    std::fs::write(
        ws.home.join("packs/team-kit").join(&sha).join("tools/greet.lua"),
        "return { name = 'greet', description = 'evil', run = function() end }",
    )
    .unwrap();
    let (status, out) = rein_json(&ws, &["call", "read_file", r#"{"path":"rein.lock"}"#]);
    assert_eq!((status, out["error"]["code"].as_str()), (1, Some("PACK_TAMPERED")), "{out}");
    assert!(out["error"]["message"].as_str().unwrap().contains("rein pack sync"));
}

#[test]
fn a_pack_needing_a_newer_rein_fails_to_load_clearly() {
    let ws = Workspace::new();
    let source = pack_source(&ws, &MANIFEST.replace(">=0.1", ">=99.0"));
    install(&ws, &source);
    let (status, out) = rein_json(&ws, &["tools"]);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_CONFIG")), "{out}");
    assert!(out["error"]["message"].as_str().unwrap().contains("needs rein >=99.0"), "{out}");
}

fn pack_cli(ws: &Workspace, args: &str, answer: &str) -> String {
    let command = format!(
        "{} --workspace {} --home {} --json pack {args}",
        crate::common::REIN,
        ws.ws.display(),
        ws.home.display()
    );
    crate::common::in_terminal(&command, answer)
}

#[test]
#[cfg_attr(windows, ignore = "plays the person at a terminal through util-linux `script`, which Windows has not")]
fn add_shows_permissions_needs_a_person_and_writes_the_lock() {
    let ws = Workspace::new();
    let source = pack_source(&ws, MANIFEST);
    let (status, out) = rein_json(&ws, &["pack", "add", source.to_str().unwrap()]);
    assert_eq!((status, out["error"]["code"].as_str()), (1, Some("APPROVAL_REQUIRED")), "{out}");
    assert!(!ws.home.join("packs").exists(), "nothing installed without a person");
    let screen = pack_cli(&ws, &format!("add {}", source.display()), "yes\n");
    assert!(screen.contains("it may run: hdc list targets"), "{screen}");
    let lock = std::fs::read_to_string(ws.path("rein.lock")).unwrap();
    assert!(lock.contains("name = \"team-kit\"") && lock.contains(&content_hash(&source).unwrap()), "{lock}");
    let toml = std::fs::read_to_string(ws.path("rein.toml")).unwrap();
    assert!(toml.contains("[packs]") && toml.contains("team-kit"), "{toml}");
    assert_eq!(rein_json(&ws, &["call", "team-kit.greet"]).1["result"], json!({"text": "hello from the pack"}));
    let installed = ws.home.join("packs/team-kit").join(content_hash(&source).unwrap()).join("tools/greet.lua");
    assert!(std::fs::metadata(&installed).unwrap().permissions().readonly(), "installed read-only");
    let (status, verified) = rein_json(&ws, &["pack", "verify"]);
    assert_eq!(status, 0, "{verified}");
}

#[test]
#[cfg_attr(windows, ignore = "plays the person at a terminal through util-linux `script`, which Windows has not")]
fn update_moves_the_lock_and_remove_drops_the_pack() {
    let ws = Workspace::new();
    let source = pack_source(&ws, MANIFEST);
    pack_cli(&ws, &format!("add {}", source.display()), "yes\n");
    let first = content_hash(&source).unwrap();
    std::fs::write(source.join("prelude/words.lua"), "return { hello = 'hello from version two' }").unwrap();
    let again = pack_cli(&ws, &format!("add {}", source.display()), "yes\n");
    assert!(again.contains("is the only way to move it"), "add does not move a lock entry: {again}");
    let screen = pack_cli(&ws, "update team-kit", "yes\n");
    assert!(screen.contains("updated"), "{screen}");
    let lock = std::fs::read_to_string(ws.path("rein.lock")).unwrap();
    assert!(!lock.contains(&first) && lock.contains(&content_hash(&source).unwrap()), "{lock}");
    assert_eq!(rein_json(&ws, &["call", "team-kit.greet"]).1["result"], json!({"text": "hello from version two"}));
    let (_, out) = rein_json(&ws, &["pack", "remove", "team-kit"]);
    assert_eq!(out["error"]["code"], json!("APPROVAL_REQUIRED"), "changing rein.lock needs a person: {out}");
    let screen = pack_cli(&ws, "remove team-kit", "yes\n");
    assert!(screen.contains("\"removed\":\"team-kit\""), "{screen}");
    assert_eq!(rein_json(&ws, &["call", "team-kit.greet"]).1["error"]["code"], json!("TOOL_NOT_FOUND"));
    assert!(!std::fs::read_to_string(ws.path("rein.toml")).unwrap().contains("team-kit ="));
}

// Symlinks: Wine 8 cannot make them (CreateSymbolicLinkW is a stub), and Windows needs developer mode or an administrator for them.
#[cfg(unix)]
#[test]
fn a_symlink_leaving_the_pack_is_refused_and_nothing_is_installed() {
    let ws = Workspace::new();
    let source = pack_source(&ws, MANIFEST);
    std::os::unix::fs::symlink("/etc/passwd", source.join("tools/passwd.lua")).unwrap();
    let screen = pack_cli(&ws, &format!("add {}", source.display()), "yes\n");
    assert!(screen.contains("leaves the pack"), "{screen}");
    assert!(!ws.home.join("packs").exists());
    assert!(!ws.path("rein.lock").exists());
    std::fs::remove_file(source.join("tools/passwd.lua")).unwrap();
    std::os::unix::fs::symlink("greet.lua", source.join("tools/alias.lua")).unwrap();
    let screen = pack_cli(&ws, &format!("add {}", source.display()), "yes\n");
    assert!(screen.contains("\"pack\":\"team-kit\""), "{screen}");
    let installed = ws.home.join("packs/team-kit").join(content_hash(&source).unwrap()).join("tools/alias.lua");
    assert!(!std::fs::symlink_metadata(installed).unwrap().file_type().is_symlink(), "copied as a file");
}

#[test]
fn verify_reports_a_tampered_pack() {
    let ws = Workspace::new();
    let source = pack_source(&ws, MANIFEST);
    let sha = install(&ws, &source);
    let file = ws.home.join("packs/team-kit").join(&sha).join("prelude/words.lua");
    std::fs::write(file, "return { hello = 'tampered' }").unwrap();
    let (status, out) = rein_json(&ws, &["pack", "verify"]);
    assert_eq!((status, out["error"]["code"].as_str()), (1, Some("PACK_TAMPERED")), "{out}");
    assert_eq!(out["error"]["details"]["packs"][0]["ok"], json!(false));
}

// Unix only: the stand-in hdc is a /bin/sh script (a Windows one comes with the Rust fakes).
#[cfg(unix)]
#[test]
fn a_pack_may_run_only_what_it_declared() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Workspace::new();
    let hdc = ws.root.join("bin/hdc");
    std::fs::create_dir_all(hdc.parent().unwrap()).unwrap();
    std::fs::write(&hdc, "#!/bin/sh\necho '[Empty]'\n").unwrap();
    std::fs::set_permissions(&hdc, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(ws.home.join("config.toml"), format!("[toolchain]\nhdc = {}\n", toml_path(&hdc))).unwrap();
    let source = pack_source(&ws, MANIFEST);
    std::fs::write(
        source.join("tools/probe.lua"),
        "return { name = 'probe', description = 'runs hdc', params = { args = { type = 'array', items = { type = 'string' } } }, run = function(a) return rein.proc.run('hdc', a.args) end }",
    )
    .unwrap();
    std::fs::write(
        source.join("tools/logs.lua"),
        "return { name = 'logs', description = 'reads logs', run = function() return rein.tool('hilog_read', {}) end }",
    )
    .unwrap();
    install(&ws, &source);
    let (status, out) = rein_json(&ws, &["call", "team-kit.probe", r#"{"args":["list","targets"]}"#]);
    assert_eq!(status, 0, "declared: {out}");
    let (_, out) = rein_json(&ws, &["call", "team-kit.probe", r#"{"args":["shell","hilog","-x"]}"#]);
    assert_eq!(out["error"]["code"], json!("APPROVAL_DENIED"), "{out}");
    assert!(out["error"]["message"].as_str().unwrap().contains("did not declare"));
    let (_, out) = rein_json(&ws, &["call", "team-kit.logs"]);
    assert_eq!(
        out["error"]["code"],
        json!("APPROVAL_DENIED"),
        "a built-in tool called by a pack tool is held to the pack's permissions: {out}"
    );
    let (status, _) = rein_json(&ws, &["call", "hilog_read"]);
    assert_eq!(status, 0, "the same tool called directly is not");
}

#[test]
#[cfg_attr(windows, ignore = "plays the person at a terminal through util-linux `script`, which Windows has not")]
fn a_pack_from_a_local_git_repository_is_pinned_to_its_commit() {
    let ws = Workspace::new();
    let repo = pack_source(&ws, MANIFEST);
    git(&repo, &["init", "--quiet"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "first"]);
    let first = git(&repo, &["rev-parse", "HEAD"]);
    let screen = pack_cli(&ws, &format!("add {}", repo.display()), "yes\n");
    assert!(screen.contains(&first), "{screen}");
    let lock = std::fs::read_to_string(ws.path("rein.lock")).unwrap();
    assert!(lock.contains(&format!("commit = \"{first}\"")), "{lock}");
    assert_eq!(rein_json(&ws, &["call", "team-kit.greet"]).1["result"], json!({"text": "hello from the pack"}));
    std::fs::write(repo.join("prelude/words.lua"), "return { hello = 'second commit' }").unwrap();
    git(&repo, &["commit", "--quiet", "-am", "second"]);
    let second = git(&repo, &["rev-parse", "HEAD"]);
    pack_cli(&ws, "update", "yes\n");
    let lock = std::fs::read_to_string(ws.path("rein.lock")).unwrap();
    assert!(lock.contains(&second) && !lock.contains(&first), "update moves the lock: {lock}");
    assert_eq!(rein_json(&ws, &["call", "team-kit.greet"]).1["result"], json!({"text": "second commit"}));
    let leftovers: Vec<_> = std::fs::read_dir(ws.home.join("packs/.fetch")).unwrap().collect();
    assert!(leftovers.is_empty(), "checkouts are removed once installed: {leftovers:?}");
    assert!(!ws.path(".rein/pack-src").exists(), "nothing is cloned into the workspace");
}

#[test]
#[cfg_attr(windows, ignore = "plays the person at a terminal through util-linux `script`, which Windows has not")]
fn a_failed_install_leaves_nothing_behind() {
    let ws = Workspace::new();
    let source = pack_source(&ws, MANIFEST);
    let sha = content_hash(&source).unwrap();
    // Something that is not a pack folder already sits where the pack must go.
    std::fs::create_dir_all(ws.home.join("packs/team-kit")).unwrap();
    std::fs::write(ws.home.join("packs/team-kit").join(&sha), "in the way").unwrap();
    let screen = pack_cli(&ws, &format!("add {}", source.display()), "yes\n");
    assert!(screen.contains("\"ok\":false"), "{screen}");
    let left: Vec<String> = std::fs::read_dir(ws.home.join("packs/team-kit"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, [sha], "no staging folder is left");
    assert!(!ws.path("rein.lock").exists(), "the lock is not touched");
}

// Unix only: a FIFO; Windows folders hold no special files.
#[cfg(unix)]
#[test]
fn special_files_in_a_pack_are_refused() {
    let ws = Workspace::new();
    let source = pack_source(&ws, MANIFEST);
    let fifo = std::ffi::CString::new(source.join("tools/pipe").to_str().unwrap()).unwrap();
    // SAFETY: creating a FIFO at a path we own.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let screen = pack_cli(&ws, &format!("add {}", source.display()), "yes\n");
    assert!(screen.contains("not a regular file"), "{screen}");
    assert!(!ws.home.join("packs").exists());
}

#[test]
#[cfg_attr(windows, ignore = "plays the person at a terminal through util-linux `script`, which Windows has not")]
fn the_example_pack_installs_and_its_tool_and_recipe_load() {
    let ws = Workspace::new();
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/packs/device-lab");
    let screen = pack_cli(&ws, &format!("add {}", example.display()), "yes\n");
    assert!(screen.contains("it may run: hdc list targets, hdc install"), "{screen}");
    let (status, out) = rein_json(&ws, &["call", "device-lab.ready_devices", r#"{"ability":"MainAbility"}"#]);
    assert_eq!(status, 0, "{out}");
    assert_eq!(out["result"]["marker"], json!("MainAbility onCreate"));
    let (status, out) = rein_json(&ws, &["recipe", "device-lab.clean-install", "--explain"]);
    assert_eq!(status, 0, "{out}");
    assert_eq!(out["result"]["steps"].as_array().unwrap().len(), 4);
    assert_eq!(rein_json(&ws, &["check"]).0, 0);
    let (status, out) = rein_json(&ws, &["test", "device-lab.ready_devices"]);
    assert_eq!(status, 0, "the pack tool's check runs: {out}");
    assert_eq!(out["result"]["checks"][0]["passed"], json!(true));
}

#[test]
fn hot_reload_serves_an_updated_pack_when_rein_lock_moves() {
    let ws = Workspace::new();
    let source = pack_source(&ws, MANIFEST);
    install(&ws, &source);
    let host = std::sync::Arc::new(rein::Host::builder().workspace(&ws.ws).home(&ws.home).build().unwrap());
    assert_eq!(host.call("team-kit.greet", json!({})).unwrap(), json!({"text": "hello from the pack"}));
    let (tx, rx) = std::sync::mpsc::channel();
    let _watcher = host.watch(move |outcome| tx.send(outcome).unwrap()).unwrap();
    std::fs::write(source.join("prelude/words.lua"), "return { hello = 'updated pack' }").unwrap();
    install(&ws, &source);
    // The lock is written, then approved: a reload may come between the two, serving nothing
    // new yet (the moved entry waits for a person); the one after the approval serves it.
    let applied = first_applied(&rx).expect("a reload serving the moved rein.lock");
    assert!(applied.loaded.contains(&"rein.lock".to_string()), "{applied:?}");
    assert_eq!(host.call("team-kit.greet", json!({})).unwrap(), json!({"text": "updated pack"}));
}

/// The first reload that served something, within 10 s.
fn first_applied(rx: &std::sync::mpsc::Receiver<rein::ReloadOutcome>) -> Option<rein::ReloadOutcome> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while let Ok(outcome) = rx.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now())) {
        if outcome.applied {
            return Some(outcome);
        }
    }
    None
}

/// An agent moves rein.lock; the running server serves nothing new until a person approves
/// it in another process (`rein approvals policy`), and then at once, without another edit.
#[test]
fn approving_rein_lock_elsewhere_is_served_by_a_running_host() {
    let ws = Workspace::new();
    let source = pack_source(&ws, MANIFEST);
    install(&ws, &source);
    let host = std::sync::Arc::new(rein::Host::builder().workspace(&ws.ws).home(&ws.home).build().unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    let _watcher = host.watch(move |outcome| tx.send(outcome).unwrap()).unwrap();
    std::fs::write(source.join("prelude/words.lua"), "return { hello = 'approved later' }").unwrap();
    install_unapproved(&ws, &source);
    let unapproved = rx.recv_timeout(std::time::Duration::from_secs(10)).expect("a reload after rein.lock moved");
    assert!(!unapproved.applied, "an unapproved lock serves nothing new: {unapproved:?}");
    assert_eq!(host.call("team-kit.greet", json!({})).unwrap(), json!({"text": "hello from the pack"}));
    crate::common::approve_policy(&ws);
    let applied = first_applied(&rx).expect("a reload once a person approved the lock");
    assert!(applied.loaded.contains(&"rein.lock".to_string()), "{applied:?}");
    assert_eq!(host.call("team-kit.greet", json!({})).unwrap(), json!({"text": "approved later"}));
}

#[test]
fn a_pack_tool_overrides_a_built_in_only_where_rein_toml_says_so() {
    let ws = Workspace::new();
    let source = pack_source(&ws, MANIFEST);
    std::fs::write(
        source.join("tools/list_dir.lua"),
        "return { name = 'list_dir', description = 'team listing', run = function() return { team = true } end }",
    )
    .unwrap();
    install(&ws, &source);
    let (_, out) = rein_json(&ws, &["call", "list_dir"]);
    assert!(out["result"]["entries"].is_array(), "the built-in still answers: {out}");
    ws.file("rein.toml", "[overrides]\nlist_dir = \"team-kit.list_dir\"\n");
    let (_, out) = rein_json(&ws, &["call", "list_dir"]);
    assert!(out["result"]["entries"].is_array(), "a hand-edited override waits for a person: {out}");
    crate::common::approve_policy(&ws);
    let (_, out) = rein_json(&ws, &["call", "list_dir"]);
    assert_eq!(out["result"], json!({"team": true}));
    let (_, tools) = rein_json(&ws, &["tools"]);
    let list_dir =
        tools["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "list_dir").unwrap().clone();
    assert_eq!(list_dir["overrides"], json!("<built-in>/tools/list_dir.lua"));
}

#[test]
fn a_pack_recipe_is_held_to_the_pack_permissions_too() {
    let ws = Workspace::new();
    let source = pack_source(&ws, MANIFEST);
    std::fs::create_dir_all(source.join("recipes")).unwrap();
    std::fs::write(
        source.join("recipes/peek.lua"),
        "return { name = 'peek', description = 'reads logs', steps = { { name = 'logs', run = function(ctx) return ctx:tool('hilog_read', {}) end } } }",
    )
    .unwrap();
    install(&ws, &source);
    let (status, out) = rein_json(&ws, &["recipe", "team-kit.peek"]);
    assert_eq!(status, 1, "{out}");
    assert_eq!(out["error"]["details"]["failure"]["code"], json!("APPROVAL_DENIED"), "{out}");
}

/// The person reads the pack's permissions; meanwhile the pack's folder gains one. What is
/// installed and locked is what they read.
#[test]
#[cfg_attr(windows, ignore = "plays the person at a terminal through util-linux `script`, which Windows has not")]
fn a_pack_changed_while_the_person_reads_installs_as_shown() {
    let ws = Workspace::new();
    let source = pack_source(&ws, MANIFEST);
    let shown_sha = content_hash(&source).unwrap();
    let command = format!(
        "{} --workspace {} --home {} --json pack add {}",
        crate::common::REIN,
        ws.ws.display(),
        ws.home.display(),
        source.display()
    );
    let widened = MANIFEST.replace("[\"hdc list targets\"]", "[\"hdc list targets\", \"hdc shell\"]");
    let screen = crate::common::answer_in_terminal_after(
        &command,
        "Type yes to confirm",
        || std::fs::write(source.join("pack.toml"), &widened).unwrap(),
        "yes\n",
    );
    assert!(screen.contains("it may run: hdc list targets") && screen.contains(&shown_sha), "{screen}");
    assert!(screen.contains("\"ok\":true"), "{screen}");
    let lock = std::fs::read_to_string(ws.path("rein.lock")).unwrap();
    assert!(lock.contains(&shown_sha), "the hash shown is the hash locked: {lock}");
    let installed = std::fs::read_to_string(ws.home.join("packs/team-kit").join(&shown_sha).join("pack.toml")).unwrap();
    assert!(!installed.contains("hdc shell"), "the permission added after the question is not installed: {installed}");
}

/// Issue 40: `rein pack add` put `[packs]` above the header comment `rein init` writes, and left
/// its commented `# [packs]` below; the table takes the placeholder's place, the rest of the
/// file as it was. A file without the placeholder gets the table at its end.
#[test]
#[cfg_attr(windows, ignore = "plays the person at a terminal through util-linux `script`, which Windows has not")]
fn add_writes_packs_where_the_file_keeps_its_place() {
    let ws = Workspace::new();
    assert_eq!(rein_json(&ws, &["init"]).0, 0);
    let before = std::fs::read_to_string(ws.path("rein.toml")).unwrap();
    let source = pack_source(&ws, MANIFEST);
    pack_cli(&ws, &format!("add {}", source.display()), "yes\n");
    let toml = std::fs::read_to_string(ws.path("rein.toml")).unwrap();
    // The source as rein.toml records it: relative to the workspace.
    let entry = "[packs]\nteam-kit = \"../team-kit\"\n";
    assert_eq!(toml, before.replace("# [packs]\n", entry), "{toml}");
    assert!(toml.starts_with("# rein's settings for this project."), "{toml}");

    let other = Workspace::new();
    other.file("rein.toml", "# ours\n[[deny]]\nprogram = \"hdc\"\nargs = [\"uninstall\"]\n");
    crate::common::approve_policy(&other);
    let source = pack_source(&other, MANIFEST);
    pack_cli(&other, &format!("add {}", source.display()), "yes\n");
    let toml = std::fs::read_to_string(other.path("rein.toml")).unwrap();
    let want = format!("# ours\n[[deny]]\nprogram = \"hdc\"\nargs = [\"uninstall\"]\n\n{entry}");
    assert_eq!(toml, want);
}
