//! rein's tools and recipes against the real hdc: the rig (`common/rig.rs`) runs hdcd, the hdc
//! server and the client built from OpenHarmony's sources, with the device-side fakes behind
//! them. What rein reads here is what the real hdc printed.

use serde_json::{json, Value};

use crate::common::rig::rig_lab;

const SIGNED: &str = "entry/build/default/outputs/default/entry-default-signed.hap";
const UNSIGNED: &str = "entry/build/default/outputs/default/entry-default-unsigned.hap";

/// The device commands the rig's device ran, each as its argv joined with spaces.
fn device_ran(lab: &crate::common::lab::Lab, program: &str) -> Vec<String> {
    lab.calls()
        .iter()
        .filter(|c| c["program"] == program && c.get("device").is_some())
        .map(|c| {
            let argv: Vec<&str> = c["argv"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
            argv.join(" ")
        })
        .collect()
}

#[test]
fn device_list_reads_the_real_list_targets() {
    let Some((lab, rig)) = rig_lab() else { return };
    let devices = lab.ok(&[], "device_list", json!({}))["devices"].clone();
    let local = json!([{"key": rig.key, "conn": "TCP", "status": "Connected", "name": "rig-a", "server": "local"}]);
    assert_eq!(devices, local, "{devices}");
}

#[test]
fn app_install_goes_through_the_real_staging_and_bm_install_p() {
    let Some((lab, rig)) = rig_lab() else { return };
    lab.build();
    let installed = lab.ok(&["--yes"], "app_install", json!({"hap": SIGNED}));
    assert_eq!(installed["evidence"], json!("install bundle successfully."), "{installed}");
    // The daemon staged the package in its own /data/local/tmp and ran bm on it there.
    let ran = device_ran(&lab, "bm");
    // First the kernel read which device is behind the key (`bm get -u`: the install is
    // recorded under its UDID), then the one install.
    assert_eq!(ran.first().map(String::as_str), Some("get -u"), "{ran:?}");
    let bm: Vec<&String> = ran.iter().filter(|c| c.starts_with("install")).collect();
    assert_eq!(bm.len(), 1, "{ran:?}");
    let staged = bm[0].strip_prefix("install -r -p /data/local/tmp/").unwrap_or_else(|| panic!("{bm:?}"));
    assert!(staged.ends_with(".hap"), "{bm:?}");
    let left: Vec<_> = std::fs::read_dir(rig.dir.path().join("data-local-tmp")).unwrap().collect();
    assert!(left.is_empty(), "the daemon removes what it staged: {left:?}");
    let app = &lab.read_device(&rig.key)["installed"]["com.example.hello"];
    assert_eq!(app["signer"], json!(lab.signer()), "signed with the lab's material: {app}");

    // rein refuses an unsigned package for a phone before hdc sends anything; renamed, it reaches
    // the device through the real stack, which refuses it.
    lab.failed(&["--yes"], "app_install", json!({"hap": UNSIGNED}), "UNSIGNED_HAP_REFUSED");
    let renamed = "entry/build/default/outputs/default/entry-default-renamed.hap";
    std::fs::copy(lab.ws.path(UNSIGNED), lab.ws.path(renamed)).unwrap();
    let unsigned = lab.failed(&["--yes"], "app_install", json!({"hap": renamed}), "INSTALL_FAILED");
    assert_eq!(unsigned["details"]["code"], json!("9568320"), "{unsigned}");
}

#[test]
fn screenshots_come_back_through_the_real_file_recv() {
    let Some((lab, rig)) = rig_lab() else { return };
    let shot = lab.ok(&["--yes"], "screenshot", json!({"out": "shots/home.jpeg"}));
    let bytes = std::fs::read(lab.ws.path("shots/home.jpeg")).unwrap();
    assert_eq!((&bytes[..3], &bytes[bytes.len() - 2..]), (&[0xff, 0xd8, 0xff][..], &[0xff, 0xd9][..]), "{shot}");
    let taken = device_ran(&lab, "snapshot_display");
    assert_eq!(taken.len(), 1, "{taken:?}");
    let remote = taken[0].strip_prefix("-f /data/local/tmp/").unwrap_or_else(|| panic!("{taken:?}"));
    // The picture the real daemon sent is the one the device wrote in its /data/local/tmp.
    let on_device = std::fs::read(rig.dir.path().join("data-local-tmp").join(remote)).unwrap();
    assert_eq!(on_device, bytes);
}

#[test]
fn the_ui_tree_comes_back_through_the_real_hdc_and_nothing_stays_on_the_device() {
    let Some((lab, rig)) = rig_lab() else { return };
    let dump = lab.ok(&[], "ui_dump", json!({}));
    assert_eq!(
        dump["text"],
        json!("window com.ohos.sceneboard com.ohos.sceneboard.MainAbility\nText \"Clock\" #clock [80,400][1180,540]\nText \"Settings\" [80,560][1180,700]\n"),
        "{dump}"
    );
    let found = lab.ok(&[], "ui_find", json!({"text": "Settings"}));
    assert_eq!(found["matches"][0]["center"], json!({"x": 630, "y": 630}), "{found}");
    // The real daemon's shell ran the real rm on rein's scratch file.
    let dumped = device_ran(&lab, "uitest");
    assert_eq!(dumped.len(), 2, "{dumped:?}");
    assert!(dumped.iter().all(|d| d.starts_with("dumpLayout -p /data/local/tmp/rein-ui-")), "{dumped:?}");
    let left: Vec<_> = std::fs::read_dir(rig.dir.path().join("data-local-tmp")).unwrap().collect();
    assert!(left.is_empty(), "rein removes its scratch files: {left:?}");
    let transit: Vec<_> = std::fs::read_dir(lab.ws.path(".rein-received")).unwrap().collect();
    assert!(transit.is_empty(), "and takes them out of the transit folder: {transit:?}");
}

#[test]
fn sign_install_launch_passes_on_the_real_hdc_with_the_real_quoting() {
    let Some((lab, rig)) = rig_lab() else { return };
    let (status, out) = lab.recipe(&["--yes"], "sign-install-launch", json!({}));
    assert_eq!(status, 0, "{out}");
    let report = lab.report(&out);
    let launch = crate::common::lab::step(&report, "launch");
    let pid = launch["output"]["pid"].as_i64().expect("a pid");
    assert_eq!(lab.read_device(&rig.key)["running"][0]["pid"], json!(pid), "{report:#}");
    // rein passes `-p Faultlogger -m <bundle> …` as one word: the real client quotes it and the
    // daemon's sh gives hidumper one argument.
    let dumps: Vec<String> = device_ran(&lab, "hidumper").into_iter().filter(|d| d.starts_with("-s 1201")).collect();
    assert!(!dumps.is_empty() && dumps.iter().all(|d| d.starts_with("-s 1201 -a -p Faultlogger")), "{dumps:?}");
    let dump = lab.calls().into_iter().find(|c| c["program"] == "hidumper" && c["argv"][1] == "1201").unwrap();
    let words = dump["argv"].as_array().unwrap().clone();
    assert_eq!(words.len(), 4, "one word after -a: {words:?}");
    assert!(words[3].as_str().unwrap().starts_with("-p Faultlogger -m com.example.hello"), "{words:?}");
    let lines: Vec<Value> = launch["output"]["lines"].as_array().unwrap().clone();
    assert!(lines.iter().any(|l| l.as_str().unwrap().ends_with("I A00000/testTag: Ability onCreate")), "{lines:?}");
}

#[test]
fn a_crash_right_after_the_launch_is_app_crashed_on_the_real_hdc() {
    let Some((lab, rig)) = rig_lab() else { return };
    let crash = json!({"after_ms": 400, "error_name": "RangeError"});
    lab.device(&rig.key, json!({"crash_on_launch": {"com.example.hello": crash}}));
    let (status, out) = lab.recipe(&["--yes"], "sign-install-launch", json!({}));
    assert_eq!(status, 1, "{out}");
    let failure = &lab.report(&out)["failure"];
    assert_eq!(
        (failure["step"].as_str(), failure["code"].as_str()),
        (Some("launch"), Some("APP_CRASHED")),
        "{failure:#}"
    );
    let crash = &failure["details"]["crash"];
    assert_eq!(crash["error_name"], json!("RangeError"), "the fault log came back through the real hdc: {failure:#}");
    assert!(crash["file"].as_str().unwrap().starts_with("jscrash-com.example.hello-"), "{failure:#}");
}

#[test]
fn device_tests_run_through_the_real_hdc_with_every_line_intact() {
    let Some((lab, rig)) = rig_lab() else { return };
    let stack = [
        "    at assertContain (entry/src/ohosTest/ets/test/Ability.test.ets:24:7)",
        "    at run (hypium/index.js:1:1)",
    ];
    lab.device(
        &rig.key,
        json!({"test_outcomes": {"ActsAbilityTest#assertContain": {"status": "fail", "message": "expect abc equals abd", "stack": stack}}}),
    );
    let error = lab.failed(&["--yes"], "device_test", json!({"deadline_s": 60}), "TESTS_FAILED");
    let d = &error["details"];
    assert_eq!((d["verdict"].as_str(), d["counts"]["failed"].as_i64()), (Some("failed"), Some(1)), "{error:#}");
    let failure = &d["failures"][0];
    // The stack's second line came through the real hdc without a prefix and was kept.
    assert_eq!(failure["stack"], json!(stack.join("\n")), "{failure:#}");
    assert_eq!(
        failure["location"],
        json!({"file": "entry/src/ohosTest/ets/test/Ability.test.ets", "line": 24, "column": 7})
    );
    let aa = device_ran(&lab, "aa");
    assert_eq!(
        aa.last().map(String::as_str),
        Some("test -b com.example.hello -m entry_test -s unittest OpenHarmonyTestRunner -w 60"),
        "{aa:?}"
    );
}

#[test]
fn an_app_installed_through_the_real_hdc_is_the_projects_own_for_ui_input() {
    let Some((lab, rig)) = rig_lab() else { return };
    // Before rein installed anything, the app in front is not the project's: input asks.
    lab.failed(&[], "ui_tap", json!({"text": "Clock"}), "APPROVAL_REQUIRED");
    let (status, out) = lab.recipe(&["--yes"], "sign-install-launch", json!({}));
    assert_eq!(status, 0, "{out}");
    // The kernel read the bundle from the copy the real hdc sent, and recorded it for this device.
    let record = std::fs::read_to_string(lab.ws.home.join("installed-apps.json")).expect("the install record");
    assert!(record.contains(&rig.key) && record.contains("com.example.hello"), "{record}");
    // No --yes: the app rein installed is in front.
    let tapped = lab.ok(&[], "ui_tap", json!({"text": "Hello World"}));
    assert_eq!(
        (tapped["app"].as_str(), tapped["own_app"].as_bool()),
        (Some("com.example.hello"), Some(true)),
        "{tapped}"
    );
    let input: Vec<String> =
        device_ran(&lab, "uitest").into_iter().filter(|c| c.starts_with("uiInput click ")).collect();
    assert_eq!(input.len(), 1, "one tap reached the device through the real hdc: {input:?}");
}
