//! DevEco's emulator through rein: emulator_list and emulator_stop read the fake `Emulator`'s
//! texts (shared/HARMONY-VERIFY.md §6, verbatim), never its exit code; the fake's `-start`
//! brings a device up in the fake hdc at 127.0.0.1:5555, as a booted emulator appears.

use crate::common::lab::{fake, lab, Lab, KEY};
use serde_json::{json, Value};

fn with_emulators(lab: &Lab, emulators: Value) {
    lab.toolchain("emulator", &fake("Emulator"));
    std::fs::write(lab.state.join("emulators.json"), emulators.to_string()).unwrap();
}

fn mate60(running: bool) -> Value {
    let mut state = json!({
        "instances": [
            {"name": "Mate60", "deviceType": "Phone", "os.osVersion": "HarmonyOS 6.1.1(24)", "os.apiVersion": "24", "hw.hdc.port": "10000"},
            {"name": "Broken", "broken": true}
        ],
        "images": [{"SoftWareVersion": "6.1.1.200", "deviceType": "phone", "downloaded": "true",
                    "osVersion": "HarmonyOS 6.1.1(24)", "releaseType": "Release", "upgradable": "false"}],
        "running": {}
    });
    if running {
        state["running"]["Mate60"] = json!("127.0.0.1:5555");
    }
    state
}

#[test]
fn emulator_list_reads_instances_broken_folders_and_images() {
    let Some(lab) = lab() else { return };
    with_emulators(&lab, mate60(false));
    let listed = lab.ok(&[], "emulator_list", json!({}));
    assert_eq!(
        listed["instances"],
        json!([{"name": "Mate60", "device_type": "Phone", "os_version": "HarmonyOS 6.1.1(24)",
                "api_level": 24, "running": false, "hdc_port": 10000}]),
        "{listed:#}"
    );
    assert_eq!(listed["broken"], json!(["/Users/u/.Huawei/Emulator/deployed/Broken/config.ini"]), "{listed:#}");
    assert_eq!(listed["images"][0]["os_version"], json!("HarmonyOS 6.1.1(24)"), "{listed:#}");
    // Nothing at all: `[]` and `No images matching the criteria were found.`
    std::fs::write(lab.state.join("emulators.json"), "{}").unwrap();
    let empty = lab.ok(&[], "emulator_list", json!({"device_type": "tablet"}));
    assert_eq!((empty["instances"].clone(), empty["images"].clone()), (json!([]), json!([])), "{empty:#}");
}

#[test]
fn emulator_stop_asks_is_judged_by_listing_and_names_a_missing_instance() {
    let Some(lab) = lab() else { return };
    with_emulators(&lab, mate60(true));
    // `-stop nosuch` exits 0 with a failure text: rein knows the names before it stops.
    let missing = lab.failed(&["--yes"], "emulator_stop", json!({"name": "nosuch"}), "EMULATOR_NOT_FOUND");
    assert!(missing["message"].as_str().unwrap().contains("no emulator instance is named nosuch"), "{missing}");
    // Stopping ends what a person may be using: it asks.
    let (status, asked) = lab.call(&[], "emulator_stop", json!({"name": "Mate60"}));
    assert_ne!(status, 0, "{asked}");
    assert!(lab.ran("emulator").iter().all(|c| !c.contains("-stop")), "never stopped unasked");
    let stopped = lab.ok(&["--yes"], "emulator_stop", json!({"name": "Mate60"}));
    assert_eq!(stopped, json!({"name": "Mate60", "stopped": true, "was_running": true}));
    let listed = lab.ok(&[], "emulator_list", json!({}));
    assert_eq!(listed["instances"][0]["running"], json!(false), "{listed:#}");
    // Stopping one that is not running changes nothing and runs no -stop.
    let again = lab.ok(&["--yes"], "emulator_stop", json!({"name": "Mate60"}));
    assert_eq!(again["was_running"], json!(false));
}

#[test]
fn the_fake_emulator_start_brings_a_device_up_at_5555_and_leaves_it_offline_when_stopped() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    with_emulators(&lab, mate60(false));
    let env = lab.env();
    let mut child = std::process::Command::new(fake("Emulator"))
        .args(["-start", "Mate60"])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let listed = loop {
        let devices = lab.ok(&[], "device_list", json!({}));
        if devices["devices"].as_array().unwrap().iter().any(|d| d["key"] == json!("127.0.0.1:5555")) {
            break devices;
        }
        assert!(std::time::Instant::now() < deadline, "no device at 127.0.0.1:5555: {devices:#}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    let row = listed["devices"].as_array().unwrap().iter().find(|d| d["key"] == json!("127.0.0.1:5555")).unwrap();
    assert_eq!(row["status"], json!("Connected"), "{listed:#}");
    // Marked as an emulator, with its instance (`const.product.name`, `ohos.qemu.hvd.name`);
    // the phone is not.
    assert_eq!((row["emulator"].clone(), row["instance"].clone()), (json!(true), json!("Mate60")), "{listed:#}");
    let phone = listed["devices"].as_array().unwrap().iter().find(|d| d["key"] == json!(KEY)).unwrap();
    assert!(phone.get("emulator").is_none(), "{listed:#}");
    // `Emulator -start nosuch` exits 1 with §6's two lines.
    let out = std::process::Command::new(fake("Emulator"))
        .args(["-start", "nosuch"])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).ends_with("Unable to start the emulator\n"));
    lab.ok(&["--yes"], "emulator_stop", json!({"name": "Mate60"}));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("-start still runs after emulator_stop");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.success(), "-start returns once stopped");
    let after = lab.ok(&[], "device_list", json!({}));
    let row = after["devices"].as_array().unwrap().iter().find(|d| d["key"] == json!("127.0.0.1:5555")).unwrap();
    assert_eq!(row["status"], json!("Offline"), "{after:#}");
}
