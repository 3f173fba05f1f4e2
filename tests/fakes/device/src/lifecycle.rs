//! An ability's life after `aa start`: its first page takes `foreground_after_ms` to load, then
//! the ability is FOREGROUND; an app set to freeze never gets there, and the system records an
//! APP_FREEZE for it `after_ms` (default 6000: THREAD_BLOCK_6S) later. `aa dump -l` shows the
//! states, `aa start -W` waits for the foreground.
//!
//! Sources (`openharmony/ability_ability_runtime` @13c4af6f): `aa start -W` is
//! `tools/aa/src/ability_command.cpp` `StartAbilityWithWait` / `FormatOutputForWithWait` (added
//! in f8a4942e, 2025-05-15; waits at most `MAX_WAIT_TIME`, 15 s, and prints the block only when
//! the ability reached the foreground), and an image without it answers `-W` as any unknown
//! option (`MakeWantFromCmd` before f8a4942e: `fail: unknown option.` from
//! `ShellCommand::GetUnknownOptionMsg`, then `HELP_MSG_START`; `opterr = 0`, so getopt prints
//! nothing). `aa dump -l` is `services/abilitymgr/src/scene_board/ui_ability_lifecycle_manager.cpp`
//! `DumpMissionList` with `ability_record.cpp` `DumpAbilityState`, states from
//! `services/abilitymgr/src/utils/state_utils.cpp`.

use serde_json::{json, Value};

use crate::device::Device;
use crate::state::{now_secs, State};
use crate::sysevent;

/// The first page's load when nobody set one: long enough that a check at the pid alone comes
/// before it.
const FOREGROUND_AFTER_MS: u64 = 300;
/// `THREAD_BLOCK_6S`: the main thread blocked this long is an APP_FREEZE.
const FREEZE_AFTER_MS: u64 = 6000;
/// `MAX_WAIT_TIME` of `aa start -W`.
const AA_WAIT_MAX_MS: u64 = 15000;

/// `HELP_MSG_START` of an aa without `-W` (ability_command.h before f8a4942e), adjacent string
/// literals joined as the compiler joins them.
const HELP_MSG_START: &str = concat!(
    "usage: aa start <options>\n",
    "options list:\n",
    "  -h, --help                                                   list available commands\n",
    "  [-d <device-id>] [-a <ability-name> -b <bundle-name>] [-m <module-name>] [-p <perf-cmd>] [-D] [-E] [-S] [-N]",
    "  [-R] [--ps <key> <string-value>] ",
    "  [--pi <key> <integer-value>] ",
    "  [--pb <key> <boolean-value>] ",
    "  [--psn <key>] ",
    "  [-A <action-name>] ",
    "  [-U <URI>] ",
    "  [-e <entity>] ",
    "  [-t <mime-type>] ",
    "  [--wl <window-left>] ",
    "  [--wt <window-top>] ",
    "  [--wh <window-height>] ",
    "  [--ww <window-width>] ",
    "  start ability with an element name\n",
);

/// The device's `freeze_on_launch` setting for `bundle` (`true` means the defaults).
fn freeze_for(device: &Device, bundle: &str) -> Option<Value> {
    match device.flag("freeze_on_launch").get(bundle) {
        None | Some(Value::Null) | Some(Value::Bool(false)) => None,
        Some(Value::Object(freeze)) => Some(Value::Object(freeze.clone())),
        Some(_) => Some(json!({})),
    }
}

/// Marks a new process's way to the foreground: `foreground_at`, or `freezes_at` for an app set
/// to freeze.
pub fn begin(device: &Device, process: &mut Value) {
    let bundle = process["bundle"].as_str().unwrap_or("").to_string();
    let now = now_secs();
    process["started_at"] = json!(now);
    if let Some(freeze) = freeze_for(device, &bundle) {
        let after = freeze.get("after_ms").and_then(Value::as_u64).unwrap_or(FREEZE_AFTER_MS);
        process["freezes_at"] = json!(now + after as f64 / 1000.0);
        return;
    }
    let after = device.flag("foreground_after_ms").as_u64().unwrap_or(FOREGROUND_AFTER_MS);
    process["foreground_at"] = json!(now + after as f64 / 1000.0);
}

/// Freezes whose time has come are recorded (once) as APP_FREEZE events; the process lives on.
pub fn record_freezes(device: &mut Device) {
    let now = now_secs();
    let mut frozen = Vec::new();
    for process in device.running_mut() {
        let due = process.get("freezes_at").and_then(Value::as_f64).is_some_and(|t| t <= now);
        if due && process.get("freeze_recorded").is_none() {
            process["freeze_recorded"] = json!(true);
            frozen.push(process.clone());
        }
    }
    for process in frozen {
        let at = process["freezes_at"].as_f64().unwrap_or(now);
        sysevent::record(device, "APP_FREEZE", &process, "THREAD_BLOCK_6S", at, "");
    }
}

fn in_foreground(process: &Value, now: f64) -> bool {
    process.get("foreground_at").and_then(Value::as_f64).is_some_and(|t| t <= now)
}

/// `aa dump -l`: every running ability's mission and record.
pub fn dump_missions(device: &Device, out: &mut String) {
    let now = now_secs();
    out.push_str("User ID #100\n  current mission lists:{\n");
    for (n, r) in device.running().iter().enumerate() {
        let bundle = r["bundle"].as_str().unwrap_or("");
        let ability = r["ability"].as_str().unwrap_or("");
        let module = device.installed().get(bundle).and_then(|a| a.get("module")).and_then(Value::as_str);
        let (state, app_state) = if r.get("background") == Some(&json!(true)) {
            ("BACKGROUND", "BACKGROUND")
        } else if in_foreground(r, now) {
            ("FOREGROUND", "FOREGROUND")
        } else {
            ("FOREGROUNDING", "READY")
        };
        let started = (r["started_at"].as_f64().unwrap_or(now) * 1000.0) as i64;
        let id = n + 1;
        out.push_str(&format!(
            "    Mission ID #{id}  mission name #[#{bundle}:{}:{ability}]  lockedState #0  mission affinity #[]\n",
            module.unwrap_or("entry")
        ));
        for line in [
            format!("      AbilityRecord ID #{}", 29518 + id),
            format!("        app name [{bundle}]"),
            format!("        main name [{ability}]"),
            format!("        bundle name [{bundle}]"),
            "        ability type [PAGE]".to_string(),
            format!("        state #{state}  start time [{started}]"),
            format!("        app state #{app_state}"),
            format!("        ready #1  window attached #{}  launcher #0", u8::from(state == "FOREGROUND")),
            "        callee connections: ".to_string(),
            "        isKeepAlive: false".to_string(),
        ] {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out.push_str(" }\n");
}

/// An image whose aa has no `-W`: the device's `aa_start_wait` is not true.
pub fn unknown_wait_option(device: &Device, out: &mut String) -> bool {
    if device.flag("aa_start_wait") == &json!(true) {
        return false;
    }
    out.push_str("fail: unknown option.\n");
    out.push_str(HELP_MSG_START);
    true
}

/// `aa start -W …` after the start itself: waits (outside the state lock, as the real aa waits
/// on its observer) until the pid's ability is in the foreground, the process is gone, or
/// `MAX_WAIT_TIME` (a device's `aa_wait_max_ms` shortens it) has passed, then prints the block
/// only for a foreground reached.
pub fn wait_for_foreground(state: &State, key: &str, words: &[String], pid: i64, out: &mut String) {
    let begun = now_secs();
    let max_ms = {
        let _lock = state.lock();
        Device::load(state, key).flag("aa_wait_max_ms").as_u64().unwrap_or(AA_WAIT_MAX_MS)
    };
    loop {
        let now = now_secs();
        let process = {
            let _lock = state.lock();
            let device = Device::load(state, key);
            let found = device.running().iter().find(|r| r["pid"].as_i64() == Some(pid)).cloned();
            device.save(state);
            found
        };
        let Some(process) = process else { break };
        if in_foreground(&process, now) {
            let started = process["started_at"].as_f64().unwrap_or(begun);
            let fg = process["foreground_at"].as_f64().unwrap_or(now);
            out.push_str(&format!(
                "StartMode: Cold\nBundleName: {}\nAbilityName: {}\n",
                process["bundle"].as_str().unwrap_or(""),
                process["ability"].as_str().unwrap_or("")
            ));
            if let Some(module) = crate::words::flag(words, "-m") {
                out.push_str(&format!("ModuleName: {module}\n"));
            }
            out.push_str(&format!(
                "TotalTime: {}\nWaitTime: {}\n",
                ((fg - started) * 1000.0) as i64,
                ((now - begun) * 1000.0) as i64
            ));
            break;
        }
        if (now - begun) * 1000.0 >= max_ms as f64 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
