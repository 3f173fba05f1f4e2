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

/// No `[toolchain]` entry: rein finds the Emulator where DevEco puts it, as it finds the rest of
/// DevEco (src/harmony/discovery.rs). On Windows a DevEco Studio install on any drive, named
/// by the user variable its installer sets (`DevEco Studio=<root>\bin;`), with
/// `<root>\tools\emulator\Emulator.exe`; elsewhere the command-line tools' `<clt>/emulator/
/// Emulator`, beside `DEVECO_SDK_HOME=<clt>/sdk`. The layout's Emulator is the one that runs,
/// not the fakes' `Emulator.exe` on PATH (which Windows finds without case).
#[test]
fn emulator_list_finds_the_emulator_in_a_deveco_layout() {
    let Some(mut lab) = lab() else { return };
    std::fs::write(lab.state.join("emulators.json"), mate60(false).to_string()).unwrap();
    let root = lab.ws.root.join("DevEco Studio");
    let (folder, variable, value) = if cfg!(windows) {
        let mut bin = root.join("bin").into_os_string();
        bin.push(";");
        (root.join("tools").join("emulator"), "DevEco Studio", bin)
    } else {
        (root.join("emulator"), "DEVECO_SDK_HOME", root.join("sdk").into_os_string())
    };
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::create_dir_all(root.join("bin")).unwrap();
    std::fs::create_dir_all(root.join("sdk")).unwrap();
    let emulator = folder.join(format!("Emulator{}", std::env::consts::EXE_SUFFIX));
    std::fs::copy(fake("Emulator"), &emulator).unwrap();
    lab.around = Some(std::sync::Arc::new(move |cmd: &mut std::process::Command| {
        cmd.env(variable, &value);
    }));
    let (_, doctor) = lab.rein(&["doctor"]);
    let found = doctor["result"]["programs"].as_array().unwrap().iter().find(|p| p["program"] == "emulator").cloned();
    let found = found.unwrap_or_default();
    let via = if cfg!(windows) { "the DevEco Studio user variable" } else { "DEVECO_SDK_HOME" };
    assert_eq!((found["found"].clone(), found["via"].clone()), (json!(true), json!(via)), "{doctor:#}");
    assert_eq!(found["path"], json!(rein::visible::shown_path(&emulator)), "{doctor:#}");
    let listed = lab.ok(&[], "emulator_list", json!({}));
    assert_eq!(listed["instances"][0]["name"], json!("Mate60"), "{listed:#}");
    assert_eq!(listed["images"][0]["os_version"], json!("HarmonyOS 6.1.1(24)"), "{listed:#}");
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

/// A booted emulator at 127.0.0.1:5555 (its const.product.name says so), a USB phone, and a
/// phone reached through a forwarded port at 127.0.0.1:5556 (the product name it reports is
/// its own): the same project with no signing config for all three.
fn emulator_and_phones(lab: &Lab) {
    crate::harmony_preflight::without_signing_configs(lab);
    lab.devices(json!([{"key": KEY}, {"key": "127.0.0.1:5555"}, {"key": "127.0.0.1:5556"}]));
    lab.device("127.0.0.1:5555", json!({"params": {"const.product.name": "emulator", "ohos.qemu.hvd.name": "Mate60"}}));
}

fn installed(lab: &Lab, key: &str) -> Value {
    let path = lab.state.join(crate::common::lab::device_file(key));
    std::fs::read_to_string(path)
        .ok()
        .map_or(json!({}), |t| serde_json::from_str::<Value>(&t).unwrap()["installed"].clone())
}

#[test]
fn an_unsigned_hap_goes_to_an_emulator_and_never_to_a_phone() {
    let Some(lab) = lab() else { return };
    emulator_and_phones(&lab);
    // Attack: the same unsigned project aimed at a phone, by USB or at a 127.0.0.1 port; the
    // preflight refuses before any build.
    for phone in [KEY, "127.0.0.1:5556"] {
        let (status, out) = lab.recipe(&["--yes"], "sign-install-launch", json!({"target": phone}));
        assert_eq!(status, 1, "{out}");
        let failure = &out["error"]["details"]["failure"];
        assert_eq!(
            (failure["step"].as_str(), failure["code"].as_str()),
            (Some("preflight"), Some("SIGNING_NOT_CONFIGURED")),
            "{out}"
        );
        assert_eq!(
            (failure["details"]["problem"].clone(), failure["details"]["phones"].clone()),
            (json!("no_config"), json!([phone])),
            "{out}"
        );
        assert!(lab.command_lines("hvigorw").is_empty(), "nothing was built: {out}");
    }
    let matrix = lab.recipe(&["--yes"], "device-matrix", json!({"targets": ["127.0.0.1:5555", KEY]})).1;
    assert_eq!(matrix["error"]["details"]["failure"]["details"]["phones"], json!([KEY]), "{matrix}");
    // The emulator takes it unsigned: built, installed, launched.
    let (status, out) = lab.recipe(&["--yes"], "sign-install-launch", json!({"target": "127.0.0.1:5555"}));
    assert_eq!(status, 0, "{out}");
    let report = lab.report(&out);
    let sign = crate::common::lab::step(&report, "sign");
    assert_eq!(sign["output"]["signed_by"], json!("none"), "{sign:#}");
    assert!(sign.to_string().contains("unsigned, for an emulator"), "{sign:#}");
    assert!(
        installed(&lab, "127.0.0.1:5555").get("com.example.hello").is_some(),
        "{:#}",
        installed(&lab, "127.0.0.1:5555")
    );
    // Attack: app_install of that unsigned HAP straight to a phone (named, at a 127.0.0.1 port,
    // or the default device): refused before hdc sends anything, with a stable code.
    let unsigned = "entry/build/default/outputs/default/entry-default-unsigned.hap";
    assert!(lab.ws.path(unsigned).exists());
    for target in [json!(KEY), json!("127.0.0.1:5556"), Value::Null] {
        let refused =
            lab.failed(&["--yes"], "app_install", json!({"hap": unsigned, "target": target}), "UNSIGNED_HAP_REFUSED");
        assert!(!refused["details"]["remedy"].as_str().unwrap().is_empty(), "{refused}");
    }
    assert!(
        lab.command_lines("hdc").iter().filter(|c| c.contains("install")).count() == 1,
        "only the emulator's install ran"
    );
    for phone in [KEY, "127.0.0.1:5556"] {
        assert_eq!(installed(&lab, phone), json!({}), "{phone} got nothing");
    }
}
