//! An edit of a big file copies its unchanged bytes from the old file inside the kernel
//! (kernel/edit/write_change.rs), where a read lease shows no one could have written the file
//! since it was read. The attack: another program writes the file's prefix in place while
//! edits run, reopening the file it had open (`/proc/self/fd`), so it never reaches the file an
//! edit puts in place, opening it before the edit reads (no lease: nothing is copied) or during
//! the edit (the lease breaks: what was copied is written again from the bytes read). Either way
//! the file an edit leaves has exactly the sha256 it reports, and it is the edit of bytes whose
//! sha256 it reports as before.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use crate::common::{sha256_hex, Workspace};
use rein::kernel::{Call, Edit, EditOptions, Kernel};

const FILE_BYTES: usize = 2 << 20;
const EDITS: usize = 12;

#[test]
fn a_program_writing_the_prefix_during_edits_never_makes_an_edit_report_a_false_sha256() {
    let ws = Workspace::new();
    let line = "the quick brown fox jumps over the lazy dog\n";
    let mut text = line.repeat(FILE_BYTES / line.len());
    text.push_str("MARK-0\n");
    ws.file("big.txt", &text);
    let kernel = Kernel::new(&ws.ws, &ws.home).expect("kernel");
    let stop = Arc::new(AtomicBool::new(false));
    let writes = Arc::new(AtomicU64::new(0));
    let mut prefix_seen = std::collections::HashSet::new();
    for i in 0..EDITS {
        // The file as it is now, reopened by the writer through its descriptor: the writer
        // changes this inode only, which the edit replaces under big.txt.
        let now = File::open(ws.path("big.txt")).expect("open");
        let other = std::path::PathBuf::from(format!("/proc/self/fd/{}", now.as_raw_fd()));
        // Even edits: the writer holds the file open before the edit starts. Odd ones: it
        // opens it again for every write, during the edit.
        let held_before = (i % 2 == 0).then(|| File::options().write(true).open(&other).expect("open"));
        stop.store(false, Ordering::SeqCst);
        let writer = {
            let (stop, writes, other) = (stop.clone(), writes.clone(), other.clone());
            std::thread::spawn(move || {
                let mut n = 0u64;
                while !stop.load(Ordering::SeqCst) {
                    n += 1;
                    let stamp = format!("W{n:07}");
                    let file = match &held_before {
                        Some(file) => file.try_clone().expect("clone"),
                        None => File::options().write(true).open(&other).expect("open"),
                    };
                    file.write_all_at(stamp.as_bytes(), 8).expect("write the prefix");
                    writes.fetch_add(1, Ordering::SeqCst);
                }
            })
        };
        while writes.load(Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        let edit =
            Edit { old_string: format!("MARK-{i}\n"), new_string: format!("MARK-{}\n", i + 1), replace_all: false };
        let out = kernel.edit(&Call::new(), "big.txt", edit, &EditOptions::default()).expect("the edit applies");
        stop.store(true, Ordering::SeqCst);
        writer.join().expect("the writer");
        let after = ws.read("big.txt");
        assert_eq!(sha256_hex(&after), out.sha256_after, "edit {i}: the file is not what the edit reports");
        let marker = format!("MARK-{}\n", i + 1);
        assert!(after.ends_with(marker.as_bytes()), "edit {i}: the edit is not in the file");
        let mut read = after[..after.len() - marker.len()].to_vec();
        read.extend_from_slice(format!("MARK-{i}\n").as_bytes());
        assert_eq!(sha256_hex(&read), out.sha256_before, "edit {i}: the edit is not of the bytes it reports");
        prefix_seen.insert(after[..16].to_vec());
        drop(now);
    }
    assert!(prefix_seen.len() > 1, "the writer's changes never reached an edit: the race was not run");
}
