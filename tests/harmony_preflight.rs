//! The preflight: sign-install-launch and device-matrix check the device and the signing path
//! before they spend a build, and fail with the remedy when either is missing.

use crate::common::lab::{lab, step, Lab, KEY};
use serde_json::{json, Value};

/// Runs `recipe` expecting its preflight to fail with `code`; returns the failure's details.
fn preflight_fails(lab: &Lab, recipe: &str, args: Value, code: &str) -> Value {
    let (status, out) = lab.recipe(&["--yes"], recipe, args.clone());
    assert_eq!(status, 1, "{recipe} {args}: {out}");
    assert_eq!(out["error"]["code"], json!("STEP_FAILED"), "{out}");
    let failure = &out["error"]["details"]["failure"];
    assert_eq!((failure["step"].as_str(), failure["code"].as_str()), (Some("preflight"), Some(code)), "{args}: {out}");
    assert!(!failure["remedy"].as_str().unwrap_or("").is_empty(), "{args}: a remedy: {failure}");
    assert!(lab.command_lines("hvigorw").is_empty(), "{args}: nothing was built");
    let report = lab.report(&out);
    assert_eq!(step(&report, "build")["status"], json!("skipped"));
    failure["details"].clone()
}

#[test]
fn no_device_an_unauthorized_one_or_an_unknown_target_fail_before_any_build() {
    let Some(lab) = lab() else { return };
    let none = preflight_fails(&lab, "sign-install-launch", json!({}), "DEVICE_UNAVAILABLE");
    assert_eq!(none["code"], json!("NO_DEVICE"));
    lab.devices(json!([{"key": "U1", "status": "Unauthorized"}]));
    let unauthorized = preflight_fails(&lab, "sign-install-launch", json!({}), "DEVICE_UNAVAILABLE");
    assert_eq!(unauthorized["code"], json!("UNAUTHORIZED"));
    assert!(unauthorized["remedy"].as_str().unwrap().contains("USB debugging"), "{unauthorized}");
    let named = preflight_fails(&lab, "sign-install-launch", json!({"target": "U1"}), "DEVICE_UNAVAILABLE");
    assert_eq!(named["target"], json!("U1"));
    lab.devices(json!([{"key": KEY}, {"key": "OFF1", "status": "Offline"}]));
    let unknown = preflight_fails(&lab, "sign-install-launch", json!({"target": "NOPE"}), "DEVICE_UNAVAILABLE");
    assert_eq!(unknown["code"], json!("TARGET_NOT_FOUND"));
    assert!(unknown["message"].as_str().unwrap().contains(KEY), "lists the devices there are: {unknown}");
    let several = preflight_fails(&lab, "sign-install-launch", json!({}), "DEVICE_UNAVAILABLE");
    assert_eq!(several["code"], json!("NEED_CONNECT_KEY"));
    let matrix = preflight_fails(&lab, "device-matrix", json!({"targets": [KEY, "NOPE"]}), "DEVICE_UNAVAILABLE");
    assert_eq!(matrix["code"], json!("TARGET_NOT_FOUND"));
    lab.devices(json!([{"key": "U1", "status": "Unauthorized"}, {"key": "OFF1", "status": "Offline"}]));
    preflight_fails(&lab, "device-matrix", json!({}), "DEVICE_UNAVAILABLE");
    assert!(lab.command_lines("hdc").iter().all(|c| c == "list targets -v"), "only the device list was asked");
}

/// build-profile.json5 with no signingConfigs at all.
pub(crate) fn without_signing_configs(lab: &Lab) {
    let path = lab.ws.path("build-profile.json5");
    let text = std::fs::read_to_string(&path).unwrap();
    let (start, end) = (text.find("\"signingConfigs\"").unwrap(), text.find("\"products\"").unwrap());
    std::fs::write(&path, format!("{}\"signingConfigs\": [],\n    {}", &text[..start], &text[end..])).unwrap();
    lab.replace_in("build-profile.json5", "\"signingConfig\": \"default\",", "");
}

#[test]
fn a_product_without_a_usable_signing_path_fails_before_the_build() {
    let profile = "build-profile.json5";
    let cases: [(&str, &str, &str, &str); 4] = [
        ("\"signingConfig\": \"default\"", "\"signingConfig\": \"release\"", "unknown_config", "does not define"),
        ("\"signingConfig\": \"default\",", "", "ciphertext", "[signing.default]"),
        ("\"storeFile\": \"signing/debug.p12\"", "\"storeFile\": \"signing/gone.p12\"", "no_material", "gone.p12"),
        ("", "", "no_config", "DevEco"),
    ];
    for (from, to, problem, says) in cases {
        let Some(lab) = lab() else { return };
        lab.one_device();
        if problem == "no_config" {
            without_signing_configs(&lab);
        } else {
            lab.replace_in(profile, from, to);
        }
        let details = preflight_fails(&lab, "sign-install-launch", json!({}), "SIGNING_NOT_CONFIGURED");
        assert_eq!(details["problem"], json!(problem), "{details}");
        let said = format!("{} {}", details["message"], details["remedy"]);
        assert!(said.contains(says), "{problem}: {said}");
        // A project with no signing config at all asks which device it is for (an emulator
        // would take it unsigned: harmony_emulator); the others fail before any device.
        let asked: &[&str] = if problem == "no_config" { &["list targets -v"] } else { &[] };
        assert!(lab.ran("hap-sign-tool").is_empty() && lab.command_lines("hdc") == asked, "nothing ran");
    }
}

#[test]
fn explain_shows_what_the_preflight_checks() {
    let Some(lab) = lab() else { return };
    for recipe in ["sign-install-launch", "device-matrix"] {
        let (status, out) = lab.rein(&["recipe", recipe, "--explain"]);
        assert_eq!(status, 0, "{out}");
        let first = &out["result"]["steps"][0];
        assert_eq!(first["name"], json!("preflight"), "{out}");
        let said = first["description"].as_str().unwrap();
        assert!(said.contains("Before any build") && said.contains("sign") && said.contains("device"), "{said}");
        let params = &out["result"]["params"]["properties"];
        for name in ["module", "product", "expect_log", "reinstall", "wait_ms"] {
            assert!(params.get(name).is_some(), "{recipe} takes {name}: {params}");
        }
    }
    assert!(!lab.state.join("calls.log").exists(), "nothing ran");
}
