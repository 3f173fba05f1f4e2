//! Fake DevEco `Emulator` (shared/HARMONY-VERIFY.md §6; texts and exit codes verbatim from its
//! table, measured on Emulator 6.1.1.200 [OBS ARG]). Its instances and images are the state
//! directory's `emulators.json`: `{"instances": [{"name", "deviceType", "os.osVersion",
//! "os.apiVersion", "hw.hdc.port", "broken"?}], "images": [{…as -imageList prints}],
//! "running": {"<name>": "<hdc key>"}}`.
//!
//! `-start <name>` is a long-running supervisor, as the real one is: it puts the instance's
//! device in the fake hdc (`127.0.0.1:5555`, the next instance `127.0.0.1:5559`: §6 "As an
//! hdc target"; `const.product.name` is `emulator`, `ohos.qemu.hvd.name` the instance) and
//! stays until `-stop <name>` or a signal ends it; then the device stays listed as `Offline`
//! (§6). Every change it makes to the state (its instance running, its device's status and
//! boot parameter) is a read-modify-write under the state lock, as the device commands' are: a
//! device command running meanwhile (`param get`, which loads and saves the device) would
//! otherwise write back the state it loaded and undo the boot. Its device answers `param get bootevent.boot.completed` `false` for a moment, then
//! `true` (§6 "Ready check"), when it prints `Guest OS Boot Completed!!`. When the process that
//! started it goes, it prints `Client heartbeat lost, exit` and exits (§6 "Start": a real one
//! did when the shell that launched it exited). Scenario `{"Emulator": {"start_writes":
//! [paths]}}` has `-start` try to write each path and say `write <path>: ok` or `write <path>:
//! refused (<error>)` (what a confined Emulator may reach). Scenario `{"Emulator":
//! {"ignores_heartbeat": true}}` has it stay when its launcher goes (GUESS: a hung supervisor
//! whose heartbeat check no longer runs; the real one was seen to exit). The fake's own
//! choices, never seen from the real tool, are marked GUESS.

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::common::outln;
use super::hdc::list_devices;
use crate::state::{Locked, State};

const FILE: &str = "emulators.json";
/// The deployed-instances folder the not-found text names (§6 prints a macOS user's).
const DEPLOYED: &str = "/Users/u/.Huawei/Emulator/deployed";

pub fn main(state: &State, argv: &[String]) -> i32 {
    let words: Vec<&str> = argv.iter().map(String::as_str).collect();
    // Held while this command reads and changes the state; `-start` lets go before it waits.
    let mut lock = Some(state.lock());
    let mut emulators = state.read_json(FILE, json!({}));
    match words.as_slice() {
        ["-list"] => {
            let names: Vec<String> = instances(&emulators).iter().map(|i| text(i, "name")).collect();
            if names.is_empty() {
                outln("[Empty]");
            }
            names.iter().for_each(|n| outln(n));
            0
        }
        ["-list", "-details"] => {
            let mut rows = Vec::new();
            for instance in instances(&emulators) {
                if instance.get("broken") == Some(&json!(true)) {
                    outln(&format!("Config file not found: \"{DEPLOYED}/{}/config.ini\"", text(&instance, "name")));
                    continue;
                }
                rows.push(details(&emulators, &instance));
            }
            outln(&Value::Array(rows).to_string());
            0
        }
        ["-imageList", "-deviceType", kind, "-downloaded", downloaded] => {
            let images: Vec<Value> = emulators["images"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|i| i["deviceType"].as_str() == Some(kind) && i["downloaded"].as_str() == Some(downloaded))
                .cloned()
                .collect();
            if images.is_empty() {
                outln("No images matching the criteria were found.");
            } else {
                outln(&Value::Array(images).to_string());
            }
            0
        }
        ["-stop", name] => {
            let running = emulators["running"].as_object().is_some_and(|r| r.contains_key(*name));
            if !running {
                outln(&format!("Stop emulator  \"{name}\"  failed, emulator is not exists."));
                return 0;
            }
            if let Some(r) = emulators["running"].as_object_mut() {
                r.remove(*name);
            }
            state.write_json(FILE, &emulators);
            // GUESS: what a successful stop prints was never recorded; the fake prints nothing
            // and rein judges the stop by listing again.
            0
        }
        ["-start", name] => start(state, &mut emulators, name, &mut lock),
        _ => {
            // GUESS: the words for a command it does not know.
            outln(&format!("Unknown command: {}", words.join(" ")));
            0
        }
    }
}

fn instances(emulators: &Value) -> Vec<Map<String, Value>> {
    emulators["instances"].as_array().into_iter().flatten().filter_map(|i| i.as_object().cloned()).collect()
}

fn text(map: &Map<String, Value>, key: &str) -> String {
    map.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

/// One `-list -details` row: every value a string (§6).
fn details(emulators: &Value, instance: &Map<String, Value>) -> Value {
    let name = text(instance, "name");
    let running = emulators["running"].as_object().is_some_and(|r| r.contains_key(&name));
    json!({
        "deviceName": name,
        "deviceType": instance.get("deviceType").cloned().unwrap_or(json!("Phone")),
        "hw.hdc.port": instance.get("hw.hdc.port").cloned().unwrap_or(json!("10000")),
        "hw.lcd.single.height": "2856",
        "hw.lcd.single.width": "1320",
        "isRunning": if running { "true" } else { "false" },
        "name": name,
        "os.apiVersion": instance.get("os.apiVersion").cloned().unwrap_or(json!("24")),
        "os.osVersion": instance.get("os.osVersion").cloned().unwrap_or(json!("HarmonyOS 6.1.1(24)")),
    })
}

fn start(state: &State, emulators: &mut Value, name: &str, lock: &mut Option<Locked>) -> i32 {
    if !instances(emulators).iter().any(|i| text(i, "name") == name) {
        outln(&format!("\"{name}\"  is not found. Please create the device(folder):  \"{DEPLOYED}/{name}\""));
        outln("Unable to start the emulator");
        return 1;
    }
    if emulators["running"].as_object().is_some_and(|r| r.contains_key(name)) {
        outln("this emulator instance is already running");
        return 0;
    }
    let taken = emulators["running"].as_object().map_or(0, Map::len);
    let key = format!("127.0.0.1:{}", 5555 + 4 * taken);
    emulators["running"][name] = json!(key);
    state.write_json(FILE, emulators);
    let device = format!("device-{}.json", crate::device::safe_key(&key));
    let mut params = state.read_json(&device, json!({}));
    params["params"]["const.product.name"] = json!("emulator");
    params["params"]["ohos.qemu.hvd.name"] = json!(name);
    params["params"]["bootevent.boot.completed"] = json!("false");
    state.write_json(&device, &params);
    set_status(state, &key, "Connected");
    *lock = None;
    try_writes(state);
    let launcher =
        if state.scenario("Emulator").get("ignores_heartbeat") == Some(&json!(true)) { None } else { launcher() };
    // GUESS: how long a boot takes; long enough that a caller must wait for it.
    let booted_at = std::time::Instant::now() + BOOT_TIME;
    let mut booted = false;
    // Until -stop takes it out of `running` (a signal ends the process as it ends the real one).
    loop {
        std::thread::sleep(Duration::from_millis(100));
        if !booted && std::time::Instant::now() >= booted_at {
            let _lock = state.lock();
            let mut params = state.read_json(&device, json!({}));
            params["params"]["bootevent.boot.completed"] = json!("true");
            state.write_json(&device, &params);
            outln("Guest OS Boot Completed!!");
            booted = true;
        }
        let _lock = state.lock();
        let now = state.read_json(FILE, json!({}));
        if now["running"].get(name).is_none() {
            set_status(state, &key, "Offline");
            return 0;
        }
        if launcher.is_some() && launcher != self::launcher() {
            outln("Client heartbeat lost, exit");
            let mut now = now;
            if let Some(r) = now["running"].as_object_mut() {
                r.remove(name);
            }
            state.write_json(FILE, &now);
            set_status(state, &key, "Offline");
            return 0;
        }
    }
}

/// How long the fake's boot takes before `bootevent.boot.completed` is `true`.
const BOOT_TIME: Duration = Duration::from_millis(700);

/// The process that started this one (its parent; when that goes, another adopts it).
#[cfg(unix)]
fn launcher() -> Option<u32> {
    Some(std::os::unix::process::parent_id())
}

/// Windows tells no parent that changes: the fake does not watch it there.
#[cfg(not(unix))]
fn launcher() -> Option<u32> {
    None
}

/// Scenario `start_writes`: what a confined Emulator may write.
fn try_writes(state: &State) {
    let scenario = state.scenario("Emulator");
    for path in scenario.get("start_writes").and_then(Value::as_array).into_iter().flatten() {
        let Some(path) = path.as_str() else { continue };
        match std::fs::write(path, "written by the fake Emulator\n") {
            Ok(()) => outln(&format!("write {path}: ok")),
            Err(e) => outln(&format!("write {path}: refused ({e})")),
        }
    }
}

fn set_status(state: &State, key: &str, status: &str) {
    let mut devices = list_devices(state);
    devices.retain(|d| d.get("key").and_then(Value::as_str) != Some(key));
    let entry = json!({"key": key, "status": status, "conn": "TCP", "name": "localhost"});
    devices.push(entry.as_object().cloned().unwrap_or_default());
    state.write_json("devices.json", &Value::Array(devices.into_iter().map(Value::Object).collect()));
}
