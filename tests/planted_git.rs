//! A `.git` a build creates where it may write. Landlock grants places, never names: a build
//! script that may write `entry/src/` may make `entry/src/.git/` with a `core.fsmonitor` command
//! and hooks — a repository the person's git, their shell prompt or their editor (which look for
//! nested repositories) then runs unconfined. rein watches every place a confined program may
//! write while it runs: at the first protected name it stops the program, and once nothing of the
//! spawn is left it removes every protected name that was not there before, says so in the call's
//! error and journals it.

use std::path::Path;

use serde_json::{json, Value};

use crate::common::lab::{lab, Lab};
use crate::containment::build_script;
use rein::kernel::process::confine::{level, Level};

/// Makes a repository at `$1` whose config runs `touch $PWNED` on any `git status`.
const PLANT_FN: &str = r#"
plant() {
  mkdir -p "$1/hooks" "$1/objects" "$1/refs" && printf 'ref: refs/heads/main\n' > "$1/HEAD"
  printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch %s #"\n' "$PWNED" > "$1/config"
}
"#;

/// Every way a build can put a repository where git finds it, where it ends up, and the name
/// it had on the way there if it had one: a folder made in place, one prepared under another
/// name and renamed (rein may catch it under either name: a repository is one by its shape, and
/// git finds a bare one too), one made in the private temp directory and moved in, a `.git` file
/// pointing at another repository, a link named `.git`.
const WAYS: [(&str, &str, Option<&str>); 5] = [
    ("plant entry/src/.git", "entry/src/.git", None),
    (
        "mkdir -p entry/src/main/deep && plant entry/src/main/deep/repo && mv entry/src/main/deep/repo entry/src/main/deep/.git",
        "entry/src/main/deep/.git",
        Some("entry/src/main/deep/repo"),
    ),
    ("mkdir -p \"$TMPDIR/moved/a\" && plant \"$TMPDIR/moved/a/.git\" && mv \"$TMPDIR/moved\" entry/moved", "entry/moved/a/.git", None),
    ("printf 'gitdir: %s\\n' \"$HOME/elsewhere/.git\" > entry/src/main/.git", "entry/src/main/.git", None),
    ("ln -s \"$HOME\" AppScope/.git", "AppScope/.git", None),
];

fn no_landlock() -> Option<String> {
    match level() {
        Level::Landlock { .. } => None,
        Level::Seatbelt | Level::RestrictedToken => Some(
            "these attacks are Linux's; macOS runs tests/confinement.rs, Windows tests/confined_writes.rs".to_string(),
        ),
        Level::Unavailable(why) => Some(why.clone()),
    }
}

fn spawn_entries(workspace: &Path) -> Vec<Value> {
    crate::common::journal_text(workspace)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["action"] == "spawn")
        .collect()
}

/// The build script with `$PWNED` (the file a fsmonitor command would create) set; `None` when
/// the lab cannot be made here (it said why).
fn planting_lab(script: &str) -> Option<(Lab, std::path::PathBuf)> {
    let lab = lab()?;
    let pwned = lab.ws.root.join("PWNED");
    build_script(&lab, &format!("PWNED='{}'\n{script}", pwned.display()));
    Some((lab, pwned))
}

/// The person's git, run where a repository was planted (as their shell prompt or editor
/// would): whether the planted `core.fsmonitor` command ran.
fn persons_git_ran_the_plant(lab: &Lab, planted: &str, pwned: &Path) -> bool {
    let dir = lab.ws.path(planted);
    let dir = dir.parent().unwrap();
    let _ = std::process::Command::new("git").arg("-C").arg(dir).arg("status").output();
    pwned.exists()
}

#[test]
fn a_repository_a_build_plants_is_removed_and_the_call_says_so() {
    if let Some(why) = no_landlock() {
        crate::common::real_tools::unavailable(
            "a_repository_a_build_plants_is_removed_and_the_call_says_so",
            &format!("this kernel cannot confine with Landlock: {why}"),
        );
        return;
    }
    for (way, planted, on_the_way) in WAYS {
        let named = |path: &Value| path == &json!(planted) || on_the_way.is_some_and(|n| path == &json!(n));
        // The script goes on after planting, and runs git on its repository itself (confined
        // like the script: the fsmonitor command cannot write outside the workspace).
        let dir = Path::new(planted).parent().unwrap().display().to_string();
        let script = format!("{PLANT_FN}\n{way}\ngit -C {dir} status\nsleep 30\necho survived > entry/survived\n");
        let Some((lab, pwned)) = planting_lab(&script) else { return };
        let error = lab.failed(&[], "hvigor_build", json!({}), "PROTECTED_CREATED");
        assert!(std::fs::symlink_metadata(lab.ws.path(planted)).is_err(), "{planted} is gone: {error}");
        assert!(!persons_git_ran_the_plant(&lab, planted, &pwned), "{way}: the planted fsmonitor ran");
        assert!(!lab.ws.path("entry/survived").exists(), "{way}: the build was stopped at its plant");
        let removed = &error["details"]["removed"];
        assert!(named(&removed[0]["path"]), "{way}: {error}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(removed[0]["path"].as_str().unwrap()), "{error}");
        let spawn = spawn_entries(&lab.ws.ws).pop().expect("the build's journal entry");
        assert_eq!(spawn["result"], json!("PROTECTED_CREATED"), "{spawn}");
        assert!(named(&spawn["planted"][0]["path"]), "the journal names it: {spawn}");
    }
}

#[test]
fn a_build_that_keeps_planting_is_stopped_at_the_first() {
    if let Some(why) = no_landlock() {
        crate::common::real_tools::unavailable(
            "a_build_that_keeps_planting_is_stopped_at_the_first",
            &format!("this kernel cannot confine with Landlock: {why}"),
        );
        return;
    }
    // Without a watch this build would run until its deadline (TIMEOUT), re-making the
    // repository each time something removed it.
    let script = "i=0\nwhile [ $i -lt 3000 ]; do mkdir -p entry/src/.git/hooks; i=$((i+1)); sleep 0.05; done\n";
    let Some((lab, _)) = planting_lab(script) else { return };
    let error = lab.failed(&[], "hvigor_build", json!({"timeout_ms": 120000}), "PROTECTED_CREATED");
    assert!(!lab.ws.path("entry/src/.git").exists(), "{error}");
    assert_eq!(error["details"]["removed"][0]["kind"], json!("folder"), "{error}");
}

#[test]
fn a_repository_that_was_there_before_stays_and_is_not_writable() {
    if let Some(why) = no_landlock() {
        crate::common::real_tools::unavailable(
            "a_repository_that_was_there_before_stays_and_is_not_writable",
            &format!("this kernel cannot confine with Landlock: {why}"),
        );
        return;
    }
    // Names that only look like git's are the build's to make (in `entry/src/`: `entry/` itself,
    // which holds a repository, is granted entry by entry and takes no new names).
    let script = "echo x > entry/.git/hooks/post-checkout\nmkdir -p entry/src/.github entry/src/x.git\ntouch entry/src/.gitkeep entry/src/.gitignore\n";
    let Some((lab, _)) = planting_lab(script) else { return };
    lab.ws.file("entry/.git/config", "[core]\n");
    lab.ws.file("entry/.git/hooks/pre-commit.sample", "#!/bin/sh\n");
    lab.build();
    assert_eq!(std::fs::read_to_string(lab.ws.path("entry/.git/config")).unwrap(), "[core]\n");
    assert!(!lab.ws.path("entry/.git/hooks/post-checkout").exists());
    for made in ["entry/src/.github", "entry/src/x.git", "entry/src/.gitkeep", "entry/src/.gitignore"] {
        assert!(lab.ws.path(made).exists(), "{made} stays");
    }
    let spawn = spawn_entries(&lab.ws.ws).pop().unwrap();
    assert_eq!(spawn["result"], json!("ok"), "{spawn}");
    assert!(spawn.get("planted").is_none(), "{spawn}");
}

#[test]
fn a_folder_made_a_repository_without_the_name_loses_its_head_and_keeps_its_files() {
    // git takes any folder with a HEAD, objects/ and refs/ for a repository; with core.worktree
    // and core.fsmonitor in its config, `git status` there runs the command. Here the build makes
    // the project's own `entry/src/main` one, around the project's files.
    let script = r#"
cd entry/src/main && mkdir -p objects refs && printf 'ref: refs/heads/main\n' > HEAD
printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch %s #"\n' "$PWNED" > config
sleep 30
echo survived > ../survived
"#;
    let Some((lab, pwned)) = planting_lab(script) else { return };
    lab.ws.file("entry/src/main/ets/pages/Index.ets", "// the project's page\n");
    let error = lab.failed(&[], "hvigor_build", json!({}), "PROTECTED_CREATED");
    let removed = &error["details"]["removed"][0];
    assert_eq!(removed["path"], json!("entry/src/main"), "{error}");
    assert_eq!(removed["kind"], json!("repository"), "{error}");
    assert_eq!(removed["removed"], json!(true), "{error}");
    assert!(!lab.ws.path("entry/src/main/HEAD").exists(), "{error}");
    assert!(!lab.ws.path("entry/src/survived").exists(), "the build was stopped at its plant");
    assert_eq!(
        std::fs::read_to_string(lab.ws.path("entry/src/main/ets/pages/Index.ets")).unwrap(),
        "// the project's page\n"
    );
    assert!(!persons_git_ran_the_plant(&lab, "entry/src/main/HEAD", &pwned), "the planted fsmonitor ran");
    let spawn = spawn_entries(&lab.ws.ws).pop().expect("the build's journal entry");
    assert_eq!(spawn["planted"][0]["kind"], json!("repository"), "the journal names it: {spawn}");
}
