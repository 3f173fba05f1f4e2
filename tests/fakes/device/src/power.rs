//! The screen: `power-shell wakeup` and `power-shell timeout -o MS | -r`, and the lock state in
//! `hidumper -s ScreenlockService -a -all`. Device fields: `screen_on` (default true),
//! `screen_locked` (default false), `screen_off_ms` (the override `timeout -o` set, gone after
//! `-r`).
//!
//! Sources: `openharmony/powermgr_power_manager` @92dd20f6 `utils/shell/src/power_shell_command.cpp`
//! (`RunAsWakeupCommand`: `WakeupDevice is called`; `RunAsTimeOutCommand`: `Override screen off
//! time to <ms>`, `Restore screen off time`, ` failed` on an error); `openharmony/
//! theme_screenlock_mgr` @5fd7870b `services/src/screenlock_system_ability.cpp`
//! (`RegisterDumpCommand` for `-all`, `AppendPrintOtherInfo`; the `\\t` of its header line is a
//! backslash and a `t` in the source) and `services/src/dump_helper.cpp` (`Dispatch`); hidumper's
//! frame as for HiviewService (faultlog.rs).

use serde_json::json;

use crate::device::Device;
use crate::faultlog::{ABILITY_LINE, SA_SEPARATOR};

fn on(device: &Device, field: &str, default: bool) -> bool {
    device.flag(field).as_bool().unwrap_or(default)
}

/// `power-shell wakeup | timeout -o MS | timeout -r`.
pub fn power_shell(words: &[String], device: &mut Device, out: &mut String) {
    match (words.get(1).map(String::as_str), words.get(2).map(String::as_str)) {
        (Some("wakeup"), _) => {
            device.state.insert("screen_on".into(), json!(true));
            out.push_str("WakeupDevice is called\n");
        }
        (Some("timeout"), Some("-o")) => match words.get(3).and_then(|ms| ms.parse::<i64>().ok()) {
            Some(ms) => {
                device.state.insert("screen_off_ms".into(), json!(ms));
                out.push_str(&format!("Override screen off time to {ms}\n"));
            }
            None => out.push_str(
                "Error! please input your screen off time.\nusage: power-shell timeout [<options>] 1000\ntimeout <options are as below> \n  -o  :  override screen off time\n  -r  :  restore screen off time\n",
            ),
        },
        (Some("timeout"), Some("-r")) => {
            device.state.remove("screen_off_ms");
            out.push_str("Restore screen off time\n");
        }
        _ => out.push_str("power-shell: only wakeup and timeout -o/-r are faked\n"), // GUESS
    }
}

/// `hidumper -s ScreenlockService -a -all`.
pub fn screenlock_dump(words: &[String], device: &Device, out: &mut String) {
    out.push_str(&format!("\n{ABILITY_LINE}\n\n\n{SA_SEPARATOR}ScreenlockService{SA_SEPARATOR}\n"));
    out.push_str("\n---------------------------------\n");
    if crate::words::flag(words, "-a") != Some("-all") {
        return;
    }
    let text = |b: bool| if b { "true" } else { "false" };
    let locked = on(device, "screen_locked", false);
    let screen = on(device, "screen_on", true);
    out.push_str("\n Screenlock system state\\tValue\\t\\tDescription\n");
    out.push_str(&format!(" * screenState  \t\t{}\t\tscreen on / off status\n", text(screen)));
    out.push_str(" * offReason  \t\t\t0\t\tscreen failure reason\n");
    out.push_str(&format!(" * interactiveState \t\t{}\t\tscreen interaction status\n", u8::from(screen)));
    out.push_str(&format!(" * deviceLocked  \t\t{}\t\t100\n", text(locked)));
    out.push_str(" * authState  \t\t0\t\t100\n");
    out.push_str(&format!(" * screenLocked  \t\t{}\t\t100\n", text(locked)));
    out.push_str(" * strongAuth  \t\t100\t\t0\t\t0\n");
    out.push('\n');
}
