//! The device list is hdc's own, or an error: a program that exits non-zero (the real client
//! always exits 0) or prints a line that is no connect key lists no device, and every tool that
//! runs hdc stops with DEVICE_UNAVAILABLE naming what it printed.

use crate::common::lab::{lab, Lab, KEY};
use serde_json::json;
use std::os::unix::fs::PermissionsExt;

/// A program named as home config.toml's hdc that prints `stdout` and exits `status`.
fn hdc_printing(lab: &Lab, stdout: &str, status: i32) {
    let script = format!(
        "#!/bin/sh\ncat <<'OUT'\n{stdout}OUT\necho 'Fatal Python error: init_fs_encoding' >&2\nexit {status}\n"
    );
    let hdc = lab.ws.outside_file("broken/hdc", script);
    std::fs::set_permissions(&hdc, std::fs::Permissions::from_mode(0o755)).unwrap();
    lab.toolchain("hdc", &hdc);
}

const PYTHON_TRACE: &str =
    "Python path configuration:\n  sys.path = [\n    '/opt/hdc/python311.zip',\n    '/opt/hdc/lib',\n  ]\n";

#[test]
fn an_hdc_that_exits_non_zero_lists_no_device_and_says_what_it_printed() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    hdc_printing(&lab, PYTHON_TRACE, 1);
    let error = lab.failed(&[], "device_list", json!({}), "DEVICE_UNAVAILABLE");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("hdc exited with status 1"), "{error}");
    assert!(message.contains("'/opt/hdc/python311.zip',") && message.contains("Fatal Python error"), "{error}");
    assert_eq!(error["details"]["exit_code"], json!(1), "{error}");
    assert!(error["details"]["remedy"].as_str().unwrap().contains("rein doctor"), "{error}");
    // Every caller of device.run, not only device_list.
    for (tool, args) in [
        ("app_launch", json!({"bundle": "com.example.hello", "ability": "EntryAbility", "target": KEY})),
        ("hilog_read", json!({"target": KEY})),
        ("app_stop", json!({"bundle": "com.example.hello", "target": KEY})),
    ] {
        let error = lab.failed(&["--yes"], tool, args, "DEVICE_UNAVAILABLE");
        assert!(error["message"].as_str().unwrap().contains("exited with status 1"), "{tool}: {error}");
    }
}

#[test]
fn a_list_line_that_is_not_a_connect_key_is_no_device() {
    let Some(lab) = lab() else { return };
    hdc_printing(&lab, &format!("{KEY}\n{PYTHON_TRACE}"), 0);
    let error = lab.failed(&[], "device_list", json!({}), "DEVICE_UNAVAILABLE");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("printed a line that is not a connect key: `Python path configuration:`"), "{error}");
    assert_eq!(error["details"]["code"], json!("NOT_A_TARGET"), "{error}");
    assert!(error["details"].get("devices").is_none(), "no device is made up: {error}");
}

#[test]
fn the_real_list_forms_still_list_their_devices() {
    let Some(lab) = lab() else { return };
    lab.devices(json!([
        {"key": KEY, "name": "phone"},
        {"key": "127.0.0.1:5555", "conn": "TCP", "name": "emulator"},
        {"key": "U1", "status": "Unauthorized"},
    ]));
    let devices = lab.ok(&[], "device_list", json!({}))["devices"].clone();
    let keys: Vec<&str> = devices.as_array().unwrap().iter().map(|d| d["key"].as_str().unwrap()).collect();
    assert_eq!(keys, [KEY, "127.0.0.1:5555", "U1"], "{devices}");
    lab.devices(json!([]));
    assert_eq!(lab.ok(&[], "device_list", json!({}))["devices"], json!([]));
}
