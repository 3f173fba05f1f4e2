//! A writer killed at any moment leaves the target with exactly its old bytes or exactly the
//! new ones, and the next successful write leaves no temp debris behind.
//!
//! Each iteration runs `rein call write_file -` (and, in a second test, a writer process using
//! the portable strategies macOS and Windows use: named temp file, rename, folder fsync, a
//! keyed lock file — tests/portable.rs) with a multi-MiB content and SIGKILLs it at a
//! pseudo-random moment (seeded by the iteration, so a failure names a reproducible seed). Most
//! kills are aimed at the write itself: the test waits until the writer has a file open in the
//! workspace (seen in /proc/PID/fd), then waits a random part of the measured write window.

use std::fs::File;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use crate::common::{stamp, temp_debris, Workspace};
use serde_json::json;

const ITERATIONS: u64 = 200;
const CONTENT_BYTES: usize = 4 * 1024 * 1024;
/// Every so many kills, a write runs to completion and must sweep all debris.
const CLEAN_WRITE_EVERY: u64 = 25;
/// Bound on any one wait for the writer.
pub(crate) const WAIT_LIMIT: Duration = Duration::from_secs(30);
pub(crate) const POLL: Duration = Duration::from_micros(100);

/// splitmix64: small, fast, good enough to spread kill moments.
pub(crate) struct Prng(u64);

impl Prng {
    pub(crate) fn new(seed: u64) -> Prng {
        Prng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    pub(crate) fn duration_below(&mut self, max: Duration) -> Duration {
        Duration::from_micros(self.below(max.as_micros() as u64 + 1))
    }
}

/// Two contents of different lengths, each a valid text file.
fn contents() -> (Vec<u8>, Vec<u8>) {
    let line_a = "AAAA old-or-new content A, line of text\n";
    let line_b = "BBBBBBB the other content B, a longer line of text\n";
    let a = line_a.repeat(CONTENT_BYTES / line_a.len());
    let b = line_b.repeat(CONTENT_BYTES / line_b.len() + 7);
    (a.into_bytes(), b.into_bytes())
}

/// Which writer is killed: the `rein` binary (Linux's native strategies), or a process using
/// the portable ones.
#[derive(Clone, Copy, Debug)]
enum How {
    Cli,
    Portable,
}

struct Writer<'a> {
    ws: &'a Workspace,
    how: How,
    target: PathBuf,
    args_a: PathBuf,
    args_b: PathBuf,
}

impl Writer<'_> {
    fn spawn(&self, args_file: &Path) -> Child {
        let mut cmd = match self.how {
            How::Cli => self.ws.command(&["call", "write_file", "-"]),
            How::Portable => crate::portable::writer(self.ws, "write_file"),
        };
        cmd.stdin(File::open(args_file).expect("args file"));
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
        cmd.spawn().expect("spawn rein")
    }

    fn write_to_completion(&self, args_file: &Path) {
        let mut child = self.spawn(args_file);
        let status = wait_bounded(&mut child);
        assert!(status.success(), "an unkilled write_file failed: {status:?}");
    }
}

pub(crate) fn wait_bounded(child: &mut Child) -> ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().expect("try_wait") {
            return status;
        }
        if started.elapsed() > WAIT_LIMIT {
            let _ = child.kill();
            panic!("rein write_file did not finish within {WAIT_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Whether the process has a file open inside `dir` (which ends with '/'): the temp file of an
/// atomic write (`dir/#123 (deleted)` for O_TMPFILE, or a named one), or the target itself if
/// a writer wrote in place. The directory itself (its lock) does not count.
fn has_file_open_in(pid: u32, dir: &str) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target.to_string_lossy().starts_with(dir)))
}

/// Polls until the writer has a file open in `dir`; `None` when it exited first.
fn await_file_open(child: &mut Child, dir: &str) -> Option<Duration> {
    let started = Instant::now();
    loop {
        if child.try_wait().expect("try_wait").is_some() {
            return None;
        }
        if has_file_open_in(child.id(), dir) {
            return Some(started.elapsed());
        }
        if started.elapsed() > WAIT_LIMIT {
            let _ = child.kill();
            panic!("rein write_file did not open a file in {dir} within {WAIT_LIMIT:?}");
        }
        std::thread::sleep(POLL);
    }
}

/// How long after the writer opens its file the target changes (the shortest seen, so kills
/// aimed inside it mostly land before the rename), and how long a whole call takes (median).
fn measure_write_window(w: &Writer, dir: &str) -> (Duration, Duration) {
    let mut windows = Vec::new();
    let mut totals = Vec::new();
    for args in [&w.args_b, &w.args_a, &w.args_b, &w.args_a, &w.args_b] {
        let before = stamp(&w.target);
        let started = Instant::now();
        let mut child = w.spawn(args);
        let opened = await_file_open(&mut child, dir).expect("a write opens a file");
        let committed = loop {
            if std::fs::metadata(&w.target).is_ok() && stamp(&w.target) != before {
                break started.elapsed();
            }
            assert!(started.elapsed() < WAIT_LIMIT, "target never changed");
            std::thread::sleep(POLL);
        };
        assert!(wait_bounded(&mut child).success());
        windows.push(committed.saturating_sub(opened));
        totals.push(started.elapsed());
    }
    windows.sort();
    totals.sort();
    (windows[0], totals[totals.len() / 2])
}

#[derive(Default, Debug)]
struct Tally {
    killed_before_commit: u32,
    killed_after_commit: u32,
    finished_before_kill: u32,
    aimed_at_write: u32,
    debris_seen_after_kill: u32,
}

#[test]
fn killed_writes_leave_old_or_new_bytes_and_no_debris() {
    killed_writes(How::Cli, ITERATIONS);
}

/// The named temp files a killed portable writer leaves are swept by the next write.
#[test]
fn killed_portable_writes_leave_old_or_new_bytes_and_no_debris() {
    killed_writes(How::Portable, ITERATIONS / 2);
}

fn killed_writes(how: How, iterations: u64) {
    let started = Instant::now();
    let ws = Workspace::new();
    let (a, b) = contents();
    let target = ws.path("target.txt");
    let args_a = ws.root.join("args_a.json");
    let args_b = ws.root.join("args_b.json");
    let content = |bytes: &[u8]| String::from_utf8(bytes.to_vec()).unwrap();
    std::fs::write(&args_a, json!({"path": "target.txt", "content": content(&a)}).to_string()).unwrap();
    std::fs::write(&args_b, json!({"path": "target.txt", "content": content(&b)}).to_string()).unwrap();
    let writer = Writer { ws: &ws, how, target: target.clone(), args_a, args_b };
    writer.write_to_completion(&writer.args_a);
    assert_eq!(std::fs::read(&target).unwrap(), a);

    let dir = format!("{}/", ws.ws.display());
    let (window, total) = measure_write_window(&writer, &dir);
    // Aimed kills land within the shortest window seen, so most hit the write itself; the
    // ones that hit a faster write land just after its rename.
    let aim = window;
    let mut tally = Tally::default();
    for i in 0..iterations {
        let current = std::fs::read(&target).unwrap();
        let (old, new, args) = if current == a {
            (&a, &b, &writer.args_b)
        } else if current == b {
            (&b, &a, &writer.args_a)
        } else {
            panic!("iteration {i}: target holds neither content ({} bytes)", current.len());
        };
        let mut rng = Prng::new(i);
        let mut child = writer.spawn(args);
        if rng.below(4) == 0 {
            std::thread::sleep(rng.duration_below(total));
        } else if await_file_open(&mut child, &dir).is_some() {
            tally.aimed_at_write += 1;
            std::thread::sleep(rng.duration_below(aim));
        }
        let _ = child.kill();
        let status = wait_bounded(&mut child);
        let after = std::fs::read(&target).unwrap();
        match (status.signal(), after == *old, after == *new) {
            (Some(libc::SIGKILL), true, false) => tally.killed_before_commit += 1,
            (Some(libc::SIGKILL), false, true) => tally.killed_after_commit += 1,
            (None, false, true) if status.success() => tally.finished_before_kill += 1,
            _ => panic!(
                "iteration {i} (seed {i}): status {status:?}, target has {} bytes; old {} bytes, new {} bytes; \
                 first difference from old at {:?}, from new at {:?}",
                after.len(),
                old.len(),
                new.len(),
                first_difference(&after, old),
                first_difference(&after, new),
            ),
        }
        if !temp_debris(&ws.ws).is_empty() {
            tally.debris_seen_after_kill += 1;
        }
        if (i + 1) % CLEAN_WRITE_EVERY == 0 {
            let args = if after == a { &writer.args_b } else { &writer.args_a };
            writer.write_to_completion(args);
            let debris = temp_debris(&ws.ws);
            assert!(debris.is_empty(), "iteration {i}: a successful write left temp debris: {debris:?}");
        }
    }
    writer.write_to_completion(&writer.args_a);
    assert_eq!(std::fs::read(&target).unwrap(), a);
    let names: Vec<_> =
        std::fs::read_dir(&ws.ws).unwrap().map(|e| e.unwrap().file_name()).filter(|n| n != ".rein").collect();
    assert_eq!(names, ["target.txt"], "only the target (and rein's journal) may remain in the workspace");
    println!(
        "{how:?}: {iterations} kills in {:.1?} (write window {window:.1?}, whole call {total:.1?}): {tally:?}",
        started.elapsed()
    );
    let landed = tally.killed_before_commit + tally.killed_after_commit;
    assert!(landed > iterations as u32 / 2, "most kills should land while rein runs: {tally:?}");
}

fn first_difference(x: &[u8], y: &[u8]) -> Option<usize> {
    x.iter().zip(y).position(|(p, q)| p != q).or((x.len() != y.len()).then_some(x.len().min(y.len())))
}
