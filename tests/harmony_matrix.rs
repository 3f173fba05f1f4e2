//! device-matrix takes what sign-install-launch takes and shares its pieces: one preflight,
//! one build and signature, then install and a proven launch on every device at once, with a
//! row per device in one report.

use crate::common::lab::{lab, step};
use serde_json::json;

#[test]
fn three_devices_with_expect_log_and_reinstall_one_unauthorized() {
    let Some(lab) = lab() else { return };
    lab.devices(json!([{"key": "D1"}, {"key": "D2"}, {"key": "U1", "status": "Unauthorized"}]));
    lab.device("D2", json!({"installed": {"com.example.hello": {"versionCode": 1000000, "signer": "other.p12/k"}}}));
    lab.replace_in(
        "entry/src/main/ets/entryability/EntryAbility.ets",
        "'Ability onCreate');",
        "'Ability onCreate');\n    hilog.info(0x0000, 'testTag', '%{public}s', 'REIN_READY');",
    );
    let args = json!({"expect_log": "REIN_READY", "reinstall": true});
    let (status, out) = lab.recipe(&["--yes"], "device-matrix", args);
    assert_eq!(status, 1, "{out}");
    assert_eq!(out["error"]["code"], json!("STEP_FAILED"));
    let failure = &out["error"]["details"]["failure"];
    assert_eq!((failure["step"].as_str(), failure["code"].as_str()), (Some("devices"), Some("DEVICE_MATRIX_FAILED")));
    assert_eq!((failure["details"]["passed"].clone(), failure["details"]["failed"].clone()), (json!(2), json!(1)));

    let report = lab.report(&out);
    let rows = report["failure"]["details"]["rows"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 3, "{report:#}");
    for (row, key) in rows.iter().zip(["D1", "D2"]) {
        assert_eq!((row["target"].as_str(), row["ok"].as_bool()), (Some(key), Some(true)), "{row}");
        let line = row["lines"][0].as_str().unwrap();
        assert!(line.ends_with(&format!("{}  {} I A00000/testTag: REIN_READY", row["pid"], row["pid"])), "{row}");
    }
    assert_eq!((rows[0]["reinstalled"].clone(), rows[1]["reinstalled"].clone()), (json!(false), json!(true)));
    let u1 = &rows[2];
    assert_eq!((u1["target"].as_str(), u1["ok"].as_bool()), (Some("U1"), Some(false)));
    assert_eq!((u1["code"].as_str(), u1["detail_code"].as_str()), (Some("DEVICE_UNAVAILABLE"), Some("UNAUTHORIZED")));
    assert!(u1["remedy"].as_str().unwrap().contains("USB debugging"), "{u1}");
    assert_eq!(report["failure"]["remedy"], u1["remedy"]);

    assert_eq!(lab.command_lines("hvigorw").len(), 1, "one build for every device");
    let hdc = lab.command_lines("hdc");
    assert!(hdc.iter().any(|c| c.starts_with("-t D2 uninstall com.example.hello")), "D2 reinstalled: {hdc:#?}");
    assert!(!hdc.iter().any(|c| c.starts_with("-t U1 ")), "nothing is tried on an unauthorized device: {hdc:#?}");
    let preflight = step(&report, "preflight")["evidence"][0].as_str().unwrap();
    assert!(preflight.starts_with("devices D1, D2, U1 (Unauthorized)"), "{preflight}");
    let md = lab.report_md(&out);
    assert!(md.contains("| D1 | passed | pid ") && md.contains("| D2 | passed | pid "), "{md}");
    assert!(md.contains("| U1 | failed: DEVICE_UNAVAILABLE UNAUTHORIZED | device U1 is Unauthorized — "), "{md}");
}

#[test]
fn every_device_passing_is_one_verified_run_with_each_launch_as_evidence() {
    let Some(lab) = lab() else { return };
    lab.devices(json!([{"key": "D1"}, {"key": "D2"}]));
    let (status, out) = lab.recipe(&["--yes"], "device-matrix", json!({"targets": ["D2", "D1"]}));
    assert_eq!(status, 0, "{out}");
    let report = lab.report(&out);
    let devices = step(&report, "devices");
    let targets: Vec<&str> =
        devices["output"]["rows"].as_array().unwrap().iter().map(|r| r["target"].as_str().unwrap()).collect();
    assert_eq!(targets, ["D2", "D1"], "rows in the order asked");
    let evidence = devices["evidence"].as_array().unwrap();
    for key in ["D1", "D2"] {
        assert!(evidence.iter().any(|e| e.as_str().unwrap().starts_with(&format!("{key}: pid "))), "{evidence:?}");
        assert!(
            evidence
                .iter()
                .any(|e| e.as_str().unwrap().starts_with(key) && e.as_str().unwrap().ends_with("Ability onCreate")),
            "{evidence:?}"
        );
    }
}

/// What `rein runs show last --format FORMAT` prints for the lab's workspace.
fn shown(lab: &crate::common::lab::Lab, format: &str) -> String {
    let out = std::process::Command::new(crate::common::REIN)
        .arg("--workspace")
        .arg(&lab.ws.ws)
        .arg("--home")
        .arg(&lab.ws.home)
        .args(["runs", "show", "last", "--format", format])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn each_device_keeps_its_own_screen_and_one_that_cannot_says_why() {
    let Some(lab) = lab() else { return };
    // Two keys with one label (d1): the second device's files are told apart by its place.
    lab.devices(json!([{"key": "D1"}, {"key": "d1"}]));
    // d1 cannot write its scratch folder: neither its screenshot nor its UI tree can be taken.
    let device_local = lab.device_root("d1").join("data").join("local");
    std::fs::create_dir_all(&device_local).unwrap();
    std::fs::write(device_local.join("tmp"), "not a folder").unwrap();
    let (status, out) = lab.recipe(&["--yes"], "device-matrix", json!({}));
    assert_eq!(status, 0, "evidence that cannot be taken does not undo the proven launches: {out}");
    let report = lab.report(&out);
    let run_id = report["run_id"].as_str().unwrap();
    let folder = format!(".rein/runs/{run_id}");
    let devices = step(&report, "devices");
    let kept: Vec<(String, String, String)> = devices["attachments"]
        .as_array()
        .unwrap_or_else(|| panic!("the devices step has no attachments: {devices:#}"))
        .iter()
        .map(|a| {
            (
                a["kind"].as_str().unwrap().into(),
                a["label"].as_str().unwrap().into(),
                a["path"].as_str().unwrap().into(),
            )
        })
        .collect();
    let d1 = |kind: &str, file: &str| (kind.to_string(), "d1".to_string(), format!("{folder}/{file}"));
    assert_eq!(
        kept,
        [d1("screenshot", "screen-d1.jpeg"), d1("ui_tree", "layout-d1.json"), d1("ui_text", "layout-d1.txt")],
        "only the device that could keep its screen has files: {devices:#}"
    );
    assert_eq!(&std::fs::read(lab.ws.path(&format!("{folder}/screen-d1.jpeg"))).unwrap()[..3], &[0xFF, 0xD8, 0xFF]);
    let rows = devices["output"]["rows"].as_array().unwrap();
    assert_eq!((rows[0]["label"].as_str(), rows[1]["label"].as_str()), (Some("d1"), Some("d1-2")), "{rows:?}");
    assert_eq!(rows[0]["screenshot"], json!(format!("{folder}/screen-d1.jpeg")));
    let why = rows[1]["screen"].as_str().unwrap();
    assert!(
        why.starts_with("no screenshot: SCREENSHOT_FAILED: ") && why.contains("; no UI tree: UI_DUMP_FAILED: "),
        "{why}"
    );
    let evidence: Vec<&str> = devices["evidence"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()).collect();
    assert!(
        evidence.contains(
            &format!("D1: screenshot {folder}/screen-d1.jpeg; UI tree {folder}/layout-d1.json (4 nodes)").as_str()
        ),
        "{evidence:?}"
    );
    assert!(evidence.contains(&format!("d1: {why}").as_str()), "{evidence:?}");
    // Every format shows each device's screen under its label, and the reason for the other.
    let page = std::fs::read_to_string(lab.ws.path(&format!("{folder}/report.html"))).unwrap();
    assert!(page.contains("The app on device <code>d1</code>") && page.contains("id=\"screenshot-d1\""), "{page}");
    assert!(page.contains("src=\"data:image/jpeg;base64,/9j/") && page.contains("id=\"ui-tree-d1\""));
    assert!(!page.contains("screenshot-d1-2") && page.contains("no screenshot: SCREENSHOT_FAILED"), "{page}");
    let md = lab.report_md(&out);
    assert!(md.contains(&format!("- screenshot (d1): `{folder}/screen-d1.jpeg`")), "{md}");
    let junit = shown(&lab, "junit");
    assert!(junit.contains(&format!("screenshot (d1): {folder}/screen-d1.jpeg")), "{junit}");
    let approvals = step(&report, "devices")["approvals"].as_array().unwrap().clone();
    let shots: Vec<&str> =
        approvals.iter().map(|a| a["target"].as_str().unwrap()).filter(|t| t.contains("snapshot_display")).collect();
    assert!(
        shots.iter().any(|t| t.starts_with("hdc -p -t D1 ")) && shots.iter().any(|t| t.starts_with("hdc -p -t d1 ")),
        "an approval per device: {approvals:#?}"
    );
    assert_eq!(std::fs::read_dir(lab.ws.path(".rein-received")).unwrap().count(), 0, "nothing stays in transit");
}
