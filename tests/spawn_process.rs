//! The process runner under the kernel: deadlines stop the whole process group, output is
//! bounded, the environment is exactly what was given, lines stream as they come.
//!
//! The process tree here is the Unix one (`kernel/platform/tree_unix.rs`), which macOS runs
//! too; Windows' Job Objects (`tree_windows.rs`) have no Linux stand-in and are type-checked
//! only (docs/src/platforms.md).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rein::kernel::process::spawn::{run, SpawnRequest, Stream};

fn sh(script: &str, timeout: Duration) -> SpawnRequest {
    SpawnRequest {
        program: PathBuf::from("/bin/sh"),
        args: vec!["-c".into(), script.into()],
        cwd: std::env::temp_dir(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        stdin: None,
        timeout,
        output_limit: 1024 * 1024,
        restricted: None,
    }
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(f)
}

fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only probes for existence.
    unsafe { libc::kill(pid, 0) == 0 }
}

/// Waits (bounded) until `pid` is gone; reaped or a zombie of init both count as gone.
fn wait_gone(pid: i32, within: Duration) -> bool {
    let until = Instant::now() + within;
    while Instant::now() < until {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        if !alive(pid) || status.contains("State:\tZ") {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn a_program_past_its_deadline_is_killed_with_its_children() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("child.pid");
    let script = format!("sleep 1000 & echo $! > {}; echo started; sleep 1000", pidfile.display());
    let started = Instant::now();
    let out = block_on(run(&sh(&script, Duration::from_millis(500)), &mut |_, _| Ok(()))).unwrap();
    assert!(out.timed_out);
    assert_eq!(out.stdout.trim(), "started", "output so far is kept");
    assert!(started.elapsed() < Duration::from_secs(10), "took {:?}", started.elapsed());
    let child: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
    assert!(wait_gone(child, Duration::from_secs(5)), "the background child {child} survived the timeout");
}

#[test]
fn a_program_ignoring_term_is_killed() {
    let out =
        block_on(run(&sh("trap '' TERM; echo ready; sleep 1000", Duration::from_millis(300)), &mut |_, _| Ok(())))
            .unwrap();
    assert!(out.timed_out);
    assert_eq!(out.signal, Some(libc::SIGKILL));
}

#[test]
fn huge_output_keeps_memory_bounded_and_returns_head_and_tail() {
    let before = peak_rss_kib();
    let script = "echo FIRST-LINE; head -c 104857600 /dev/zero | tr '\\0' 'x'; echo; echo LAST-LINE";
    let mut lines = 0usize;
    let out = block_on(run(&sh(script, Duration::from_secs(120)), &mut |_, _| {
        lines += 1;
        Ok(())
    }))
    .unwrap();
    assert_eq!(out.code, Some(0));
    assert!(out.truncated);
    assert!(out.stdout.starts_with("FIRST-LINE\n"));
    assert!(out.stdout.trim_end().ends_with("LAST-LINE"));
    assert!(out.stdout.len() < 1024 * 1024 + 200, "kept {} bytes", out.stdout.len());
    let total = 11 + 104_857_600 + 1 + 10;
    assert_eq!(out.dropped_bytes as usize + out.stdout.len() - marker_len(&out.stdout), total);
    let grown = peak_rss_kib().saturating_sub(before);
    assert!(grown < 64 * 1024, "peak memory grew by {grown} KiB while reading 100 MiB");
    assert!(lines >= 3, "long lines are streamed in pieces, saw {lines}");
}

fn marker_len(text: &str) -> usize {
    let start = text.find("\n… [").unwrap();
    let end = text[start..].find("] …\n").unwrap() + start + "] …\n".len();
    end - start
}

fn peak_rss_kib() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn the_environment_is_exactly_the_given_one() {
    let mut request = sh("env | sort", Duration::from_secs(10));
    request.env.push(("LANG".into(), "C.UTF-8".into()));
    let out = block_on(run(&request, &mut |_, _| Ok(()))).unwrap();
    let names: Vec<&str> = out
        .stdout
        .lines()
        .map(|l| l.split('=').next().unwrap())
        .filter(|n| *n != "PWD" && *n != "SHLVL" && *n != "_")
        .collect();
    assert_eq!(names, ["LANG", "PATH"]);
}

#[test]
fn lines_stream_in_order_and_stdin_is_passed() {
    let mut request = sh("while read l; do echo \"out:$l\"; echo \"err:$l\" >&2; done", Duration::from_secs(10));
    request.stdin = Some(b"a\nb\r\nc".to_vec());
    let mut seen = Vec::new();
    let out = block_on(run(&request, &mut |stream, line| {
        seen.push(format!("{stream:?}:{line}"));
        Ok(())
    }))
    .unwrap();
    assert_eq!(out.code, Some(0));
    assert_eq!(out.stdout, "out:a\nout:b\r\n");
    let stdout_lines: Vec<&String> = seen.iter().filter(|s| s.starts_with("Stdout")).collect();
    assert_eq!(stdout_lines, ["Stdout:out:a", "Stdout:out:b"], "CR of a CRLF line is not part of the line");
    assert!(seen.contains(&"Stderr:err:a".to_string()));
}

#[test]
fn stdin_is_null_unless_given() {
    let out = block_on(run(&sh("cat; echo done", Duration::from_secs(10)), &mut |_, _| Ok(()))).unwrap();
    assert_eq!(out.stdout, "done\n");
}

#[test]
fn a_stray_grandchild_holding_the_pipes_does_not_hang_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("stray.pid");
    let script = format!("sleep 1000 & echo $! > {}; echo bye", pidfile.display());
    let started = Instant::now();
    let out = block_on(run(&sh(&script, Duration::from_secs(60)), &mut |_, _| Ok(()))).unwrap();
    assert_eq!(out.code, Some(0));
    assert!(!out.timed_out);
    assert!(started.elapsed() < Duration::from_secs(20));
    let stray: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
    assert!(wait_gone(stray, Duration::from_secs(5)), "the stray grandchild {stray} was left running");
}

#[test]
fn a_callback_error_stops_the_program() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("p.pid");
    let script = format!("echo $$ > {}; while true; do echo tick; sleep 0.05; done", pidfile.display());
    let result = block_on(run(&sh(&script, Duration::from_secs(60)), &mut |stream, _| {
        if stream == Stream::Stdout {
            Err(rein::kernel::process::spawn::StopReason("enough".into()))
        } else {
            Ok(())
        }
    }));
    assert!(matches!(result, Err(rein::kernel::process::spawn::SpawnError::Stopped(ref why)) if why.0 == "enough"));
    let pid: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
    assert!(wait_gone(pid, Duration::from_secs(5)));
}
