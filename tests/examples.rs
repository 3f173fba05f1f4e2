//! The example programs in examples/ do what their docs say. `cargo test` builds every
//! example; these run each of them end to end, through `cargo run` so that the program run is
//! the current one even when only this test binary was built.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use crate::common::{copy_dir, Workspace};

/// Runs `cargo run --example NAME -- ARGS` with `stdin` as its input.
fn run_example(name: &str, args: &[&Path], stdin: &str) -> Output {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let mut child = Command::new(cargo)
        .args(["run", "--quiet", "--example", name, "--manifest-path"])
        .arg(manifest)
        .arg("--")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start cargo run --example");
    child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write the example's stdin");
    child.wait_with_output().expect("wait for the example")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
#[cfg_attr(windows, ignore = "builds and runs the example with cargo, which the Windows test run has not")]
fn the_embed_example_lists_the_tools_and_dry_runs_the_project_tool() {
    let ws = Workspace::new();
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hello-app"), &ws.ws);
    let before = ws.read("AppScope/app.json5");
    let out = run_example("embed", &[&ws.ws], "");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}", out.status);
    assert!(stdout.contains("tool bump_version (project): Raise versionCode"), "{stdout}");
    assert!(stdout.contains("tool edit_file (built-in):"), "{stdout}");
    assert!(stdout.contains("recipe build-verify\n"), "{stdout}");
    assert!(stdout.contains("versionCode would go from 1000000 to 1000001\n"), "{stdout}");
    assert!(stdout.contains("-    \"versionCode\": 1000000,\n+    \"versionCode\": 1000001,\n"), "{stdout}");
    assert_eq!(ws.read("AppScope/app.json5"), before, "a dry run writes nothing");
}

#[test]
#[cfg_attr(windows, ignore = "builds and runs the example with cargo, which the Windows test run has not")]
fn the_embed_example_says_what_went_wrong_when_the_project_is_not_there() {
    let ws = Workspace::new();
    let out = run_example("embed", &[&ws.ws.join("missing")], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("INVALID_CONFIG: "), "{}", text(&out.stderr));
}

#[test]
#[cfg_attr(windows, ignore = "builds and runs the example with cargo, which the Windows test run has not")]
fn the_approver_example_writes_outside_the_workspace_only_with_the_users_yes() {
    let yes = run_example("approver", &[], "y\n");
    let (stdout, stderr) = (text(&yes.stdout), text(&yes.stderr));
    assert!(yes.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert!(stderr.contains("rein wants to write "), "the question went to the program's UI: {stderr}");
    assert!(stderr.contains("(it is outside the workspace). Allow it once? [y/N]"), "{stderr}");
    assert!(stdout.starts_with("wrote 28 bytes to "), "{stdout}");

    let no = run_example("approver", &[], "n\n");
    let (stdout, stderr) = (text(&no.stdout), text(&no.stderr));
    assert!(no.status.success(), "stdout:\n{stdout}\nstderr:\n{stderr}");
    assert_eq!(stdout, "refused: APPROVAL_DENIED (exists: false)\n");
}

#[test]
#[cfg_attr(windows, ignore = "builds and runs the example with cargo, which the Windows test run has not")]
fn the_event_listener_example_hears_a_recipe_run_in_order() {
    let out = run_example("event_listener", &[], "");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}", out.status);
    let expected = [
        "\"event\":\"recipe_started\"",
        "[1/2] inside",
        "wrote notes/shift.md (10 bytes)",
        "[2/2] outside",
        "\"event\":\"approval_asked\"",
        "allowed by Approver(\"--yes\")",
        "/share/shift.md (10 bytes)",
        "\"event\":\"recipe_ended\"",
        ": succeeded",
    ];
    let mut rest = stdout.as_str();
    for want in expected {
        let at = rest.find(want).unwrap_or_else(|| panic!("{want:?} missing, or out of order, in:\n{stdout}"));
        rest = &rest[at + want.len()..];
    }
}

#[test]
#[cfg_attr(windows, ignore = "builds and runs the example with cargo, which the Windows test run has not")]
fn the_native_module_example_writes_inside_and_is_refused_outside() {
    let out = run_example("native_module", &[], "");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}", out.status);
    assert!(stdout.contains("[ide] notes/todo.md:1 (15 bytes), asked by jot\n"), "{stdout}");
    assert!(stdout.contains("saved: {\"bytes\":15,\"path\":\"notes/todo.md\"}\n"), "{stdout}");
    assert!(stdout.contains("outside the workspace: APPROVAL_REQUIRED ("), "{stdout}");
}
