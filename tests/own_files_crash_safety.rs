//! rein's own files, killed mid-write, hold their old bytes or their new ones, never a torn
//! mix: the approved copy of rein.toml in home (a torn one could parse as fewer deny rules),
//! and a pre-image copied from another device (a torn one would sit under a sha256 it does not
//! have: later writes trust it and undo refuses it).
//!
//! As in `write_crash_safety`, each kill is aimed at the write itself: the test waits until
//! rein has a file open for writing in the folder, then a pseudo-random part of the time such a
//! write takes (seeded by the iteration, so a failure names a reproducible seed).

use std::os::unix::fs::MetadataExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::common::{sha256_hex, Workspace};
use crate::write_crash_safety::{wait_bounded, Prng, POLL, WAIT_LIMIT};

const ITERATIONS: u64 = 24;

/// Where a kill is aimed: while rein has a file open for writing in `dir` (a temp file, or the
/// target written in place), except one named `except`.
#[derive(Clone, Copy)]
struct Aim<'a> {
    dir: &'a Path,
    except: Option<&'a str>,
}

/// Whether process `pid` writes where `aim` says.
fn writes_in(pid: u32, aim: Aim) -> bool {
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else { return false };
    fds.flatten().any(|fd| {
        let in_dir = std::fs::read_link(fd.path())
            .is_ok_and(|target| target.starts_with(aim.dir) && aim.except.is_none_or(|name| !target.ends_with(name)));
        let fdinfo = format!("/proc/{pid}/fdinfo/{}", fd.file_name().to_string_lossy());
        let flags = std::fs::read_to_string(fdinfo).ok().and_then(|info| {
            let line = info.lines().find(|l| l.starts_with("flags:"))?;
            u32::from_str_radix(line.trim_start_matches("flags:").trim(), 8).ok()
        });
        in_dir && flags.is_some_and(|f| f & 0o3 != 0)
    })
}

/// Polls until `child` writes where `aim` says; false when it exited first.
fn await_write(child: &mut Child, aim: Aim) -> bool {
    let started = Instant::now();
    loop {
        if child.try_wait().expect("try_wait").is_some() {
            return false;
        }
        if writes_in(child.id(), aim) {
            return true;
        }
        if started.elapsed() > WAIT_LIMIT {
            let _ = child.kill();
            panic!("rein did not write in {} within {WAIT_LIMIT:?}", aim.dir.display());
        }
        std::thread::sleep(POLL);
    }
}

/// How long rein keeps a file open for writing where `aim` says (the shortest of the runs that
/// were seen writing: a fast write can finish between two polls), so kills aimed inside it
/// land mid-write.
fn write_window(mut spawn: impl FnMut(u64) -> Child, aim: Aim) -> Duration {
    let mut windows = Vec::new();
    for i in 0..6 {
        let mut child = spawn(1000 + i);
        if await_write(&mut child, aim) {
            let opened = Instant::now();
            while writes_in(child.id(), aim) {
                std::thread::sleep(POLL);
            }
            windows.push(opened.elapsed());
        }
        assert!(wait_bounded(&mut child).success(), "an unkilled run failed");
    }
    assert!(windows.len() >= 2, "rein was seen writing in {} only {} times in 6", aim.dir.display(), windows.len());
    windows.into_iter().min().expect("runs seen writing")
}

/// Kills `child` while it writes where `aim` says (three kills in four aimed inside `window`).
fn kill_mid_write(mut child: Child, aim: Aim, window: Duration, seed: u64) -> Option<i32> {
    let mut rng = Prng::new(seed);
    if rng.below(4) == 0 || await_write(&mut child, aim) {
        std::thread::sleep(rng.duration_below(window));
    }
    let _ = child.kill();
    wait_bounded(&mut child).signal()
}

/// rein.toml adding one more deny rule each iteration (so rein records it as approved at
/// once), padded with comments to a size whose write takes a while.
fn rein_toml(iteration: u64) -> String {
    let mut text = String::new();
    for rule in 0..=iteration {
        text.push_str(&format!("[[deny]]\nprogram = \"hdc\"\nargs = [\"shell\", \"rule{rule}\"]\n"));
    }
    let pad = format!("# iteration {iteration}: padding so the approved copy takes a while to write\n");
    text.push_str(&pad.repeat(4 * 1024 * 1024 / pad.len()));
    text
}

/// The folder in home holding this workspace's approved policy copies.
fn policy_store(ws: &Workspace) -> PathBuf {
    let stores: Vec<PathBuf> =
        std::fs::read_dir(ws.home.join("policy")).expect("policy store").flatten().map(|e| e.path()).collect();
    assert_eq!(stores.len(), 1, "{stores:?}");
    stores[0].clone()
}

#[test]
fn a_killed_approval_record_leaves_the_old_or_the_new_copy() {
    let ws = Workspace::new();
    let tools = |ws: &Workspace| {
        let mut cmd = ws.command(&["tools"]);
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
        cmd
    };
    let mut texts = vec![rein_toml(0)];
    std::fs::write(ws.path("rein.toml"), &texts[0]).unwrap();
    assert!(tools(&ws).status().unwrap().success());
    let store = policy_store(&ws);
    let copy = store.join("rein.toml");
    // Aimed at the copy, not the small note of which workspace the store is for.
    let aim = Aim { dir: &store, except: Some("workspace") };
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), texts[0], "a rein.toml that only denies is approved at once");
    let window = write_window(
        |i| {
            std::fs::write(ws.path("rein.toml"), rein_toml(i)).unwrap();
            tools(&ws).spawn().unwrap()
        },
        aim,
    );
    std::fs::write(ws.path("rein.toml"), &texts[0]).unwrap();
    std::fs::write(&copy, &texts[0]).unwrap();
    let mut killed = 0;
    for i in 1..=ITERATIONS {
        texts.push(rein_toml(i));
        std::fs::write(ws.path("rein.toml"), &texts[i as usize]).unwrap();
        if kill_mid_write(tools(&ws).spawn().unwrap(), aim, window, i) == Some(libc::SIGKILL) {
            killed += 1;
        }
        let now =
            std::fs::read_to_string(&copy).unwrap_or_else(|e| panic!("iteration {i}: the approved copy is gone: {e}"));
        assert!(
            texts.contains(&now),
            "iteration {i} (seed {i}): the approved copy is torn ({} bytes; the last two texts have {} and {})",
            now.len(),
            texts[i as usize - 1].len(),
            texts[i as usize].len()
        );
    }
    assert!(killed > ITERATIONS / 2, "most kills should land while rein runs ({killed} of {ITERATIONS})");
}

/// A file on another device than the workspace (an outside path a person approved, here with
/// --yes) cannot be hard-linked into `.rein/journal/pre/`: its old content is copied there.
#[test]
fn a_killed_preimage_copy_leaves_no_torn_preimage() {
    let ws = Workspace::new();
    let other_device = tempfile::tempdir_in("/dev/shm").expect("a folder in /dev/shm");
    let device = |p: &Path| std::fs::metadata(p).unwrap().dev();
    assert_ne!(device(other_device.path()), device(&ws.ws), "/dev/shm must be another filesystem than the workspace");
    let target = other_device.path().join("big.txt");
    let args = ws.root.join("args.json");
    std::fs::write(&args, json!({"path": target, "content": "new\n"}).to_string()).unwrap();
    let write = |ws: &Workspace, iteration: u64| {
        let line = format!("iteration {iteration}: the old content, kept for undo\n");
        std::fs::write(&target, line.repeat(8 * 1024 * 1024 / line.len())).unwrap();
        let mut cmd: Command = ws.command(&["--yes", "call", "write_file", "-"]);
        cmd.stdin(std::fs::File::open(&args).unwrap()).stdout(Stdio::null()).stderr(Stdio::null());
        cmd.spawn().unwrap()
    };
    let pre = ws.ws.join(".rein/journal/pre");
    let aim = Aim { dir: &pre, except: None };
    let window = write_window(|i| write(&ws, i), aim);
    assert!(pre.read_dir().unwrap().count() >= 3, "the old contents were kept");
    let mut killed = 0;
    for i in 0..ITERATIONS {
        if kill_mid_write(write(&ws, i), aim, window, i) == Some(libc::SIGKILL) {
            killed += 1;
        }
        for entry in pre.read_dir().unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.len() == 64 && name.bytes().all(|b| b.is_ascii_hexdigit()) {
                let kept = std::fs::read(entry.path()).unwrap();
                assert_eq!(
                    sha256_hex(&kept),
                    name,
                    "iteration {i} (seed {i}): a torn pre-image ({} bytes)",
                    kept.len()
                );
            }
        }
    }
    assert!(killed > ITERATIONS / 2, "most kills should land while rein runs ({killed} of {ITERATIONS})");
}
