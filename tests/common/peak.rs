//! A rein command run to its end with its peak memory (Linux `wait4`'s `ru_maxrss`): for the
//! tests that hand rein an input far larger than any memory it should hold.

use std::path::Path;
use std::process::{Command, Stdio};

/// What a command did, and the most memory it held.
pub struct Peak {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub max_rss_mib: i64,
}

/// Runs `cmd` to its end, its output kept in files under `dir` (outside the workspace).
pub fn run(mut cmd: Command, dir: &Path) -> Peak {
    let (out, err) = (dir.join("peak.out"), dir.join("peak.err"));
    // Reaped by wait4 below, which also gives the child's peak memory.
    #[allow(clippy::zombie_processes)]
    let child = cmd
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let (mut status, mut usage) = (0, unsafe { std::mem::zeroed::<libc::rusage>() });
    // SAFETY: wait4(2) on our own child, with pointers to locals.
    let waited = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(waited, child.id() as i32, "wait4: {}", std::io::Error::last_os_error());
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    Peak {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        stdout: read(&out),
        stderr: read(&err),
        // ru_maxrss is in KiB on Linux (getrusage(2)).
        max_rss_mib: usage.ru_maxrss / 1024,
    }
}
