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
    assert!(stderr.contains("(it is outside the workspace)\nAllow it once? [y/N]"), "{stderr}");
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

/// README's "Without a device": the bundled example, the fake toolchain and a fresh home run
/// the main recipe as written (the `cargo build` line aside: this test's rein is already built),
/// with the real java and hap-sign-tool jar (fake-env finds the jar as `real_tools` does).
#[cfg(unix)]
#[test]
fn the_readme_runs_the_main_recipe_on_the_example_without_a_device() {
    if crate::common::real_tools::hap_sign_tool(&crate::common::lab::test_name()).is_none() {
        return;
    }
    let ws = Workspace::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let block = crate::common::shell_block("README.md", "### Without a device");
    let (build, script) = block.split_once('\n').expect("more than one line");
    assert!(build.starts_with("cargo build && export PATH="), "the first line builds rein: {build}");
    // fake-env starts the fake hdc's stand-in server; it goes when the script ends, however.
    let script = format!("trap 'hdc kill >/dev/null 2>&1 || true' EXIT\n{script}");
    let bin = Path::new(crate::common::REIN).parent().unwrap();
    // `cargo build` builds the device fakes beside rein; this test's rein-fake-device is the lab's.
    let device = crate::common::real_tools::fake_device_dir();
    let fresh_home = ws.root.join("newcomer");
    std::fs::create_dir_all(&fresh_home).unwrap();
    let mut cmd = Command::new("bash");
    cmd.args(["-euo", "pipefail", "-c", &script])
        .current_dir(root)
        .env("PATH", format!("{}:{}:{}", bin.display(), device.display(), std::env::var("PATH").unwrap_or_default()))
        .env("HOME", &fresh_home)
        .env("TMPDIR", &ws.root)
        .env_remove("REIN_HOME")
        .env_remove("REIN_LOG");
    // fake-env's signing material is a dozen JVM starts, then the whole recipe runs: a bound
    // for a loaded machine, not a speed check.
    let done = crate::common::output_within(&mut cmd, None, std::time::Duration::from_secs(300));
    let (out, err) = (text(&done.stdout), text(&done.stderr));
    assert_eq!(done.status.code(), Some(0), "the README's commands run as written:\n{out}\n{err}");
    assert!(out.contains("recipe sign-install-launch succeeded in "), "{out}");
    assert!(out.contains("  5. launch "), "{out}");
    assert!(out.lines().any(|l| l.starts_with("  5. launch ") && l.contains(" verified ")), "{out}");
    // Issue 40: the edit is what the phone shows (the fake hvigorw packs the page's texts).
    let screen = out.lines().find(|l| l.starts_with("  6. screen ")).unwrap_or_default();
    assert!(screen.contains(" verified "), "the launched app shows \"Hello rein\":\n{out}");
    assert!(!fresh_home.join(".ohos").exists(), "fake-env leaves the person's DevEco material alone");
}

/// fake-env without the real jar or java: it says what to install or set, writes nothing, and
/// the README's `eval` fails too (its stdout is `false`).
#[cfg(unix)]
#[test]
fn fake_env_says_what_to_install_when_the_jar_or_java_is_missing() {
    let ws = Workspace::new();
    let fake_env = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/bin/fake-env");
    let scratch = ws.root.join("try");
    // The interpreter itself (the python3 on PATH may be a shim that needs more of PATH), alone
    // in a folder: a PATH without java.
    let exe = Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output().expect("python3");
    let only_python = ws.root.join("only-python");
    std::fs::create_dir_all(&only_python).unwrap();
    let python = only_python.join("python3");
    std::os::unix::fs::symlink(text(&exe.stdout).trim(), &python).unwrap();
    let run = |jar: &Path, path: &str| {
        let mut cmd = Command::new(&python);
        cmd.arg(&fake_env).args(["--app", "examples/hello-app"]).arg(&scratch);
        cmd.current_dir(env!("CARGO_MANIFEST_DIR")).env(crate::common::real_tools::HAP_SIGN_TOOL_VAR, jar);
        cmd.env("PATH", path).env_remove("JAVA_HOME").env("HOME", &ws.root);
        crate::common::human(&mut cmd)
    };
    let missing = ws.root.join("no.jar");
    let (status, out, err) = run(&missing, &std::env::var("PATH").unwrap_or_default());
    assert_eq!((status, out.as_str()), (1, "false\n"), "{err}");
    let want = format!("fake-env: REIN_REAL_HAP_SIGN_TOOL={} is not a file: set it to", missing.display());
    assert!(err.starts_with(&want), "{err}");
    // A jar that is there, and no java anywhere on PATH.
    std::fs::write(&missing, "").unwrap();
    let (status, out, err) = run(&missing, &only_python.display().to_string());
    assert_eq!((status, out.as_str()), (1, "false\n"), "{err}");
    assert!(err.starts_with("fake-env: no java on PATH: install Java 17 or newer"), "{err}");
    assert!(!scratch.exists(), "nothing is made before java and the jar are found");
}

/// Issue 40: run through a pyenv shim, fake-env put pyenv's own folders (the version's bin,
/// libexec, its plugins' bin: what `pyenv exec` puts first) first on the PATH it exports, ahead
/// of the person's programs. Its PATH is the fakes, then the person's own.
#[cfg(unix)]
#[test]
fn fake_env_keeps_pyenvs_own_folders_off_the_path_it_exports() {
    let Some(jar) =
        crate::common::real_tools::hap_sign_tool("fake_env_keeps_pyenvs_own_folders_off_the_path_it_exports")
    else {
        return;
    };
    let ws = Workspace::new();
    let fake_env = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fakes/bin/fake-env");
    let scratch = ws.root.join("try");
    let pyenv = ws.root.join("pyenv");
    let persons = std::env::var("PATH").unwrap_or_default();
    let device = crate::common::real_tools::fake_device_dir();
    let persons = format!("{}:{}/shims:{persons}", device.display(), pyenv.display());
    let pyenvs = ["versions/3.11.7/bin", "libexec", "plugins/python-build/bin", "plugins/pyenv-virtualenv/bin"]
        .map(|p| pyenv.join(p).display().to_string());
    let exe = Command::new("python3").args(["-c", "import sys; print(sys.executable)"]).output().expect("python3");
    let mut cmd = Command::new(text(&exe.stdout).trim());
    cmd.arg(&fake_env).arg(&scratch).current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd.env(crate::common::real_tools::HAP_SIGN_TOOL_VAR, &jar).env("HOME", &ws.root).env("PYENV_ROOT", &pyenv);
    cmd.env("PATH", format!("{}:{persons}", pyenvs.join(":")));
    let (status, out, err) = crate::common::human(&mut cmd);
    let exported = |name: &str| {
        let line = out.lines().find_map(|l| l.strip_prefix(&format!("export {name}=")));
        line.map(|v| v.trim_matches('\'').to_string()).unwrap_or_else(|| panic!("{name}: {out}{err}"))
    };
    // The stand-in server fake-env started goes with the test.
    let mut kill = Command::new(scratch.join("bin/hdc"));
    kill.arg("kill").env("REIN_FAKE_STATE", exported("REIN_FAKE_STATE"));
    let _ = kill.env("OHOS_HDC_SERVER_PORT", exported("OHOS_HDC_SERVER_PORT")).output();
    assert_eq!(status, 0, "{out}{err}");
    assert_eq!(exported("PATH"), format!("{}:{persons}", scratch.join("bin").display()), "{out}");
}
