//! A folder swapped with a link to outside while rein writes and edits in it: nothing ever
//! lands outside — no file, no temp file — and every refusal carries a code.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rein::kernel::{Call, Edit, EditOptions, Kernel};

use crate::common::Workspace;

#[test]
fn a_folder_swapped_for_a_link_never_lets_a_write_out() {
    let ws = Workspace::new();
    let outside = ws.root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(ws.path("d")).unwrap();
    std::os::unix::fs::symlink(&outside, ws.path("swap")).unwrap();
    ws.file("d/edit.txt", "counter 0\n");
    std::fs::write(outside.join("edit.txt"), "counter 0\n").unwrap();
    let kernel = Arc::new(Kernel::new(&ws.ws, &ws.home).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, d, swap) = (stop.clone(), ws.path("d"), ws.path("swap"));
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    &d,
                    rustix::fs::CWD,
                    &swap,
                    rustix::fs::RenameFlags::EXCHANGE,
                )
                .expect("renameat2 RENAME_EXCHANGE");
                swaps += 1;
            }
            swaps
        })
    };
    let call = Call::new();
    let (mut written, mut refused) = (0, 0);
    for i in 0..3000 {
        let result = if i % 3 == 0 {
            let edit = Edit { old_string: "counter ".into(), new_string: "counter  ".into(), replace_all: false };
            kernel.edit(&call, "d/edit.txt", edit, &EditOptions::default()).map(drop)
        } else {
            kernel.write(&call, &format!("d/f{i}.txt"), b"inside\n", None).map(drop)
        };
        match result {
            Ok(()) => written += 1,
            Err(err) => {
                let failure = rein::Failure::from(err);
                assert!(!failure.message.is_empty());
                refused += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    let landed: Vec<String> = std::fs::read_dir(&outside)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "edit.txt")
        .collect();
    assert!(landed.is_empty(), "{} files landed outside: {landed:?}", landed.len());
    assert_eq!(
        std::fs::read_to_string(outside.join("edit.txt")).unwrap(),
        "counter 0\n",
        "the outside file is untouched"
    );
    assert!(
        swaps > 100 && written > 0 && refused > 0,
        "the race ran: {swaps} swaps, {written} written, {refused} refused"
    );
}

/// The workspace itself renamed and its name made a link to another folder while rein runs (a
/// person moving the project; an agent's programs may not write the workspace's parent).
/// Paths inside still resolve from the workspace's real path taken at start, so they still
/// class as the workspace; every file operation goes through the folder held open since then
/// — the moved workspace — and nothing is read from or lands in the link's target, protected
/// names stay protected.
#[test]
fn a_workspace_whose_name_becomes_a_link_keeps_every_file_operation_in_the_folder_held_open() {
    let ws = Workspace::new();
    ws.file("a.txt", "held\n");
    let kernel = Kernel::new(&ws.ws, &ws.home).unwrap();
    let (moved, target) = (ws.root.join("moved"), ws.root.join("target"));
    std::fs::create_dir_all(target.join(".git")).unwrap();
    std::fs::write(target.join("a.txt"), "target\n").unwrap();
    std::fs::rename(&ws.ws, &moved).unwrap();
    std::os::unix::fs::symlink(&target, &ws.ws).unwrap();

    let call = Call::new();
    let read = kernel.read(&call, "a.txt", Default::default()).unwrap();
    assert!(read.content.contains("held"), "read from the held workspace: {}", read.content);
    kernel.write(&call, "new.txt", b"new\n", None).unwrap();
    let edit = Edit { old_string: "held".into(), new_string: "edited".into(), replace_all: false };
    kernel.edit(&call, "a.txt", edit, &EditOptions::default()).unwrap();
    let protected = kernel.write(&call, ".git/config", b"[core]\n", None).unwrap_err();
    let protected = rein::Failure::from(protected);
    assert_eq!(protected.details["class"], "protected", "{protected:?}");

    assert_eq!(std::fs::read_to_string(moved.join("new.txt")).unwrap(), "new\n");
    assert_eq!(std::fs::read_to_string(moved.join("a.txt")).unwrap(), "edited\n");
    let mut in_target: Vec<String> =
        std::fs::read_dir(&target).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    in_target.sort();
    assert_eq!(in_target, [".git", "a.txt"], "nothing landed in the link's target");
    assert_eq!(std::fs::read_to_string(target.join("a.txt")).unwrap(), "target\n");
    assert_eq!(std::fs::read_dir(target.join(".git")).unwrap().count(), 0);
}
