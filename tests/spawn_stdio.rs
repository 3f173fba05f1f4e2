//! A toolchain program gets pipes of its own and nothing of rein's standard handles: with
//! rein's stdout it could write answers rein never gave into the MCP stream, with its stdin
//! read requests meant for rein. On Windows, rein started with pipes (as an MCP client starts
//! `rein serve`) holds inheritable standard handles, and Windows hands every inheritable handle
//! to each process created with inheritance, which Rust's std always asks for.
//!
//! Three processes, all this test binary: the test starts a stand-in for rein (the relay) with
//! its stdout a pipe, as a client would; the relay runs a program through rein's process
//! runner (the probe), telling it which handle (Unix: descriptor) is the relay's stdout; the
//! probe writes a forged line there. Only the relay's own report may reach the test.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use rein::kernel::process::spawn::{run, SpawnRequest};

const ROLE: &str = "REIN_TEST_STDIO_ROLE";
const TARGET: &str = "REIN_TEST_STDIO_TARGET";
const FORGED: &str = "FORGED-BY-A-TOOLCHAIN-PROGRAM";

#[test]
fn a_program_cannot_write_into_reins_own_stdout() {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "spawn_stdio::relay", "--ignored", "--nocapture", "--test-threads=1"])
        .env(ROLE, "relay")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("relay: the probe ran"), "the probe must have run: {stdout}\n{stderr}");
    assert!(!stdout.contains(FORGED), "a program wrote into rein's stdout: {stdout}");
}

/// The stand-in for rein (run only by the test above, through its environment).
#[test]
#[ignore = "a helper process of a_program_cannot_write_into_reins_own_stdout"]
fn relay() {
    if std::env::var(ROLE).as_deref() != Ok("relay") {
        return;
    }
    let request = SpawnRequest {
        program: std::env::current_exe().unwrap(),
        args: ["--exact", "spawn_stdio::probe", "--ignored", "--nocapture", "--test-threads=1"]
            .map(String::from)
            .into(),
        cwd: std::env::temp_dir(),
        env: probe_env(),
        stdin: None,
        timeout: Duration::from_secs(60),
        output_limit: 64 * 1024,
        restricted: None,
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let out = runtime.block_on(run(&request, &mut |_, _| Ok(()))).unwrap();
    let ran = out.stdout.contains("probe: wrote");
    // The probe's own output is not echoed: only whether it ran.
    println!("relay: the probe {}", if ran { "ran" } else { "did not run" });
    std::io::stdout().flush().unwrap();
}

/// The program rein runs: writes the forged line to what was the relay's stdout.
#[test]
#[ignore = "a helper process of a_program_cannot_write_into_reins_own_stdout"]
fn probe() {
    if std::env::var(ROLE).as_deref() != Ok("probe") {
        return;
    }
    let target: u64 = std::env::var(TARGET).unwrap().parse().unwrap();
    let wrote = write_to_raw(target, format!("{FORGED}\n").as_bytes());
    println!("probe: wrote ({wrote:?})");
}

fn probe_env() -> Vec<(String, String)> {
    let mut env = vec![(ROLE.to_string(), "probe".to_string()), (TARGET.to_string(), own_stdout_raw().to_string())];
    // What a Windows program needs to start (rein's environment rules add these too).
    for name in ["SystemRoot", "PATH", "TEMP", "TMP"] {
        if let Ok(value) = std::env::var(name) {
            env.push((name.to_string(), value));
        }
    }
    env
}

#[cfg(unix)]
fn own_stdout_raw() -> u64 {
    use std::os::fd::AsRawFd;
    std::io::stdout().as_raw_fd() as u64
}

#[cfg(windows)]
fn own_stdout_raw() -> u64 {
    use std::os::windows::io::AsRawHandle;
    std::io::stdout().as_raw_handle() as u64
}

/// Writes through the raw handle or descriptor `target` (whatever it is in this process),
/// leaving it open.
#[cfg(unix)]
fn write_to_raw(target: u64, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::fd::FromRawFd;
    // SAFETY: the descriptor is only written to, and released without closing it.
    let mut file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_fd(target as i32) });
    file.write_all(bytes)
}

#[cfg(windows)]
fn write_to_raw(target: u64, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::windows::io::FromRawHandle;
    // SAFETY: the handle value is only written to, and released without closing it.
    let mut file = std::mem::ManuallyDrop::new(unsafe { std::fs::File::from_raw_handle(target as _) });
    file.write_all(bytes)
}
