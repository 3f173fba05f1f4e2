//! Writer processes that use the portable file strategies (`Strategy::portable`: a
//! component-by-component walk, named temp file + rename + folder fsync, a lock file keyed by
//! the folder's path) — what macOS and Windows do — so the crash-safety and no-lost-update
//! tests run against them on Linux too.
//!
//! The strategy is chosen in code: the `rein` binary has no switch for it. A test re-runs this
//! test binary as the writer (`portable_writer`, ignored unless named), telling it what to do
//! through variables only this test binary reads.

use std::path::Path;
use std::process::Command;

use rein::kernel::platform::Strategy;
use rein::kernel::{Call, Edit, EditOptions, Kernel};
use serde_json::Value;

use crate::common::Workspace;

const OP: &str = "REIN_TEST_PORTABLE_OP";
const WS: &str = "REIN_TEST_PORTABLE_WS";
const HOME: &str = "REIN_TEST_PORTABLE_HOME";
const LOCKS: &str = "REIN_TEST_PORTABLE_LOCKS";

/// Where the portable lock files of `ws`'s tests go: beside the workspace, outside it.
pub fn lock_dir(ws: &Workspace) -> std::path::PathBuf {
    ws.root.join("locks")
}

/// A kernel on `ws` with the portable strategies.
pub fn kernel(ws: &Workspace) -> Kernel {
    Kernel::new(&ws.ws, &ws.home).expect("kernel").with_strategy(Strategy::portable(lock_dir(ws))).expect("strategy")
}

/// A writer process: `op` is `write_file` or `edit_file`, with the tool's JSON args on stdin.
pub fn writer(ws: &Workspace, op: &str) -> Command {
    let exe = std::env::current_exe().expect("this test binary");
    let mut cmd = Command::new(exe);
    cmd.args(["portable::portable_writer", "--exact", "--ignored", "--test-threads=1", "--quiet"])
        .env(OP, op)
        .env(WS, &ws.ws)
        .env(HOME, &ws.home)
        .env(LOCKS, lock_dir(ws));
    cmd
}

/// The writer process's entry point, not a test of its own: it acts only when a test starts
/// it through [`writer`] (run directly, e.g. with `--include-ignored`, it has nothing to do).
#[test]
#[ignore = "a writer process the crash-safety and concurrency tests start"]
fn portable_writer() {
    let (Ok(op), Ok(ws), Ok(home), Ok(locks)) =
        (std::env::var(OP), std::env::var(WS), std::env::var(HOME), std::env::var(LOCKS))
    else {
        return;
    };
    let args: Value = serde_json::from_reader(std::io::stdin()).expect("JSON args on stdin");
    let kernel = Kernel::new(Path::new(&ws), Path::new(&home))
        .expect("kernel")
        .with_strategy(Strategy::portable(locks.into()))
        .expect("strategy");
    let path = args["path"].as_str().expect("path");
    let text = |key: &str| args[key].as_str().unwrap_or_else(|| panic!("{key}")).to_string();
    match op.as_str() {
        "write_file" => {
            kernel.write(&Call::new(), path, text("content").as_bytes(), None).expect("write");
        }
        "edit_file" => {
            let edit = Edit { old_string: text("old_string"), new_string: text("new_string"), replace_all: false };
            let out = kernel.edit(&Call::new(), path, edit, &EditOptions::default()).expect("edit");
            assert_eq!(out.replacements, 1);
        }
        other => panic!("unknown op {other}"),
    }
}
