//! Inputs an agent can make huge in a moment (a build script's sparse file): rein's memory
//! stays far below them. Each test runs rein as a process and reads its peak memory
//! (`common::peak`); rein itself needs about 27 MiB.

use serde_json::json;

use crate::common::{peak, Workspace};

/// A large package staged for an install: rein read it whole into memory before writing its
/// copy, up to 4 GiB a package and a call — far past a call's 64 MiB memory ceiling, and four
/// calls side by side could take a machine's memory. The copy streams. The package is 256 MiB,
/// not more: its copy is real bytes on the disk the tests run on (~27 MiB peak with the
/// stream, ~800 MiB when read whole).
#[test]
fn a_large_package_is_staged_without_being_held_in_memory() {
    const SIZE: u64 = 256 << 20;
    let ws = Workspace::new();
    ws.file("entry/placeholder.txt", "");
    std::fs::File::create(ws.path("entry/big.hap")).unwrap().set_len(SIZE).unwrap();
    ws.file(
        "tools/stage.lua",
        "return { name = 'stage', description = 'd', run = function() return rein.fs.stage_packages({ 'entry/big.hap' }) end }",
    );
    let run = peak::run(ws.command(&["call", "stage", "{}"]), &ws.root);
    assert_eq!(run.code, Some(0), "staging failed:\n{}\n{}", run.stdout, run.stderr);
    let staged = std::fs::read_dir(ws.path(".rein/install")).unwrap().next().unwrap().unwrap().path();
    assert_eq!(std::fs::metadata(staged.join("big.hap")).unwrap().len(), SIZE);
    assert!(run.max_rss_mib < 128, "rein's peak memory was {} MiB for a 256 MiB package", run.max_rss_mib);
}

/// A file of one line of 256 MiB: text at its start (all a read looks at to tell text from
/// binary), a hole after (zeros, no newline), then a short second line — made in a moment,
/// no disk used. A ranged read of the long line joined it whole in memory, up to the ranged
/// read's 4 GiB cap; it is decoded in parts now, keeping what it shows. Reading the line
/// after it holds nothing of it either. (rein in a debug build takes ~8 s a read here.)
#[test]
fn a_line_of_a_quarter_gigabyte_is_read_without_being_held_in_memory() {
    const SIZE: u64 = 256 << 20;
    let ws = Workspace::new();
    ws.file("one.txt", "x".repeat(8192));
    let file = std::fs::OpenOptions::new().append(true).open(ws.path("one.txt")).unwrap();
    file.set_len(SIZE).unwrap();
    std::io::Write::write_all(&mut &file, b"\nsecond\n").unwrap();
    drop(file);
    for (offset, shown) in
        [(1, format!("{} … [line cut: {SIZE} chars in all]", "x".repeat(2000))), (2, "second".into())]
    {
        let args = json!({ "path": "one.txt", "offset": offset, "limit": 1 }).to_string();
        let run = peak::run(ws.command(&["call", "read_file", &args]), &ws.root);
        assert_eq!(run.code, Some(0), "read failed:\n{}\n{}", run.stdout, run.stderr);
        let out: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        let content = out["result"]["content"].as_str().unwrap();
        assert_eq!(content, format!("{offset:>6}\t{shown}"));
        assert_eq!(
            (out["result"]["total_lines"].as_u64(), out["result"]["truncated"].as_bool()),
            (Some(2), Some(offset == 1))
        );
        assert!(run.max_rss_mib < 128, "rein's peak memory was {} MiB reading line {offset}", run.max_rss_mib);
    }
}

/// build-profile.json5 (which an agent can write) made a link to `/dev/zero`, a link to a FIFO,
/// or a FIFO itself, and a script asks for a signing config's status (rein reads the profile
/// for the keystore it names). rein read it by name, following links, with no bound: a FIFO
/// hung the call waiting for a writer, `/dev/zero` was read until memory ran out. Now it is
/// read as every workspace file is (no link, a regular file, bounded): each is refused, named,
/// within the call's time and in rein's usual memory. (The address space is bounded to 4 GiB,
/// so that the old behaviour fails this test, not the machine.)
#[test]
fn a_build_profile_that_is_a_device_or_a_fifo_is_refused_without_hanging_or_filling_memory() {
    let ws = Workspace::new();
    ws.file(
        "tools/status.lua",
        "return { name = 'status', description = 'd', run = function() return rein.proc.signing_status('default') end }",
    );
    let fifo = ws.root.join("fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let profile = ws.path("build-profile.json5");
    for make in ["link to /dev/zero", "link to a FIFO", "a FIFO"] {
        let _ = std::fs::remove_file(&profile);
        match make {
            "link to /dev/zero" => std::os::unix::fs::symlink("/dev/zero", &profile).unwrap(),
            "link to a FIFO" => std::os::unix::fs::symlink(&fifo, &profile).unwrap(),
            _ => assert!(std::process::Command::new("mkfifo").arg(&profile).status().unwrap().success()),
        }
        let mut cmd = ws.command(&["call", "status", "{}"]);
        bound_address_space(&mut cmd, 4 << 30);
        let run = crate::common::output_within(&mut cmd, None, std::time::Duration::from_secs(60));
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert_eq!(run.status.code(), Some(0), "{make}: {stdout}\n{}", String::from_utf8_lossy(&run.stderr));
        let out: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        // The status answers; the keystore is unknown, the profile being unusable.
        assert_eq!(out["result"]["config"], "default", "{make}: {out}");
        assert!(out["result"]["keystore"].is_null(), "{make}: {out}");
    }
}

/// Bounds the address space of the process `cmd` starts.
fn bound_address_space(cmd: &mut std::process::Command, bytes: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit(2) is async-signal-safe, the only call between fork and exec here.
    unsafe {
        cmd.pre_exec(move || {
            let limit = libc::rlimit { rlim_cur: bytes, rlim_max: bytes };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        });
    }
}
