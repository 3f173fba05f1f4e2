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
