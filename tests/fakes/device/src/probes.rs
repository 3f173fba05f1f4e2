//! The device's small commands: `pidof` (toybox), `param`, `snapshot_display`
//! (`openharmony/window_window_manager` snapshot/src/snapshot_display.cpp; texts observed in
//! shared/HARMONY.md §4) and `uitest` (its `dumpLayout` is layout.rs).

use serde_json::{json, Value};

use crate::device::Device;
use crate::words::flag;

/// A valid 8x8 grey baseline JPEG (SOI, JFIF, DQT, SOF0, two one-code DHTs, SOS, EOI).
pub fn tiny_jpeg() -> Vec<u8> {
    let mut hex = String::from("ffd8ffe000104a46494600010100000100010000ffdb004300");
    hex.push_str(&"01".repeat(64));
    hex.push_str("ffc0000b080008000801011100");
    hex.push_str("ffc40014000100000000000000000000000000000000");
    hex.push_str("ffc40014100100000000000000000000000000000000");
    hex.push_str("ffda0008010100003f003fffd9");
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).expect("hex")).collect()
}

/// toybox `pidof BUNDLE`: the pids on one line, nothing when none runs.
pub fn pidof(words: &[String], device: &Device, out: &mut String) {
    let bundle = words.get(1).map(String::as_str).unwrap_or("");
    let mut pids: Vec<i64> =
        device.running().iter().filter(|r| r["bundle"] == bundle).filter_map(|r| r["pid"].as_i64()).collect();
    pids.sort();
    pids.dedup();
    if !pids.is_empty() {
        let line: Vec<String> = pids.iter().map(i64::to_string).collect();
        out.push_str(&format!("{}\n", line.join(" ")));
    }
}

/// `param get [KEY]`, `param set KEY VALUE` (the failure and set texts are GUESSES).
pub fn param(words: &[String], device: &mut Device, out: &mut String) {
    let text = |v: &Value| v.as_str().map(String::from).unwrap_or(v.to_string());
    match (words.get(1).map(String::as_str), words.len()) {
        (Some("get"), 2) => {
            let mut keys: Vec<&String> = device.params().keys().collect();
            keys.sort();
            for k in keys {
                out.push_str(&format!("{k} = {}\n", text(&device.params()[k])));
            }
        }
        (Some("get"), _) => match device.params().get(&words[2]) {
            Some(value) => out.push_str(&format!("{}\n", text(value))),
            None => out.push_str(&format!("Get parameter \"{}\" fail! errNum is:106!\n", words[2])),
        },
        (Some("set"), n) if n >= 4 => {
            device.params_mut().insert(words[2].clone(), json!(words[3]));
            out.push_str(&format!("Set parameter {} {} success\n", words[2], words[3]));
        }
        _ => out.push_str("Command list:\n\tparam ls [-r] [name]\n\tparam get [name]\n\tparam set name value\n"),
    }
}

/// `snapshot_display -f /data/local/tmp/x.jpeg`: writes the picture and says so. With scenario
/// `hdc.snapshot_format: "old"` the older builds' `width 800, height 1280`.
pub fn snapshot_display(words: &[String], device: &Device, out: &mut String) {
    let default = format!("/data/local/tmp/snapshot_{}.jpeg", chrono::Local::now().format("%Y-%m-%d_%H-%M-%S"));
    let path = flag(words, "-f").map(String::from).unwrap_or(default);
    if !path.ends_with(".jpeg") {
        out.push_str("error: the file name must end with .jpeg\n"); // GUESS
        return;
    }
    if let Err(e) = device.write_file(&path, &tiny_jpeg()) {
        out.push_str(&format!("error: cannot write {path}: {e}\n")); // GUESS
        return;
    }
    let size = if device.conf.get("snapshot_format") == Some(&json!("old")) {
        "width 800, height 1280"
    } else {
        "width: 1276, height: 2848"
    };
    out.push_str(&format!("success: snapshot display 0 , write to {path} as jpeg, {size}\n"));
}

/// `uitest dumpLayout …` (crate::layout); other uitest commands are not faked.
pub fn uitest(words: &[String], device: &mut Device, out: &mut String) {
    match words.get(1).map(String::as_str) {
        Some("dumpLayout") => crate::layout::dump_layout(words, device, out),
        Some("uiInput") => crate::ui_input::ui_input(words, device, out),
        _ => out.push_str("uitest: only dumpLayout and uiInput are faked\n"), // GUESS
    }
}
