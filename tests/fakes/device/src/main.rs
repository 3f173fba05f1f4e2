//! The device side of rein's fake HarmonyOS toolchain: the device's own commands (`aa`, `bm`,
//! `hilog`, `hidumper`, `hisysevent`, `pidof`, `param`, `power-shell`, `snapshot_display`,
//! `uitest`, `date`) as one
//! multi-call program. Run under a link named after a command (the test rig puts such links
//! first on the real hdcd's PATH), or as `rein-fake-device COMMAND ARGS…` (the Python fake hdc
//! runs its `shell` commands so, and `bm install`/`bm uninstall` for its install and
//! uninstall, as the real daemon does).
//!
//! Environment: `REIN_FAKE_STATE` (the state directory), `REIN_FAKE_DEVICE` (the connect key
//! whose `device-<key>.json` this device is), `REIN_FAKE_DEVICE_ROOT` (where the device's `/`
//! is; default `device-<key>.fs/` in the state directory), `REIN_FAKE_LOCK_HELD=1` (the caller
//! holds the state lock). tests/fakes/README.md describes the state and every text.
//!
//! scenario.json sections named after a command (`"aa": {"sleep_ms": 3000, "match": "start"}`)
//! make it slow, as the Python fakes' common behaviours do.
//!
//! To add a command: a function `fn(words, &mut Device, &mut String)` in a module of its own,
//! one line in [`run`] and its name in [`COMMANDS`] (so the rig links it).

mod aa;
mod aa_test;
mod bm;
mod bm_install;
mod clock;
mod device;
mod faultlog;
mod hap;
mod hilog;
mod host;
mod hypium;
mod layout;
mod lifecycle;
mod power;
mod probes;
mod screen;
mod state;
mod sysevent;
mod system_dialog;
mod ui_input;
mod words;
mod zip;

use std::io::Write;
use std::path::Path;

use device::Device;
use state::State;

/// The device commands this program answers; the rig links each name to it.
pub const COMMANDS: [&str; 11] = [
    "aa",
    "bm",
    "hilog",
    "hidumper",
    "hisysevent",
    "pidof",
    "param",
    "power-shell",
    "snapshot_display",
    "uitest",
    "date",
];

/// Runs one device command line (already split into words).
fn run(words: &[String], device: &mut Device, out: &mut String) {
    match words[0].as_str() {
        "aa" => aa::aa(words, device, out),
        "bm" => bm::bm(words, device, out),
        "hilog" => hilog::hilog(words, device, out),
        "hidumper" => faultlog::hidumper(words, device, out),
        "hisysevent" => sysevent::hisysevent(words, device, out),
        "power-shell" => power::power_shell(words, device, out),
        "pidof" => probes::pidof(words, device, out),
        "param" => probes::param(words, device, out),
        "snapshot_display" => probes::snapshot_display(words, device, out),
        "uitest" => probes::uitest(words, device, out),
        "date" => clock::date(words, device, out),
        // What the fake hdc's device shell has besides the device's own commands (the rig's
        // device has the real ones).
        "echo" => out.push_str(&format!("{}\n", words[1..].join(" "))),
        "rm" => words[1..].iter().filter(|w| !w.starts_with('-')).for_each(|p| {
            let _ = std::fs::remove_file(device.file(p));
        }),
        "reboot" => device.running_mut().clear(),
        "mount" | "ls" | "mkdir" | "chmod" | "kill" | "true" => {}
        other => out.push_str(&format!("/bin/sh: {other}: inaccessible or not found\n")),
    }
}

/// What a test scripted for this command (scenario.json's `"all"` and the command's own section,
/// as the Python fakes read theirs): `sleep_ms`, when `match` (if any) is in the command line.
/// Before the state lock, so other device commands go on meanwhile.
fn behave(state: &State, words: &[String]) {
    let conf = state.scenario(&words[0]);
    let line = words.join(" ");
    if conf.get("match").and_then(serde_json::Value::as_str).is_some_and(|m| !line.contains(m)) {
        return;
    }
    if let Some(ms) = conf.get("sleep_ms").and_then(serde_json::Value::as_u64) {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// Runs one device command on device `key` as a device shell would: logged, slowed as scripted,
/// under the state lock (unless the caller holds it: `REIN_FAKE_LOCK_HELD=1`); what it printed.
/// The fake hdc runs its device commands through this, as the real daemon runs the device's.
pub fn device_command(state: &State, key: &str, words: &[String]) -> String {
    state.log_call(&words[0], &words[1..], key);
    behave(state, words);
    let mut out = String::new();
    let started = {
        let _lock = state.lock();
        let mut device = Device::load(state, key);
        run(words, &mut device, &mut out);
        device.save(state);
        aa::waiting_pid(words, &device, &out)
    };
    // `aa start -W` prints its block after the ability is in the foreground, and only then
    // `start ability successfully.`.
    if let Some(pid) = started {
        let mut waited = String::new();
        lifecycle::wait_for_foreground(state, key, words, pid, &mut waited);
        out = waited + &out;
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let called = args.first().and_then(|a| Path::new(a).file_stem()).and_then(|s| s.to_str()).unwrap_or("");
    if let Some(code) = host::run_as(called, &args[1..]) {
        std::process::exit(code);
    }
    let words: Vec<String> = if COMMANDS.contains(&called) {
        std::iter::once(called.to_string()).chain(args.iter().skip(1).cloned()).collect()
    } else {
        args.iter().skip(1).cloned().collect()
    };
    if words.is_empty() || words[0] == "--help" {
        eprintln!("usage: rein-fake-device COMMAND [ARGS...]   (or a link named after COMMAND)");
        eprintln!("commands: {}", COMMANDS.join(", "));
        eprintln!("host side: {} (as links of those names, or as the first word)", host::PROGRAMS.join(", "));
        std::process::exit(2);
    }
    if words[0] == "sleep" {
        // A host fake's child that only waits (scenario `spawn_child`): no state, no log.
        let secs = words.get(1).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
        std::thread::sleep(std::time::Duration::from_secs_f64(secs.max(0.0)));
        return;
    }
    let state = State::from_env();
    let key = std::env::var("REIN_FAKE_DEVICE").ok().filter(|k| !k.is_empty()).unwrap_or_else(|| "device".into());
    let out = device_command(&state, &key, &words);
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out.as_bytes());
    let _ = stdout.flush();
}
