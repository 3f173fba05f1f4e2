//! A device ready for an install or a launch: booted, woken, not locked. A locked device is
//! DEVICE_LOCKED with what to do (rein never tries to unlock it); a device still booting is
//! DEVICE_NOT_READY; a recipe keeps the screen on while it works and restores the timeout after,
//! also when a step failed.

use crate::common::lab::{installed_lab, lab, KEY, SIGNED_HAP as SIGNED};
use serde_json::json;

#[test]
fn a_locked_device_is_device_locked_with_what_to_do_and_nothing_starts() {
    let Some(lab) = installed_lab() else { return };
    lab.edit_device(KEY, |state| state["screen_locked"] = json!(true));
    let error = lab.failed(&["--yes"], "app_launch", json!({}), "DEVICE_LOCKED");
    assert!(error["message"].as_str().unwrap().contains("rein woke it but cannot unlock it"), "{error}");
    assert!(error["details"]["remedy"].as_str().unwrap().contains("unlock the device's screen"), "{error}");
    let hdc = lab.command_lines("hdc");
    assert!(!hdc.iter().any(|c| c.contains("aa start")), "no launch on a locked device: {hdc:#?}");
    assert!(hdc.iter().any(|c| c.ends_with("shell power-shell wakeup")), "{hdc:#?}");
    assert!(hdc.iter().any(|c| c.ends_with("shell hidumper -s ScreenlockService -a -all")), "{hdc:#?}");
}

#[test]
fn a_device_still_booting_takes_no_install() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.build();
    lab.device(KEY, json!({"params": {"bootevent.boot.completed": "false"}}));
    let error = lab.failed(&["--yes"], "app_install", json!({"hap": SIGNED}), "DEVICE_NOT_READY");
    assert!(error["message"].as_str().unwrap().contains("has not finished booting"), "{error}");
    assert_eq!(lab.read_device(KEY)["installed"], json!({}), "nothing installed");
}

#[test]
fn a_sleeping_screen_is_woken_before_the_launch() {
    let Some(lab) = installed_lab() else { return };
    lab.edit_device(KEY, |state| state["screen_on"] = json!(false));
    let proof = lab.ok(&["--yes"], "app_launch", json!({}));
    assert_eq!(proof["ready"], json!("boot completed; screen woken; not locked"), "{proof}");
    assert_eq!(lab.read_device(KEY)["screen_on"], json!(true));
}

#[test]
fn the_recipe_keeps_the_screen_on_and_restores_the_timeout_even_after_a_failure() {
    for crash in [false, true] {
        let Some(lab) = lab() else { return };
        lab.one_device();
        if crash {
            lab.device(KEY, json!({"crash_on_launch": {"com.example.hello": {"after_ms": 1500}}}));
        }
        let (status, out) = lab.recipe(&["--yes"], "sign-install-launch", json!({}));
        assert_eq!(status, if crash { 1 } else { 0 }, "{out}");
        let hdc = lab.command_lines("hdc");
        let on = hdc.iter().position(|c| c.ends_with("shell power-shell timeout -o 600000")).expect("kept on");
        let start = hdc.iter().position(|c| c.contains("shell aa start")).expect("launched");
        let restored: Vec<usize> = hdc
            .iter()
            .enumerate()
            .filter(|(_, c)| c.ends_with("shell power-shell timeout -r"))
            .map(|(i, _)| i)
            .collect();
        assert!(on < start && restored.last().is_some_and(|r| *r > start), "{hdc:#?}");
        assert!(lab.read_device(KEY).get("screen_off_ms").is_none(), "the device's own timeout is back");
    }
}
