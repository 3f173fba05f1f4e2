//! A device belongs to one run at a time: two rein processes (two agents, two worktrees, one
//! home) on one rig device. The first to change the device holds it until its call ends; the
//! second waits up to `[lease] wait_s`, then fails with DEVICE_BUSY naming the holder; a lease
//! dies with its holder.

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::lab::Lab;
use crate::common::rig::rig_lab;
use crate::common::{copy_dir, run_json_within};

const SIGNED: &str = "entry/build/default/outputs/default/entry-default-signed.hap";

/// `rein --yes call TOOL ARGS` in workspace `ws` with the lab's home and rig, started now.
fn start(lab: &Lab, ws: &Path, tool: &str, args: Value) -> Child {
    let payload = args.to_string();
    let mut cmd = lab.command_in(ws, &["--yes", "call", tool, &payload]);
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    cmd.spawn().expect("start rein")
}

/// Waits (bounded) until process `pid` holds a device lease under the lab's home.
fn wait_for_lease(lab: &Lab, pid: u32) {
    let dir = lab.ws.home.join("leases");
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(60) {
        let held = std::fs::read_dir(&dir).into_iter().flatten().flatten().any(|e| {
            std::fs::read_to_string(e.path())
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                .is_some_and(|h| h["pid"] == json!(pid))
        });
        if held {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("rein {pid} took no lease within 60 s");
}

/// A second workspace (another worktree of the project) sharing the lab's home.
fn second_workspace(lab: &Lab) -> std::path::PathBuf {
    let ws2 = lab.ws.root.join("ws2");
    copy_dir(&lab.ws.ws, &ws2);
    let _ = std::fs::remove_dir_all(ws2.join(".rein"));
    ws2
}

fn rein_in(lab: &Lab, ws: &Path, tool: &str, args: Value) -> (i32, Value) {
    let payload = args.to_string();
    run_json_within(&mut lab.command_in(ws, &["--yes", "call", tool, &payload]), None, Duration::from_secs(120))
}

#[test]
fn a_second_rein_waits_then_fails_with_device_busy_naming_the_holder_and_leases_die_with_it() {
    let Some((lab, rig)) = rig_lab() else { return };
    lab.build();
    lab.ok(&["--yes"], "app_install", json!({"hap": SIGNED, "target": rig.key}));
    let ws2 = second_workspace(&lab);
    lab.configure("\n[lease]\nwait_s = 1\n");
    // The first run's launch takes a while on the device: aa start answers after 30 s.
    lab.scenario(json!({"aa": {"sleep_ms": 30000, "match": "start"}}));
    let mut first = start(&lab, &lab.ws.ws, "app_launch", json!({"target": rig.key}));
    wait_for_lease(&lab, first.id());

    let (status, out) = rein_in(&lab, &ws2, "app_install", json!({"hap": SIGNED, "target": rig.key}));
    assert_eq!((status, out["error"]["code"].as_str()), (1, Some("DEVICE_BUSY")), "{out}");
    let holder = &out["error"]["details"]["holder"];
    assert_eq!(holder["pid"], json!(first.id()), "{out}");
    assert_eq!(holder["workspace"], json!(lab.ws.ws.display().to_string()), "{out}");
    assert!(holder["since"].as_str().is_some_and(|s| s.ends_with('Z')), "{out}");
    let message = out["error"]["message"].as_str().unwrap();
    assert!(message.contains(&format!("pid {}", first.id())) && message.contains("wait_s"), "{message}");
    let installs = lab.calls().iter().filter(|c| c["program"] == "bm" && c["argv"][0] == "install").count();
    assert_eq!(installs, 1, "the refused run never reached the device");

    // The holder dies mid-launch: its lease goes with it, and the next run gets the device at once.
    first.kill().unwrap();
    first.wait().unwrap();
    let (status, out) = rein_in(&lab, &ws2, "app_install", json!({"hap": SIGNED, "target": rig.key}));
    assert_eq!(status, 0, "{out}");
}

#[test]
fn a_second_rein_within_the_bound_waits_for_the_device_and_runs_after_the_first() {
    let Some((lab, rig)) = rig_lab() else { return };
    lab.build();
    lab.ok(&["--yes"], "app_install", json!({"hap": SIGNED, "target": rig.key}));
    let ws2 = second_workspace(&lab);
    lab.scenario(json!({"aa": {"sleep_ms": 3000, "match": "start"}}));
    let first = start(&lab, &lab.ws.ws, "app_launch", json!({"target": rig.key}));
    wait_for_lease(&lab, first.id());
    let (status, out) = rein_in(&lab, &ws2, "app_install", json!({"hap": SIGNED, "target": rig.key}));
    assert_eq!(status, 0, "waited for the device: {out}");
    let launched = first.wait_with_output().unwrap();
    assert!(launched.status.success(), "{}", String::from_utf8_lossy(&launched.stdout));
    // Every device command of the launch came before the second run's install.
    let programs: Vec<String> = lab
        .calls()
        .iter()
        .filter(|c| c.get("device").is_some())
        .map(|c| format!("{} {}", c["program"].as_str().unwrap(), c["argv"][0].as_str().unwrap_or("")))
        .collect();
    let start_at = programs.iter().position(|p| p == "aa start").expect("the launch ran");
    let install_at = programs.iter().rposition(|p| p == "bm install").unwrap();
    assert!(install_at > start_at, "{programs:?}");
    assert_eq!(programs.last().map(String::as_str), Some("bm install"), "nothing of the launch after it: {programs:?}");
}
