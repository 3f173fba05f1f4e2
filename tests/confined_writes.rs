//! The confinement attack on every OS, Windows included: the project's build code (the fake
//! hvigorw's `REIN_FAKE_BUILD_WRITES`, as `hvigorfile.ts` would run it) tries to write the
//! person's shell profile, rein's home and its approvals, the journal, git hooks (the
//! workspace's and a module's own repository), rein.toml, the workspace root and another
//! project; only the build's own outputs, its sources and its private temp folder may change.
//! Linux confines with Landlock, macOS with Seatbelt, Windows with a write-restricted token
//! (run on real macOS and Windows by .github/workflows/confinement.yml). Under Wine nothing
//! confines: the confined test says so (SKIPPED) and `require` must refuse.
//! The same build with `[spawn] confine = "off"` writes them all, so the test can fail.

use std::path::{Path, PathBuf};

use rein::kernel::process::confine::{decide, level, ConfineMode, Level, Plan};
use serde_json::{json, Value};

use crate::common::lab::fake;
use crate::common::{run_json, toml_path, Workspace};

const BASHRC: &str = "# the user's own\n";

/// Each attempt, and what it must give when confined.
const CONFINED: [(&str, &str); 13] = [
    ("build_output", "ok"),
    ("nested_source", "ok"),
    ("temp", "ok"),
    ("bashrc", "denied"),
    ("rein_home", "denied"),
    ("journal", "denied"),
    ("git_hook", "denied"),
    ("nested_git_hook", "denied"),
    ("nested_git_config", "denied"),
    ("rein_toml", "denied"),
    ("workspace_root", "denied"),
    ("other_project", "denied"),
    ("other_project_in_home", "denied"),
];

struct Setup {
    ws: Workspace,
    user_home: PathBuf,
    other: PathBuf,
}

/// Where each attempt writes.
fn targets(setup: &Setup) -> Vec<(&'static str, String)> {
    let temp = if cfg!(windows) { "$TEMP/hvigor-temp.txt" } else { "$TMPDIR/hvigor-temp.txt" };
    let shown = |p: PathBuf| p.display().to_string();
    vec![
        ("build_output", "entry/build/default/app.hap".to_string()),
        ("nested_source", "entry/src/main/ets/Index.ets".to_string()),
        ("temp", temp.to_string()),
        ("bashrc", shown(setup.user_home.join(".bashrc"))),
        ("rein_home", shown(setup.ws.home.join("approvals.toml"))),
        ("journal", ".rein/journal/forged.jsonl".to_string()),
        ("git_hook", ".git/hooks/pre-commit".to_string()),
        ("nested_git_hook", "entry/.git/hooks/post-checkout".to_string()),
        ("nested_git_config", "entry/.git/config".to_string()),
        ("rein_toml", "rein.toml".to_string()),
        ("workspace_root", "new-top-level-file".to_string()),
        ("other_project", shown(setup.other.join("notes.txt"))),
        ("other_project_in_home", shown(setup.user_home.join("projects/app/entry/src/x.ets"))),
    ]
}

/// A workspace under the target's temp folder (no program's grant covers it), a user home with
/// a shell profile and another project, a module that is a repository of its own, and a
/// `build` tool that runs the fake hvigorw, whose hvigorfile.ts holds the writes.
fn setup(confine: &str) -> Setup {
    let ws = Workspace::new_in(Path::new(env!("CARGO_TARGET_TMPDIR")));
    let user_home = ws.root.join("user");
    std::fs::create_dir_all(user_home.join("projects/app/entry/src")).unwrap();
    std::fs::write(user_home.join(".bashrc"), BASHRC).unwrap();
    let other = ws.root.join("other-project");
    std::fs::create_dir_all(&other).unwrap();
    ws.file("entry/src/main/ets/Index.ets", "// page\n");
    ws.file("entry/hvigorfile.ts", "export default {}\n");
    ws.file(".git/hooks/pre-commit.sample", "#!/bin/sh\n");
    ws.file("entry/.git/config", "[core]\n");
    ws.file("entry/.git/hooks/pre-commit.sample", "#!/bin/sh\n");
    ws.file("rein.toml", "");
    ws.file(
        "tools/build.lua",
        "return { name = 'build', description = 'builds', run = function() return rein.proc.run('hvigorw', { 'assembleHap' }) end }",
    );
    let setup = Setup { ws, user_home, other };
    let writes: Vec<String> = targets(&setup).iter().map(|(name, path)| format!("{name} {path}")).collect();
    setup
        .ws
        .file("hvigorfile.ts", format!("export default {{}}\n/* REIN_FAKE_BUILD_WRITES\n{}\n*/\n", writes.join("\n")));
    std::fs::write(
        setup.ws.home.join("config.toml"),
        format!("[toolchain]\nhvigorw = {}\n\n[spawn]\nconfine = \"{confine}\"\n", toml_path(&fake("hvigorw"))),
    )
    .unwrap();
    setup
}

impl Setup {
    fn command(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = self.ws.command(args);
        cmd.env("HOME", &self.user_home).env("USERPROFILE", &self.user_home);
        cmd
    }

    /// Writes a first file (so the journal exists), then runs the build: its status and output.
    fn run_build(&self) -> (i32, Value) {
        let payload = json!({"path": "notes.md", "content": "first\n"}).to_string();
        let (status, out) = run_json(&mut self.command(&["call", "write_file", &payload]), None);
        assert_eq!(status, 0, "{out}");
        run_json(&mut self.command(&["call", "build"]), None)
    }

    /// Each attempt's outcome as the build printed it.
    fn build(&self) -> Vec<(String, String)> {
        let (status, out) = self.run_build();
        assert_eq!(status, 0, "{out}");
        let stdout = out["result"]["stdout"].as_str().expect("the program's stdout");
        let names: Vec<&str> = CONFINED.iter().map(|(name, _)| *name).collect();
        stdout
            .lines()
            .filter_map(|l| l.split_once(' '))
            .filter(|(name, _)| names.contains(name))
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    fn spawn_confinement(&self) -> String {
        let spawns = crate::common::journal_entries(&self.ws.ws, Some("spawn"));
        let last = spawns.last().expect("the build's journal entry");
        last["confinement"].as_str().unwrap_or_default().to_string()
    }

    /// Nothing of the person's, rein's or the repositories' changed.
    fn nothing_outside_changed(&self) {
        assert_eq!(std::fs::read_to_string(self.user_home.join(".bashrc")).unwrap(), BASHRC);
        assert!(!self.ws.home.join("approvals.toml").exists());
        assert!(!self.ws.path(".rein/journal/forged.jsonl").exists());
        assert!(!self.ws.path(".git/hooks/pre-commit").exists());
        assert!(!self.ws.path("entry/.git/hooks/post-checkout").exists());
        assert_eq!(std::fs::read_to_string(self.ws.path("entry/.git/config")).unwrap(), "[core]\n");
        assert_eq!(std::fs::read_to_string(self.ws.path("rein.toml")).unwrap(), "");
        assert!(!self.ws.path("new-top-level-file").exists());
        assert!(!self.other.join("notes.txt").exists());
        assert!(!self.user_home.join("projects/app/entry/src/x.ets").exists());
    }
}

/// What the journal says a confined spawn ran under, on this OS.
fn confinement_named() -> &'static str {
    if cfg!(windows) {
        "restricted-token"
    } else if cfg!(target_os = "macos") {
        "seatbelt"
    } else {
        "landlock-abi"
    }
}

#[test]
fn a_confined_build_writes_its_outputs_and_nothing_else_on_every_os() {
    if crate::common::under_wine() {
        eprintln!("SKIPPED a_confined_build_writes_its_outputs_and_nothing_else_on_every_os: Wine enforces neither tokens nor ACLs, so rein confines nothing there (require_confines_or_refuses_on_every_os judges that)");
        return;
    }
    if let Level::Unavailable(why) = level() {
        crate::common::real_tools::unavailable(
            "a_confined_build_writes_its_outputs_and_nothing_else_on_every_os",
            &format!("this system cannot confine programs: {why}"),
        );
        return;
    }
    let setup = setup("auto");
    let expected: Vec<(String, String)> = CONFINED.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(setup.build(), expected);
    setup.nothing_outside_changed();
    assert_eq!(
        std::fs::read_to_string(setup.ws.path("entry/build/default/app.hap")).unwrap(),
        "written by the build\n"
    );
    let confinement = setup.spawn_confinement();
    assert!(confinement.starts_with(confinement_named()), "{confinement}");
    // Windows: the entries the spawn added are gone, and so is their record.
    let records = setup.ws.home.join("acl-entries");
    let left = std::fs::read_dir(&records).map(|l| l.count()).unwrap_or(0);
    assert_eq!(left, 0, "records left in {}", records.display());
}

/// `confine = "require"`: confined where this system can (Linux, macOS, a real Windows), and
/// where it cannot (Wine, a Linux without Landlock) the build is refused and writes nothing.
#[test]
fn require_confines_or_refuses_on_every_os() {
    let setup = setup("require");
    match decide(ConfineMode::Require, level()) {
        Plan::Refuse(why) => {
            let (status, out) = setup.run_build();
            assert_ne!(status, 0, "{out}");
            assert_eq!(out["error"]["code"], json!("PROGRAM_NOT_ALLOWED"), "{out}");
            assert!(out.to_string().contains(&why), "the refusal says why: {out}");
            assert!(!setup.ws.path("entry/build/default/app.hap").exists());
            setup.nothing_outside_changed();
            assert_eq!(setup.spawn_confinement(), format!("none: {why}"));
        }
        Plan::Unconfined(why) => panic!("require never runs unconfined: {why}"),
        _ => {
            let expected: Vec<(String, String)> =
                CONFINED.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
            assert_eq!(setup.build(), expected);
            setup.nothing_outside_changed();
            assert!(setup.spawn_confinement().starts_with(confinement_named()));
        }
    }
}

#[test]
fn the_same_build_unconfined_writes_everything_so_the_test_can_fail() {
    let setup = setup("off");
    let outcomes = setup.build();
    assert_eq!(outcomes.len(), CONFINED.len(), "{outcomes:?}");
    assert!(outcomes.iter().all(|(_, outcome)| outcome == "ok"), "{outcomes:?}");
    assert!(std::fs::read_to_string(setup.user_home.join(".bashrc")).unwrap().contains("written by the build"));
    assert_eq!(setup.spawn_confinement(), "none: off in home config.toml ([spawn] confine = \"off\")");
}
