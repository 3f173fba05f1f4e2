//! A teammate starts from the lock: `rein pack sync` installs exactly the locked commit into a
//! fresh home and never moves the lock; sources are recorded portably; `update` shows what
//! changed in the permissions; and the installer's git cannot be steered into running a
//! command (by git config, a repository's config or hooks, or option-like sources).

use std::path::{Path, PathBuf};

use crate::common::{git, in_terminal, rein_json, Workspace, REIN};
use rein::packs::hash::content_hash;
use serde_json::{json, Value};

const MANIFEST: &str = r#"name = "team-kit"
version = "1.0.0"
description = "Our team's helpers"
rein = ">=0.1"
permissions = ["hdc list targets"]
"#;

/// The test's own git (never tripping the traps it sets for rein's).
/// A git repository holding the pack, one commit saying `words`; its path and commit.
fn pack_repo(ws: &Workspace, words: &str) -> (PathBuf, String) {
    pack_repo_with(ws, words, MANIFEST)
}

fn pack_repo_with(ws: &Workspace, words: &str, manifest: &str) -> (PathBuf, String) {
    let repo = ws.root.join("team-kit");
    std::fs::create_dir_all(repo.join("tools")).unwrap();
    std::fs::write(repo.join("pack.toml"), manifest).unwrap();
    std::fs::write(
        repo.join("tools/greet.lua"),
        format!(
            "return {{ name = 'greet', description = 'greets', run = function() return {{ text = '{words}' }} end }}"
        ),
    )
    .unwrap();
    if !repo.join(".git").exists() {
        git(&repo, &["init", "--quiet"]);
    }
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", words]);
    let commit = git(&repo, &["rev-parse", "HEAD"]);
    (repo, commit)
}

/// `rein pack ARGS` at a terminal where the person types `answer`, with `home` and `env`.
fn pack_at_terminal(ws: &Workspace, home: &Path, env: &str, args: &str, answer: &str) -> String {
    let command = format!("{env} {REIN} --workspace {} --home {} --json pack {args}", ws.ws.display(), home.display());
    in_terminal(&command, answer)
}

/// The JSON object the command printed last (after the prompt, on the same line).
fn last_json(screen: &str) -> Value {
    screen
        .lines()
        .rev()
        .find_map(|l| l.find("{\"").and_then(|at| serde_json::from_str::<Value>(l[at..].trim()).ok()))
        .unwrap_or_else(|| panic!("no JSON line on the screen: {screen}"))
}

#[test]
fn sync_installs_the_locked_commit_byte_for_byte_into_a_fresh_home_and_never_moves_the_lock() {
    let ws = Workspace::new();
    let (repo, first) = pack_repo(&ws, "first");
    let added = last_json(&pack_at_terminal(&ws, &ws.home, "", &format!("add {}", repo.display()), "yes\n"));
    assert_eq!(added["ok"], json!(true), "{added}");
    let lock_before = std::fs::read(ws.path("rein.lock")).unwrap();
    let locked_sha = added["result"]["sha256"].as_str().unwrap().to_string();
    // The repository moves on; the lock does not.
    pack_repo(&ws, "second");

    let fresh = ws.root.join("fresh-home");
    std::fs::create_dir_all(&fresh).unwrap();
    // A home that never approved this lock serves none of its packs, and says what to run.
    let (_, out) = rein_json_home(&ws, &fresh, &["doctor"]);
    // Without a toolchain doctor fails (TOOLCHAIN_NOT_FOUND) but still reports the policy.
    let report = if out["ok"] == true { &out["result"] } else { &out["error"]["details"] };
    let warning = report["policy_warning"].as_str().unwrap_or_default();
    assert!(warning.contains("`rein pack sync`"), "names the command: {out}");
    assert_eq!(warning.matches("`rein ").count(), 1, "one command: {warning}");
    let (status, out) = rein_json_home(&ws, &fresh, &["call", "team-kit.greet"]);
    assert_ne!(status, 0, "an unapproved pack is not served: {out}");
    assert_eq!(out["error"]["details"]["fix"], json!("rein pack sync"), "says what to run: {out}");
    assert!(out["error"]["message"].as_str().unwrap().contains("`rein pack sync`"), "{out}");

    let screen = pack_at_terminal(&ws, &fresh, "", "sync", "yes\n");
    let synced = last_json(&screen);
    assert_eq!(synced["ok"], json!(true), "{screen}");
    assert_eq!(synced["result"]["synced"][0]["commit"], json!(first), "the locked commit, not the newest: {synced}");
    let installed = fresh.join("packs/team-kit").join(&locked_sha);
    assert_eq!(content_hash(&installed).unwrap(), locked_sha, "hash-checked byte for byte");
    let greet = std::fs::read_to_string(installed.join("tools/greet.lua")).unwrap();
    assert!(greet.contains("'first'"), "{greet}");
    assert_eq!(std::fs::read(ws.path("rein.lock")).unwrap(), lock_before, "sync never moves the lock");
    let (status, out) = rein_json_home(&ws, &fresh, &["call", "team-kit.greet"]);
    assert_eq!((status, out["result"]["text"].clone()), (0, json!("first")), "{out}");
    // The person confirmed the lock's packs: nothing of them waits any more, so no warning.
    let (_, out) = rein_json_home(&ws, &fresh, &["doctor"]);
    let report = if out["ok"] == true { &out["result"] } else { &out["error"]["details"] };
    assert_eq!(report["policy_pending"], json!([]), "{out}");
    assert_eq!(report["policy_warning"], Value::Null, "{out}");
    // Again: nothing to do.
    let again = last_json(&pack_at_terminal(&ws, &fresh, "", "sync", ""));
    assert_eq!(again["result"]["synced"][0]["installed"], json!(false), "{again}");
    // Headless, nothing is fetched or installed.
    let other = ws.root.join("other-home");
    let (status, out) = rein_json_home(&ws, &other, &["pack", "sync"]);
    assert_eq!((status, out["error"]["code"].as_str()), (1, Some("APPROVAL_REQUIRED")), "{out}");
    assert!(!other.join("packs/team-kit").exists());
    // ... and says which packs wait and what a person must run, so a CI job can say so too.
    assert_eq!(out["error"]["details"]["packs"][0]["name"], json!("team-kit"), "{out}");
    assert_eq!(out["error"]["details"]["packs"][0]["sha256"], json!(locked_sha), "{out}");
    let message = out["error"]["message"].as_str().unwrap();
    assert!(message.contains("team-kit") && message.contains("`rein pack sync`"), "{message}");
}

fn rein_json_home(ws: &Workspace, home: &Path, args: &[&str]) -> (i32, Value) {
    let out = std::process::Command::new(REIN)
        .arg("--workspace")
        .arg(&ws.ws)
        .arg("--home")
        .arg(home)
        .arg("--json")
        .args(args)
        .env_remove("REIN_HOME")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    (out.status.code().unwrap_or(-1), serde_json::from_str(stdout.trim()).unwrap_or(Value::Null))
}

#[test]
fn sources_are_recorded_portably() {
    let ws = Workspace::new();
    let (repo, _) = pack_repo(&ws, "first");
    let screen = pack_at_terminal(&ws, &ws.home, "", &format!("add {}", repo.display()), "yes\n");
    assert_eq!(last_json(&screen)["ok"], json!(true), "{screen}");
    let toml = std::fs::read_to_string(ws.path("rein.toml")).unwrap();
    let lock = std::fs::read_to_string(ws.path("rein.lock")).unwrap();
    assert!(toml.contains("team-kit = \"../team-kit\""), "relative to the workspace: {toml}");
    assert!(lock.contains("source = \"../team-kit\""), "{lock}");
    let root = ws.root.display().to_string();
    assert!(!toml.contains(&root) && !lock.contains(&root), "no absolute path: {toml}\n{lock}");
    // The recorded source works from the workspace, wherever rein is started.
    pack_repo(&ws, "second");
    let screen = pack_at_terminal(&ws, &ws.home, "cd / &&", "update team-kit", "yes\n");
    assert_eq!(last_json(&screen)["ok"], json!(true), "{screen}");
    assert_eq!(rein_json(&ws, &["call", "team-kit.greet"]).1["result"]["text"], json!("second"));
}

#[test]
fn update_marks_the_permissions_the_pack_gains() {
    let ws = Workspace::new();
    let (repo, _) = pack_repo(&ws, "first");
    pack_at_terminal(&ws, &ws.home, "", &format!("add {}", repo.display()), "yes\n");
    pack_repo_with(
        &ws,
        "second",
        &MANIFEST.replace("[\"hdc list targets\"]", "[\"hdc list targets\", \"hdc install\"]"),
    );
    let screen = pack_at_terminal(&ws, &ws.home, "", "update team-kit", "no\n");
    assert!(screen.contains("\x1b[1m+ hdc install\x1b[0m"), "the new permission is marked in bold: {screen:?}");
    assert!(screen.contains("      hdc list targets"), "{screen}");
    assert_eq!(last_json(&screen)["error"]["code"], json!("APPROVAL_DENIED"), "{screen}");
    assert_eq!(rein_json(&ws, &["call", "team-kit.greet"]).1["result"]["text"], json!("first"), "not updated");
}

#[test]
fn sync_after_a_teammates_update_marks_the_permissions_the_pack_gains() {
    let ws = Workspace::new();
    let (repo, _) = pack_repo(&ws, "first");
    pack_at_terminal(&ws, &ws.home, "", &format!("add {}", repo.display()), "yes\n");
    // A teammate syncs, then updates the pack to a version that may install apps.
    let teammate = ws.root.join("teammate-home");
    std::fs::create_dir_all(&teammate).unwrap();
    let synced = last_json(&pack_at_terminal(&ws, &teammate, "", "sync", "yes\n"));
    assert_eq!(synced["ok"], json!(true), "{synced}");
    pack_repo_with(
        &ws,
        "second",
        &MANIFEST.replace("[\"hdc list targets\"]", "[\"hdc list targets\", \"hdc install\"]"),
    );
    let updated = last_json(&pack_at_terminal(&ws, &teammate, "", "update team-kit", "yes\n"));
    assert_eq!(updated["ok"], json!(true), "{updated}");
    // Back in the first home, sync shows what the moved lock lets the pack run now.
    let screen = pack_at_terminal(&ws, &ws.home, "", "sync", "no\n");
    assert!(screen.contains("as rein.lock pins it now (this project used sha256"), "{screen}");
    assert!(screen.contains("\x1b[1m+ hdc install\x1b[0m"), "the new permission is marked in bold: {screen:?}");
    assert!(screen.contains("      hdc list targets"), "{screen}");
    assert_eq!(last_json(&screen)["error"]["code"], json!("APPROVAL_DENIED"), "{screen}");
    assert_eq!(rein_json(&ws, &["call", "team-kit.greet"]).1["result"]["text"], json!("first"), "not installed");
}

/// A home whose git config (which git would read without rein's hardening) and a repository
/// whose config and hooks all try to create `marker`.
fn booby_trapped(ws: &Workspace, repo: &Path, marker: &Path) -> PathBuf {
    let touch = format!("touch {}", marker.display());
    let hooks = ws.root.join("evil-hooks");
    std::fs::create_dir_all(hooks.join("hooks")).unwrap();
    for hook in ["post-checkout", "post-merge", "reference-transaction", "fsmonitor-watchman"] {
        let path = hooks.join("hooks").join(hook);
        std::fs::write(&path, format!("#!/bin/sh\n{touch}\n")).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    let config = format!(
        "[core]\n\tfsmonitor = \"{touch}\"\n\thooksPath = {}\n[init]\n\ttemplateDir = {}\n[uploadpack]\n\tpackObjectsHook = {touch}\n[protocol]\n\tallow = always\n",
        hooks.join("hooks").display(),
        hooks.display()
    );
    let user_home = ws.root.join("user-home");
    std::fs::create_dir_all(&user_home).unwrap();
    std::fs::write(user_home.join(".gitconfig"), &config).unwrap();
    let mut repo_config = std::fs::read_to_string(repo.join(".git/config")).unwrap();
    repo_config.push_str(&config);
    std::fs::write(repo.join(".git/config"), repo_config).unwrap();
    for hook in ["post-checkout", "post-merge"] {
        std::fs::copy(hooks.join("hooks").join(hook), repo.join(".git/hooks").join(hook)).unwrap();
    }
    user_home
}

#[test]
fn git_config_hooks_and_fsmonitor_never_run_a_command_while_installing() {
    let ws = Workspace::new();
    let (repo, _) = pack_repo(&ws, "first");
    let marker = ws.root.join("MARKER");
    let user_home = booby_trapped(&ws, &repo, &marker);
    let env = format!("HOME={}", user_home.display());
    let screen = pack_at_terminal(&ws, &ws.home, &env, &format!("add {}", repo.display()), "yes\n");
    assert_eq!(last_json(&screen)["ok"], json!(true), "{screen}");
    assert!(!marker.exists(), "add ran a command");
    pack_repo(&ws, "second");
    assert!(!marker.exists(), "the test's own git ran a command");
    let screen = pack_at_terminal(&ws, &ws.home, &env, "update team-kit", "yes\n");
    assert_eq!(last_json(&screen)["ok"], json!(true), "{screen}");
    let fresh = ws.root.join("fresh-home");
    let screen = pack_at_terminal(&ws, &fresh, &env, "sync", "yes\n");
    assert_eq!(last_json(&screen)["ok"], json!(true), "{screen}");
    assert!(!marker.exists(), "a git config, hook or fsmonitor ran a command");
}

#[test]
fn option_like_sources_revs_and_transports_are_refused_before_git_runs() {
    let ws = Workspace::new();
    let marker = ws.root.join("MARKER");
    let touch = format!("touch {}", marker.display());
    let sources = [
        format!("--upload-pack={touch}"),
        format!("-u{touch}"),
        format!("ext::sh -c {}", touch.replace(' ', "% ")),
        "--template=/tmp/evil".to_string(),
        format!("{}@--output={}", ws.root.display(), marker.display()),
        "ssh://-oProxyCommand=x/kit".to_string(),
        "git://example.invalid/kit.git".to_string(),
    ];
    for source in &sources {
        let screen = pack_at_terminal(&ws, &ws.home, "", &format!("add -- '{source}'"), "yes\n");
        let out = last_json(&screen);
        assert_eq!(out["error"]["code"], json!("INVALID_ARGS"), "{source}: {screen}");
    }
    // A lock edited to carry the same tricks is refused the same way by sync and update.
    for (source, commit) in [
        (format!("--upload-pack={touch}"), "0123456789012345678901234567890123456789"),
        ("../kit".to_string(), "--output=x"),
    ] {
        ws.file(
            "rein.lock",
            format!("[[pack]]\nname = \"team-kit\"\nversion = \"1.0.0\"\nsource = \"{source}\"\ncommit = \"{commit}\"\nsha256 = \"00\"\n"),
        );
        std::fs::create_dir_all(ws.root.join("kit/.git")).unwrap();
        let screen = pack_at_terminal(&ws, &ws.home, "", "sync", "yes\n");
        let code = last_json(&screen)["error"]["code"].clone();
        assert!(code == json!("INVALID_ARGS") || code == json!("INVALID_CONFIG"), "{source} {commit}: {screen}");
    }
    assert!(!marker.exists(), "an option-like source ran a command");
    assert!(!ws.home.join("packs/team-kit").exists());
}
