//! Concurrent writers of one file never lose an update: edits from many threads (one shared
//! Kernel) and from many processes (the CLI) all end up in the file — with Linux's native file
//! strategies and with the portable ones macOS and Windows use (tests/portable.rs).

use std::collections::HashMap;
use std::sync::{Arc, Barrier};

use crate::common::{sha256_hex, Workspace};
use rein::kernel::{Call, Edit, EditOptions, Kernel, KernelError};
use serde_json::json;

fn anchor_file(workers: usize, edits_each: usize) -> String {
    let mut text = String::from("# shared file\n");
    for t in 0..workers {
        for i in 0..edits_each {
            text.push_str(&format!("anchor-{t}-{i}: old\n"));
        }
    }
    text
}

fn assert_all_edits_present(text: &str, workers: usize, edits_each: usize) {
    let mut missing = Vec::new();
    for t in 0..workers {
        for i in 0..edits_each {
            if !text.contains(&format!("anchor-{t}-{i}: new\n")) {
                missing.push(format!("anchor-{t}-{i}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "{} of {} edits were lost: {:?}",
        missing.len(),
        workers * edits_each,
        &missing[..missing.len().min(20)]
    );
    assert!(!text.contains(": old"), "an old line survived");
    assert_eq!(text.lines().count(), workers * edits_each + 1, "lines were added or dropped");
}

#[test]
fn threads_sharing_a_kernel_lose_no_edit() {
    threads_lose_no_edit(|ws| Kernel::new(&ws.ws, &ws.home).expect("kernel"));
}

#[test]
fn threads_sharing_a_portable_kernel_lose_no_edit() {
    threads_lose_no_edit(crate::portable::kernel);
}

fn threads_lose_no_edit(make: impl Fn(&Workspace) -> Kernel) {
    const THREADS: usize = 8;
    const EDITS: usize = 100;
    let ws = Workspace::new();
    let original = anchor_file(THREADS, EDITS);
    ws.file("shared.txt", &original);
    let kernel = Arc::new(make(&ws));
    let start = Arc::new(Barrier::new(THREADS));
    let workers: Vec<_> = (0..THREADS)
        .map(|t| {
            let kernel = Arc::clone(&kernel);
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                start.wait();
                (0..EDITS)
                    .map(|i| {
                        let edit = Edit {
                            old_string: format!("anchor-{t}-{i}: old"),
                            new_string: format!("anchor-{t}-{i}: new"),
                            replace_all: false,
                        };
                        let out = kernel
                            .edit(&Call::new(), "shared.txt", edit, &EditOptions::default())
                            .unwrap_or_else(|e| panic!("thread {t} edit {i}: {e} ({})", e.code()));
                        assert_eq!(out.replacements, 1);
                        (out.sha256_before, out.sha256_after)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let transitions: Vec<(String, String)> =
        workers.into_iter().flat_map(|w| w.join().expect("worker panicked")).collect();
    let text = String::from_utf8(ws.read("shared.txt")).unwrap();
    assert_all_edits_present(&text, THREADS, EDITS);
    // Every edit started from the result of exactly one other: the 800 edits form one chain
    // from the original to the final file, so none read a stale version.
    let next: HashMap<&str, &str> = transitions.iter().map(|(b, a)| (b.as_str(), a.as_str())).collect();
    assert_eq!(next.len(), transitions.len(), "two edits started from the same version");
    let mut at = sha256_hex(original.as_bytes());
    for step in 0..transitions.len() {
        at = next.get(at.as_str()).unwrap_or_else(|| panic!("chain broken after {step} edits")).to_string();
    }
    assert_eq!(at, sha256_hex(text.as_bytes()));
    assert!(crate::common::temp_debris(&ws.ws).is_empty());
}

#[test]
fn read_modify_write_with_expected_sha256_loses_no_increment() {
    read_modify_write_loses_no_increment(|ws| Kernel::new(&ws.ws, &ws.home).expect("kernel"));
}

#[test]
fn portable_read_modify_write_with_expected_sha256_loses_no_increment() {
    read_modify_write_loses_no_increment(crate::portable::kernel);
}

fn read_modify_write_loses_no_increment(make: impl Fn(&Workspace) -> Kernel) {
    const THREADS: usize = 4;
    const INCREMENTS: usize = 25;
    let ws = Workspace::new();
    ws.file("counter.txt", "0\n");
    let kernel = Arc::new(make(&ws));
    let start = Arc::new(Barrier::new(THREADS));
    let workers: Vec<_> = (0..THREADS)
        .map(|_| {
            let kernel = Arc::clone(&kernel);
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                start.wait();
                let mut stale = 0;
                for _ in 0..INCREMENTS {
                    loop {
                        let read = kernel.read_text(&Call::new(), "counter.txt").expect("read");
                        let n: u64 = read.text.trim().parse().expect("a number");
                        match kernel.write(
                            &Call::new(),
                            "counter.txt",
                            format!("{}\n", n + 1).as_bytes(),
                            Some(&read.sha256),
                        ) {
                            Ok(_) => break,
                            Err(KernelError::StaleFile { .. }) => stale += 1,
                            Err(e) => panic!("write: {e}"),
                        }
                    }
                }
                stale
            })
        })
        .collect();
    let stale: usize = workers.into_iter().map(|w| w.join().expect("worker panicked")).sum();
    assert_eq!(ws.read("counter.txt"), format!("{}\n", THREADS * INCREMENTS).as_bytes(), "({stale} stale retries)");
}

#[test]
fn processes_editing_one_file_lose_no_edit() {
    processes_lose_no_edit(|ws, args| {
        let result = ws.ok("edit_file", args);
        assert_eq!(result["replacements"], 1);
    });
}

/// Portable writer processes: their lock is the keyed lock file, not an flock on the folder.
#[test]
fn portable_processes_editing_one_file_lose_no_edit() {
    processes_lose_no_edit(|ws, args| {
        let mut child = crate::portable::writer(ws, "edit_file")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("portable writer");
        std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), args.to_string().as_bytes()).expect("args");
        let out = child.wait_with_output().expect("portable writer ran");
        assert!(out.status.success(), "portable edit {args} failed: {}", String::from_utf8_lossy(&out.stderr));
    });
}

fn processes_lose_no_edit(edit: fn(&Workspace, &serde_json::Value)) {
    const PROCESSES: usize = 4;
    const EDITS: usize = 25;
    let ws = Arc::new(Workspace::new());
    ws.file("shared.txt", anchor_file(PROCESSES, EDITS));
    let start = Arc::new(Barrier::new(PROCESSES));
    let workers: Vec<_> = (0..PROCESSES)
        .map(|t| {
            let ws = Arc::clone(&ws);
            let start = Arc::clone(&start);
            std::thread::spawn(move || {
                start.wait();
                for i in 0..EDITS {
                    let args = json!({
                        "path": "shared.txt",
                        "old_string": format!("anchor-{t}-{i}: old"),
                        "new_string": format!("anchor-{t}-{i}: new"),
                    });
                    edit(&ws, &args);
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("worker panicked");
    }
    let text = String::from_utf8(ws.read("shared.txt")).unwrap();
    assert_all_edits_present(&text, PROCESSES, EDITS);
    assert!(crate::common::temp_debris(&ws.ws).is_empty());
}

#[test]
fn processes_and_threads_editing_together_lose_no_edit() {
    const PROCESSES: usize = 2;
    const THREADS: usize = 2;
    const EDITS: usize = 20;
    let ws = Arc::new(Workspace::new());
    ws.file("shared.txt", anchor_file(PROCESSES + THREADS, EDITS));
    let kernel = Arc::new(Kernel::new(&ws.ws, &ws.home).expect("kernel"));
    let mut workers = Vec::new();
    for t in 0..PROCESSES + THREADS {
        let ws = Arc::clone(&ws);
        let kernel = Arc::clone(&kernel);
        workers.push(std::thread::spawn(move || {
            for i in 0..EDITS {
                let (old, new) = (format!("anchor-{t}-{i}: old"), format!("anchor-{t}-{i}: new"));
                if t < PROCESSES {
                    ws.ok("edit_file", &json!({"path": "shared.txt", "old_string": old, "new_string": new}));
                } else {
                    let edit = Edit { old_string: old, new_string: new, replace_all: false };
                    kernel.edit(&Call::new(), "shared.txt", edit, &EditOptions::default()).expect("library edit");
                }
            }
        }));
    }
    for w in workers {
        w.join().expect("worker panicked");
    }
    let text = String::from_utf8(ws.read("shared.txt")).unwrap();
    assert_all_edits_present(&text, PROCESSES + THREADS, EDITS);
}
