//! One device's state, `device-<key>.json` in the state directory (tests/fakes/README.md), with
//! its defaults filled in, and its file system: a folder the device's paths live under.

use std::path::PathBuf;

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::faultlog;
use crate::state::State;

/// `param get` values of a device nobody configured.
pub const DEFAULT_PARAMS: [(&str, &str); 8] = [
    ("bootevent.boot.completed", "true"),
    ("const.ohos.apiversion", "12"),
    ("const.ohos.fullname", "OpenHarmony-5.0.0.71"),
    ("const.product.brand", "FAKE"),
    ("const.product.manufacturer", "FAKE"),
    ("const.product.software.version", "FAKE 5.0.0.71(SP1C00E71R4P1)"),
    ("const.security.developermode.state", "true"),
    ("persist.hdc.mode", "usb"),
];

pub const FIRST_PID: i64 = 2291;
pub const PID_STEP: i64 = 17;
/// The ring buffer keeps this many lines; older ones drop off, newer launches' lines stay.
pub const HILOG_RING: usize = 5000;

pub struct Device {
    pub key: String,
    /// Every field of `device-<key>.json`, defaults included.
    pub state: Map<String, Value>,
    /// scenario.json's `hdc` section: the device clock (`now`, `year`) and output formats.
    pub conf: Map<String, Value>,
    /// Where the device's `/` is: `REIN_FAKE_DEVICE_ROOT` (the rig: `/` in its own mount
    /// namespace), else `device-<key>.fs/` in the state directory.
    pub root: PathBuf,
}

/// The key in `device-<key>.json` and `device-<key>.fs`: upper-case letters, digits, `.` and `-`
/// as they are, any other character as `_<hex code>_` (`d1` → `_64_1`), so two keys that differ
/// only in case (`D1`, `d1`) get two files on Windows' disks, which compare names without case.
pub fn safe_key(key: &str) -> String {
    key.chars()
        .map(|c| match c {
            'A'..='Z' | '0'..='9' | '.' | '-' => c.to_string(),
            _ => format!("_{:x}_", u32::from(c)),
        })
        .collect()
}

pub fn sha256_upper(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02X}")).collect()
}

impl Device {
    /// The device's state with every field present, and every process whose time has come gone.
    pub fn load(state: &State, key: &str) -> Device {
        let file = format!("device-{}.json", safe_key(key));
        let mut map = state.read_json(&file, json!({})).as_object().cloned().unwrap_or_default();
        map.entry("udid").or_insert_with(|| json!(sha256_upper(key.as_bytes())));
        for (field, empty) in [("installed", json!({})), ("running", json!([])), ("hilog", json!([]))] {
            map.entry(field).or_insert(empty);
        }
        map.entry("faultlogs").or_insert(json!([]));
        map.entry("next_pid").or_insert(json!(FIRST_PID));
        let mut params: Map<String, Value> = DEFAULT_PARAMS.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
        if let Some(set) = map.get("params").and_then(Value::as_object) {
            params.extend(set.clone());
        }
        map.insert("params".into(), Value::Object(params));
        let root = match std::env::var_os("REIN_FAKE_DEVICE_ROOT").filter(|v| !v.is_empty()) {
            Some(root) => PathBuf::from(root),
            None => state.path(&format!("device-{}.fs", safe_key(key))),
        };
        let mut device = Device { key: key.to_string(), state: map, conf: state.scenario("hdc"), root };
        faultlog::reap(&mut device);
        crate::lifecycle::record_freezes(&mut device);
        device
    }

    pub fn save(&self, state: &State) {
        let mut map = self.state.clone();
        if let Some(Value::Array(lines)) = map.get_mut("hilog") {
            let drop = lines.len().saturating_sub(HILOG_RING);
            lines.drain(..drop);
        }
        if let Some(Value::Object(params)) = map.get_mut("params") {
            params.retain(|k, v| DEFAULT_PARAMS.iter().all(|(dk, dv)| dk != k || v.as_str() != Some(dv)));
        }
        state.write_json(&format!("device-{}.json", safe_key(&self.key)), &Value::Object(map));
    }

    pub fn installed(&self) -> &Map<String, Value> {
        self.state["installed"].as_object().expect("installed is an object")
    }

    pub fn installed_mut(&mut self) -> &mut Map<String, Value> {
        self.state.get_mut("installed").and_then(Value::as_object_mut).expect("installed is an object")
    }

    pub fn running(&self) -> &Vec<Value> {
        self.state["running"].as_array().expect("running is a list")
    }

    pub fn running_mut(&mut self) -> &mut Vec<Value> {
        self.state.get_mut("running").and_then(Value::as_array_mut).expect("running is a list")
    }

    /// Ends every process of `bundle` (install, force-stop, uninstall).
    pub fn stop(&mut self, bundle: &str) {
        self.running_mut().retain(|r| r["bundle"] != bundle);
        // What its screen showed goes with it: the next start opens its main page afresh.
        if let Some(ui) = self.state.get_mut("ui").and_then(Value::as_object_mut) {
            ui.remove(bundle);
        }
    }

    pub fn hilog_mut(&mut self) -> &mut Vec<Value> {
        self.state.get_mut("hilog").and_then(Value::as_array_mut).expect("hilog is a list")
    }

    pub fn params(&self) -> &Map<String, Value> {
        self.state["params"].as_object().expect("params is an object")
    }

    pub fn params_mut(&mut self) -> &mut Map<String, Value> {
        self.state.get_mut("params").and_then(Value::as_object_mut).expect("params is an object")
    }

    /// The pid the next started process gets; each new process adds [`PID_STEP`].
    pub fn new_pid(&mut self) -> i64 {
        let pid = self.state["next_pid"].as_i64().unwrap_or(FIRST_PID);
        self.state.insert("next_pid".into(), json!(pid + PID_STEP));
        pid
    }

    /// A switch of the device state (`start_error`, `screen_locked`, …), null when unset.
    pub fn flag(&self, name: &str) -> &Value {
        self.state.get(name).unwrap_or(&Value::Null)
    }

    /// Where the device path `remote` (absolute) lives on this machine.
    pub fn file(&self, remote: &str) -> PathBuf {
        self.root.join(remote.trim_start_matches('/'))
    }

    /// Writes a device file, creating its folders as the device's own tools find them made.
    pub fn write_file(&self, remote: &str, bytes: &[u8]) -> std::io::Result<()> {
        let path = self.file(remote);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, bytes)
    }
}
