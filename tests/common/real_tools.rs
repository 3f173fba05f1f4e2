//! The real HarmonyOS tools built from OpenHarmony's sources (`../shared/toolchain/` beside the
//! repository), found through the variables docs/src/development.md names:
//!
//! - `REIN_REAL_HAP_SIGN_TOOL`: the hap-sign-tool jar (default
//!   `../shared/toolchain/hap-sign-tool/hap-sign-tool.jar`), run with `REIN_REAL_JAVA`;
//! - `REIN_REAL_JAVA`: the java that runs it (default: `java`, `java.exe` on Windows, on
//!   `PATH`). Under Wine, `.ci/wine-test` sets it to a Windows JDK of its own;
//! - `REIN_REAL_HDC_DIR`: the folder holding `hdc` and `hdcd` (default
//!   `../shared/toolchain/hdc/bin`).
//!
//! A test that needs one asks here, and so does every test whose judge is a program the suite
//! does not build (chromium, xmllint, groff, the MCP clients) or a kernel feature (Landlock).
//! When it is absent (or cannot run on this machine) the test fails, naming what to install
//! (`bash .ci/setup` installs it all) and the variable that opts out: a test that did not judge
//! never passes unnoticed. With `REIN_TESTS_SKIP_MISSING=1` it says plainly on stderr that it
//! was skipped and why, and returns; `CI=true` ignores the opt-out.

use std::path::{Path, PathBuf};
use std::process::Command;

pub const HAP_SIGN_TOOL_VAR: &str = "REIN_REAL_HAP_SIGN_TOOL";
pub const HDC_DIR_VAR: &str = "REIN_REAL_HDC_DIR";
pub const JAVA_VAR: &str = "REIN_REAL_JAVA";

fn shared_toolchain(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/toolchain").join(rel)
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// The variable by which a person says "skip what cannot be judged here" (README "Quick start").
pub const SKIP_MISSING_VAR: &str = "REIN_TESTS_SKIP_MISSING";

fn skips_allowed() -> bool {
    !in_ci() && std::env::var(SKIP_MISSING_VAR).is_ok_and(|v| v == "1")
}

/// Reports what this test needs and cannot use: a failure naming what to install and the
/// opt-out, or, opted out (never under CI), a skip said on stderr.
pub fn unavailable(test: &str, why: &str) {
    unavailable_where(skips_allowed(), test, why)
}

fn unavailable_where(skips_allowed: bool, test: &str, why: &str) {
    if !skips_allowed {
        panic!(
            "{test} cannot judge: {why}. `bash .ci/setup` installs what the suite needs (README \"Quick start\"); \
             or set {SKIP_MISSING_VAR}=1 to skip the tests that cannot judge here (each prints SKIPPED)"
        );
    }
    eprintln!("SKIPPED {test}: {why} ({SKIP_MISSING_VAR}=1)");
}

/// Whether `program ARGS` runs and exits 0; else [`unavailable`] with what to install.
pub fn program_runs(test: &str, program: &str, args: &[&str], install: &str) -> bool {
    match runs(Command::new(program).args(args)) {
        Ok(()) => true,
        Err(why) => {
            unavailable(test, &format!("{program} ({install}): {why}"));
            false
        }
    }
}

/// Whether `path` is a file; else [`unavailable`] saying what it is.
pub fn file_present(test: &str, path: &Path, what: &str) -> bool {
    if path.is_file() {
        return true;
    }
    unavailable(test, &format!("{what} is missing at {}", path.display()));
    false
}

fn located(var: &str, default: PathBuf) -> Result<PathBuf, String> {
    match std::env::var_os(var) {
        Some(value) => {
            let path = PathBuf::from(value);
            if path.exists() {
                Ok(path)
            } else {
                Err(format!("{var}={} does not exist", path.display()))
            }
        }
        None if default.exists() => Ok(default),
        None => Err(format!("{} is absent; set {var} to it", default.display())),
    }
}

fn runs(program: &mut Command) -> Result<(), String> {
    match program.output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!("{:?} exited {}: {}", program, out.status, String::from_utf8_lossy(&out.stderr).trim())),
        Err(e) => Err(format!("{program:?} cannot start: {e}")),
    }
}

/// The java that runs the real jar: `REIN_REAL_JAVA`, else the first `java` on `PATH`, its
/// links followed (so its folder's parent is its home: `JAVA_HOME`).
pub fn java() -> Result<PathBuf, String> {
    let program = format!("java{}", std::env::consts::EXE_SUFFIX);
    let java = match std::env::var_os(JAVA_VAR) {
        Some(value) => located(JAVA_VAR, PathBuf::from(value))?,
        None => {
            let path = std::env::var_os("PATH").unwrap_or_default();
            let found = std::env::split_paths(&path).map(|d| d.join(&program)).find(|p| p.is_file());
            found.ok_or(format!("no {program} on PATH; put one there or set {JAVA_VAR} to it"))?
        }
    };
    // On Windows the path stays as given: canonicalizing would make it verbatim (\\?\Z:\…),
    // and java finds its home from the path it was started by.
    if cfg!(windows) {
        return std::path::absolute(&java).map_err(|e| e.to_string());
    }
    std::fs::canonicalize(&java).map_err(|e| format!("{}: {e}", java.display()))
}

/// The real hap-sign-tool jar and the java that runs it, once `java -jar JAR -v` runs; `None`
/// (after saying why) when not. Probed once per test process: a JVM's start takes seconds
/// under Wine.
pub fn hap_sign_tool_and_java(test: &str) -> Option<(PathBuf, PathBuf)> {
    static PROBED: std::sync::OnceLock<Result<(PathBuf, PathBuf), String>> = std::sync::OnceLock::new();
    let probed = PROBED.get_or_init(|| {
        let jar = located(HAP_SIGN_TOOL_VAR, shared_toolchain("hap-sign-tool/hap-sign-tool.jar"))?;
        // Under Wine a Unix path (`/work/…`) names a folder on the current drive only.
        let jar = std::path::absolute(&jar).map_err(|e| format!("{}: {e}", jar.display()))?;
        let java = java()?;
        runs(Command::new(&java).arg("-jar").arg(&jar).arg("-v"))?;
        Ok((jar, java))
    });
    match probed {
        Ok(found) => Some(found.clone()),
        Err(why) => {
            unavailable(test, &format!("the real hap-sign-tool: {why} (needs Java 17)"));
            None
        }
    }
}

/// The real hap-sign-tool jar, once `java -jar JAR -v` runs; `None` (after saying why) when not.
pub fn hap_sign_tool(test: &str) -> Option<PathBuf> {
    hap_sign_tool_and_java(test).map(|(jar, _)| jar)
}

/// The folder holding the real `hdc` and `hdcd`, once `hdc version` runs (it needs `libuv1` and
/// `libusb-1.0-0`); `None` (after saying why) when not.
pub fn hdc_dir(test: &str) -> Option<PathBuf> {
    let found = located(HDC_DIR_VAR, shared_toolchain("hdc/bin")).and_then(|dir| {
        let hdc = dir.join("hdc");
        // `-p` asks hdc not to start a server, so probing the client leaves nothing running.
        runs(Command::new(&hdc).args(["-p", "version"])).map(|()| dir)
    });
    found.map_err(|why| unavailable(test, &format!("the real hdc: {why}"))).ok()
}

/// The folder holding `rein-fake-device` (tests/fakes/device, the device side of the fakes),
/// built for this run: `cargo test` builds it as a default member of the workspace; a run of
/// this package alone (`cargo test --test integration`) builds it here, once, so it is never
/// stale. `REIN_FAKE_DEVICE_DIR` names a folder holding a build instead (cross-built tests).
pub fn fake_device_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        if let Some(dir) = std::env::var_os("REIN_FAKE_DEVICE_DIR") {
            return PathBuf::from(dir);
        }
        let exe = std::env::current_exe().expect("the test binary's path");
        // target/<profile>/deps/<test binary>
        let dir = exe.parent().and_then(Path::parent).expect("target/<profile>").to_path_buf();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
        let mut build = Command::new(cargo);
        build.args(["build", "--quiet", "-p", "rein-fake-device", "--manifest-path"]).arg(manifest);
        if dir.ends_with("release") {
            build.arg("--release");
        }
        if let Err(why) = runs(&mut build) {
            let program = dir.join(format!("rein-fake-device{}", std::env::consts::EXE_SUFFIX));
            assert!(program.exists(), "building rein-fake-device failed and there is none: {why}");
        }
        dir
    })
}

/// The folder holding the fake toolchain's programs under their own names (`hdc`, `hvigorw`,
/// `ohpm`, `rein-fake-device`; `.exe` on Windows), each a link to (or copy of) this run's
/// `rein-fake-device`: `target/<profile>/fake-toolchain`, made once per test process by
/// `rein-fake-device install-toolchain`.
pub fn fake_toolchain_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let device = fake_device_dir().join(format!("rein-fake-device{}", std::env::consts::EXE_SUFFIX));
        let dir = fake_device_dir().join("fake-toolchain");
        let out = Command::new(&device).arg("install-toolchain").arg(&dir).output();
        let out = out.unwrap_or_else(|e| panic!("run {}: {e}", device.display()));
        assert!(
            out.status.success(),
            "{} install-toolchain: {}",
            device.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        dir
    })
}

/// The real hdc's folder, once this machine can also hold a test rig (`rig.rs`): network,
/// mount and UTS namespaces, which need root (CI runs as root). `None` (after saying why) when
/// not.
pub fn rig(test: &str) -> Option<PathBuf> {
    let dir = hdc_dir(test)?;
    let probe = runs(Command::new("unshare").args(["--net", "--mount", "--uts", "true"]));
    match probe {
        Ok(()) => Some(dir),
        Err(why) => {
            unavailable(test, &format!("the test rig needs network and mount namespaces (root): {why}"));
            None
        }
    }
}

/// Issue 40: without `../shared` or libuv1, the real hdc's tests printed SKIPPED and counted as
/// passed, and a newcomer saw green. A test that cannot judge fails, saying what to install and
/// how to opt out; only a person's opt-out skips it. And no test skips by a rule of its own: the
/// only other skips are of tests Wine cannot run (`.ci/wine-test` lists them).
#[test]
fn a_test_that_cannot_judge_fails_unless_the_person_opts_out() {
    let failed = std::panic::catch_unwind(|| unavailable_where(false, "probe", "no hdc here"));
    let message = failed.expect_err("it fails");
    let message = message.downcast_ref::<String>().expect("a message");
    for part in ["probe cannot judge: no hdc here", "bash .ci/setup", "REIN_TESTS_SKIP_MISSING=1"] {
        assert!(message.contains(part), "{part}: {message}");
    }
    unavailable_where(true, "probe", "no hdc here");

    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    for entry in std::fs::read_dir(&tests).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if line.contains("eprintln!(\"SKIPPED") {
                let before = lines[i.saturating_sub(6)..i].join("\n");
                assert!(before.contains("under_wine()"), "{}:{}: a skip of its own: {line}", path.display(), i + 1);
            }
        }
    }
}
