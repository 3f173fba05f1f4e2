//! A rein command run to its end with its peak memory (`ru_maxrss`): for the tests that hand
//! rein an input far larger than any memory it should hold.
//!
//! A small Python program starts rein and reads it. Linux folds the memory of the process that
//! forked a child into the child's `ru_maxrss` when it execs (the copied address space's
//! high-water mark): forked from the test process, which holds hundreds of MiB once many tests
//! have run, rein would be charged with them.

use std::path::Path;
use std::process::Command;

/// What a command did, and the most memory it held.
pub struct Peak {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub max_rss_mib: i64,
}

/// Runs the command to its end, rein's peak memory written to `argv[1]`, its exit code passed on.
const MEASURE: &str = r#"
import resource, subprocess, sys
done = subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL)
with open(sys.argv[1], "w") as out:
    out.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(done.returncode if done.returncode >= 0 else 128 - done.returncode)
"#;

/// Runs `cmd` (its program, arguments and environment) to its end, its output kept in files
/// under `dir` (outside the workspace).
pub fn run(cmd: Command, dir: &Path) -> Peak {
    let (out, err, peak) = (dir.join("peak.out"), dir.join("peak.err"), dir.join("peak.kib"));
    let mut measure = Command::new("python3");
    measure.arg("-c").arg(MEASURE).arg(&peak).arg(cmd.get_program()).args(cmd.get_args());
    for (name, value) in cmd.get_envs() {
        match value {
            Some(value) => measure.env(name, value),
            None => measure.env_remove(name),
        };
    }
    let status = measure
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .status()
        .unwrap_or_else(|e| panic!("python3 measures rein's peak memory and is needed here: {e}"));
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let kib: i64 = read(&peak).trim().parse().unwrap_or_else(|_| panic!("no peak measured: {}", read(&err)));
    Peak {
        code: status.code().filter(|code| *code < 128),
        stdout: read(&out),
        stderr: read(&err),
        // ru_maxrss is in KiB on Linux (getrusage(2)).
        max_rss_mib: kib / 1024,
    }
}
