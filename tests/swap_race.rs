//! A folder swapped with a link to outside while rein writes and edits in it: nothing ever
//! lands outside — no file, no temp file — and every refusal carries a code.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use rein::kernel::platform::Strategy;
use rein::kernel::{Call, Edit, EditOptions, Kernel};

use crate::common::Workspace;

/// A thread exchanging the entries `a` and `b` (renameat2 RENAME_EXCHANGE) until `stop`; it
/// gives how many times.
fn exchange_until(stop: Arc<AtomicBool>, a: PathBuf, b: PathBuf) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut swaps = 0u64;
        while !stop.load(Ordering::Relaxed) {
            rustix::fs::renameat_with(rustix::fs::CWD, &a, rustix::fs::CWD, &b, rustix::fs::RenameFlags::EXCHANGE)
                .expect("renameat2 RENAME_EXCHANGE");
            swaps += 1;
        }
        swaps
    })
}

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
    let swapper = exchange_until(stop.clone(), ws.path("d"), ws.path("swap"));
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

/// The workspace's folder is moved while rein runs and a link to another folder takes its
/// name (a person's `mv app app2; ln -s other app`). Paths then resolve from `/` again, as the
/// programs rein starts (which go by names) would see them: everything under the old name is
/// outside the workspace, so each operation is refused with the grant a person could give,
/// and nothing is read from or lands in either folder.
#[test]
fn a_workspace_whose_name_becomes_a_link_is_left_alone_and_so_is_the_link_s_target() {
    let ws = Workspace::new();
    ws.file("a.txt", "held\n");
    let kernel = Kernel::new(&ws.ws, &ws.home).unwrap();
    let (moved, target) = (ws.root.join("moved"), ws.root.join("target"));
    std::fs::create_dir_all(target.join(".git")).unwrap();
    std::fs::write(target.join("a.txt"), "target\n").unwrap();
    std::fs::rename(&ws.ws, &moved).unwrap();
    std::os::unix::fs::symlink(&target, &ws.ws).unwrap();

    let call = Call::new();
    let outside = |failure: rein::Failure| {
        assert_eq!(failure.code.as_str(), "APPROVAL_REQUIRED", "{failure:?}");
        assert_eq!(failure.details["class"], "outside", "{failure:?}");
    };
    outside(kernel.read(&call, "a.txt", Default::default()).unwrap_err().into());
    outside(kernel.write(&call, "new.txt", b"new\n", None).unwrap_err().into());
    let edit = Edit { old_string: "held".into(), new_string: "edited".into(), replace_all: false };
    outside(kernel.edit(&call, "a.txt", edit, &EditOptions::default()).unwrap_err().into());
    outside(kernel.write(&call, ".git/config", b"[core]\n", None).unwrap_err().into());

    let names = |dir: &std::path::Path| {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    };
    assert_eq!(names(&target), [".git", "a.txt"], "nothing landed in the link's target");
    assert_eq!(std::fs::read_to_string(target.join("a.txt")).unwrap(), "target\n");
    assert_eq!(std::fs::read_dir(target.join(".git")).unwrap().count(), 0);
    assert!(!moved.join("new.txt").exists(), "nothing landed in the moved workspace");
    assert_eq!(std::fs::read_to_string(moved.join("a.txt")).unwrap(), "held\n");
}

/// The workspace is exchanged with a link to another folder, over and over, while rein starts
/// (a rename in its parent, by whoever may make one). A kernel started under the workspace's
/// name holds the workspace's folder or refuses to start; it never holds the link's target
/// under that name. (A kernel started while the name was the link is the target's, named so:
/// a workspace given as a link is where the person pointed.)
#[test]
fn a_workspace_swapped_for_a_link_while_rein_starts_is_never_held_under_its_name() {
    let ws = Workspace::new();
    ws.file("a.txt", "held\n");
    let target = ws.root.join("target");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(target.join("a.txt"), "target\n").unwrap();
    let link = ws.root.join("link");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = exchange_until(stop.clone(), ws.ws.clone(), link.clone());
    let call = Call::new();
    let (mut held, mut refused, mut named_target, mut unreadable) = (0, 0, 0, 0);
    for _ in 0..3000 {
        let kernel = match Kernel::new(&ws.ws, &ws.home) {
            Ok(kernel) => kernel,
            Err(err) => {
                let failure = rein::Failure::from(err);
                assert_eq!(failure.code.as_str(), "INVALID_ARGS", "{failure:?}");
                assert!(failure.message.contains("replaced by a link while rein started"), "{failure:?}");
                refused += 1;
                continue;
            }
        };
        if kernel.scope().workspace() != ws.ws {
            named_target += 1;
            continue;
        }
        // Read until the name is the workspace's folder again (the swapper flips it): then the
        // kernel reads what it holds.
        let mut read = None;
        for _ in 0..200 {
            if let Ok(out) = kernel.read(&call, "a.txt", Default::default()) {
                read = Some(out.content);
                break;
            }
        }
        match read {
            Some(content) => {
                assert!(
                    content.ends_with("held"),
                    "a kernel named {} read the link's target: {content}",
                    ws.ws.display()
                );
                held += 1;
            }
            None => unreadable += 1,
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    assert!(swaps > 100 && held > 0, "the race ran: {swaps} swaps, {held} held, {refused} refused, {named_target} the target's, {unreadable} never read");
}

/// A kernel whose workspace became a link before it took the portable strategies (which open
/// the workspace again): it refuses them rather than hold the link's target under the
/// workspace's name. A real folder put under the name is the workspace then, as at a start.
#[test]
fn a_workspace_replaced_by_a_link_before_the_portable_strategies_refuses_them() {
    let ws = Workspace::new();
    ws.file("a.txt", "held\n");
    let target = ws.root.join("target");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::write(target.join("a.txt"), "target\n").unwrap();
    let locks = ws.root.join("locks");
    let kernel = Kernel::new(&ws.ws, &ws.home).unwrap();
    std::fs::rename(&ws.ws, ws.root.join("moved")).unwrap();
    std::os::unix::fs::symlink(&target, &ws.ws).unwrap();
    let refused = kernel.with_strategy(Strategy::portable(locks.clone())).expect_err("a link's target held");
    let failure = rein::Failure::from(refused);
    assert!(failure.message.contains("replaced by a link while rein started"), "{failure:?}");

    // The workspace moves on and a real folder (the target) takes its name: the strategies
    // hold that folder, and read it.
    let kernel = Kernel::new(&ws.root.join("moved"), &ws.home).unwrap();
    std::fs::rename(ws.root.join("moved"), ws.root.join("moved-again")).unwrap();
    std::fs::rename(&target, ws.root.join("moved")).unwrap();
    let kernel = kernel.with_strategy(Strategy::portable(locks)).unwrap();
    let out = kernel.read(&Call::new(), "a.txt", Default::default()).unwrap();
    assert!(out.content.ends_with("target"), "{}", out.content);
}
