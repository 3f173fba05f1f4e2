//! `aa`: start, force-stop and dump, with the texts of `openharmony/ability_ability_runtime`
//! @13c4af6f `tools/aa/include/ability_command.h` (STRING_* constants), `tools/aa/src/
//! ability_command.cpp` (`CreateMessageMap`, `RunAsStartAbility`, `RunAsForceStop`) and
//! `tools/aa/include/shell_command.h` (`AaToolErrorInfo::ToString`).

use serde_json::{json, Value};

use crate::clock;
use crate::device::Device;
use crate::hilog;
use crate::lifecycle;
use crate::state::now_secs;
use crate::words::{flag, has};

struct AaError {
    code: i64,
    message: &'static str,
    cause: &'static str,
    solutions: &'static [&'static str],
}

/// `CreateMessageMap`: code → message, cause, solutions.
const AA_ERRORS: [AaError; 11] = [
    AaError {
        code: 10104001,
        message: "The specified ability does not exist",
        cause: "The specified Ability is not installed",
        solutions: &[
            "Check if the parameter abilityName of aa -a and the parameter bundleName of -b are correct",
            "Check if the application corresponding to the specified bundleName is installed",
            "For multi-HAP applications, it is necessary to confirm whether the HAP to which the ability belongs has been installed",
        ],
    },
    AaError {
        code: 10104002,
        message: "Failed to retrieve specified package information.",
        cause: "The application corresponding to the specified package name is not installed.",
        solutions: &[
            "Check if the bundleName is correct",
            "Check whether the application corresponding to the specified bundleName is installed",
        ],
    },
    AaError {
        code: 10103001,
        message: "Failed to verify the visibility of the target ability.",
        cause: "Application visibility check failed",
        solutions: &["Check if the exported configuration of the Ability field in the module.json5 of the pulled application is set to true. If not, set it to true"],
    },
    AaError {
        code: 10105001,
        message: "Ability service connection failed",
        cause: "Failed to obtain the ability remote service",
        solutions: &["Try restarting the device and executing again"],
    },
    AaError {
        code: 10105002,
        message: "Failed to get the ability service",
        cause: "The abilityInfo is empty when generating the Ability request through BMS",
        solutions: &["Check if the application corresponding to the specified bundleName is installed"],
    },
    AaError {
        code: 10106001,
        message: "not developer Mode",
        cause: "The current device is not in developer mode",
        solutions: &["Enable developer mode in the settings"],
    },
    AaError {
        code: 10106101,
        message: "Another ability is being started. Wait until it finishes starting",
        cause: "High system concurrency",
        solutions: &["No need to process, just wait for the startup"],
    },
    AaError {
        code: 10106102,
        message: "The device screen is locked during the application launch, unlock screen failed.",
        cause: "The current mode is developer mode, and the screen cannot be unlocked automatically",
        solutions: &["Check in the settings whether the current device is in developer mode, and turn off developer mode"],
    },
    AaError {
        code: 10108101,
        message: "An internal error occurs while attempting to launch the ability.",
        cause: "Kernel common errors such as memory allocation and multithreading processing. Specific reasons may include: internal object being null, processing timeout, failure to obtain application information from package management, failure to obtain system service, the number of launched ability instances has reached the limit, etc",
        solutions: &[
            "Confirm whether the system memory is sufficient and if there are any issues with the system version used by the device",
            "Check if too many abilities have been launched",
            "Try restarting the device",
        ],
    },
    // `aa test`'s start failures: the messages are AADOC's (`aa-tool.md`); the causes and
    // solutions are GUESSES (rein reads only the code).
    AaError {
        code: 10106002,
        message: "The aa start command's window option or the aa test command does not support app with release signature.",
        cause: "The application is signed with a release certificate",
        solutions: &["Sign the application with a debug certificate and install it again"],
    },
    AaError {
        code: 10108501,
        message: "internal error.",
        cause: "Kernel common errors such as memory allocation and multithreading processing",
        solutions: &["Try restarting the device"],
    },
];

/// What `aa force-stop` answers for a bundle that is not installed: GUESS (KillProcess's error
/// for an unknown bundle is not in the tool's sources); the text is 10104002's.
const FORCE_STOP_UNKNOWN: i64 = 10104002;

/// `AaToolErrorInfo::ToString`: every line ends in "\n"; any code not in the map prints
/// 10108101's texts.
pub fn error_info(code: i64) -> String {
    let internal = AA_ERRORS.iter().find(|e| e.code == 10108101).expect("10108101 is in the map");
    let e = AA_ERRORS.iter().find(|e| e.code == code).unwrap_or(internal);
    let mut text =
        format!("Error Code:{code}  Error Message:{}\nError cause: {}\n  Try the following:\n", e.message, e.cause);
    for s in e.solutions {
        text.push_str(&format!("  > {s}\n"));
    }
    text
}

pub fn aa(words: &[String], device: &mut Device, out: &mut String) {
    match words.get(1).map(String::as_str) {
        Some("start") => start(words, device, out),
        Some("test") => crate::aa_test::aa_test(words, device, out),
        Some("force-stop") => force_stop(words.get(2).map(String::as_str).unwrap_or(""), device, out),
        Some("dump") if has(words, "-l") => lifecycle::dump_missions(device, out),
        Some("dump") => dump(device, out),
        _ => out.push_str("usage: aa <command> <options>\nThese are common aa commands list:\n"),
    }
}

/// An installed app's abilities as objects: a plain string is an exported ability.
pub fn abilities(app: &Value) -> Vec<Value> {
    let list = app.get("abilities").and_then(Value::as_array).cloned().unwrap_or_default();
    list.into_iter().map(|a| if a.is_string() { json!({"name": a, "exported": true}) } else { a }).collect()
}

/// The pid `aa start -W` waits on: the process of `-b` running `-a` after a start that
/// succeeded.
pub fn waiting_pid(words: &[String], device: &Device, out: &str) -> Option<i64> {
    let waits = words.get(1).map(String::as_str) == Some("start") && has(words, "-W");
    if !waits || !out.ends_with("start ability successfully.\n") {
        return None;
    }
    let (ability, bundle) = (flag(words, "-a")?, flag(words, "-b")?);
    device.running().iter().find(|r| r["bundle"] == bundle && r["ability"] == ability).and_then(|r| r["pid"].as_i64())
}

fn start(words: &[String], device: &mut Device, out: &mut String) {
    if has(words, "-W") && lifecycle::unknown_wait_option(device, out) {
        return;
    }
    let (Some(ability), Some(bundle)) = (flag(words, "-a"), flag(words, "-b")) else {
        let missing = if flag(words, "-a").is_none() { "-a <ability-name>" } else { "-b <bundle-name>" };
        out.push_str(&format!("error: {missing} is expected\nusage: aa start <options>\n"));
        return;
    };
    let module = flag(words, "-m");
    let found = device.installed().get(bundle).and_then(|app| {
        let module_ok = module.is_none_or(|m| {
            app.get("module").and_then(Value::as_str) == Some(m)
                || app.get("modules").and_then(|ms| ms.get(m)).is_some()
        });
        module_ok.then(|| abilities(app).into_iter().find(|a| a["name"] == ability)).flatten()
    });
    let code = match device.flag("start_error").as_i64().filter(|c| *c != 0) {
        Some(code) => Some(code),
        None if device.flag("screen_locked") == &json!(true) => Some(10106102),
        None if found.is_none() => Some(10104001),
        None if found.as_ref().is_some_and(|a| a.get("exported") == Some(&json!(false))) => Some(10103001),
        None => None,
    };
    if let Some(code) = code {
        out.push_str(&format!("error: failed to start ability.\n{}", error_info(code)));
        return;
    }
    // An app sent away (Home, Back on its first page) comes back to the foreground as it was.
    for r in device.running_mut().iter_mut().filter(|r| r["bundle"] == bundle && r["ability"] == ability) {
        if let Some(record) = r.as_object_mut() {
            record.remove("background");
        }
    }
    let same_bundle: Vec<Value> = device.running().iter().filter(|r| r["bundle"] == bundle).cloned().collect();
    if !same_bundle.iter().any(|r| r["ability"] == ability) {
        let pid = same_bundle.first().and_then(|r| r["pid"].as_i64()).unwrap_or_else(|| device.new_pid());
        let mut process = json!({"bundle": bundle, "ability": ability, "pid": pid});
        let crash = crash_for(device, bundle);
        let after_ms = crash.as_ref().map(|c| c.get("after_ms").and_then(Value::as_i64).unwrap_or(0));
        if let Some(crash) = crash {
            process["crash"] = crash;
            process["dies_at"] = json!(now_secs() + after_ms.unwrap_or(0) as f64 / 1000.0);
        }
        lifecycle::begin(device, &mut process);
        device.running_mut().push(process);
        if after_ms.is_none_or(|ms| ms > 0) {
            log_on_create(device, found.as_ref().expect("found"), pid);
        }
    }
    out.push_str("start ability successfully.\n");
}

/// The device's `crash_on_launch` setting for `bundle` (`true` means the defaults).
fn crash_for(device: &Device, bundle: &str) -> Option<Value> {
    match device.flag("crash_on_launch").get(bundle) {
        None | Some(Value::Null) | Some(Value::Bool(false)) => None,
        Some(Value::Object(crash)) => Some(Value::Object(crash.clone())),
        Some(_) => Some(json!({})),
    }
}

/// The lines the ability's onCreate logs (what its compiled code logs, recorded at install from
/// the HAP), else the DevEco template's `hilog.info(0x0000, 'testTag', '%{public}s',
/// 'Ability onCreate')`.
fn log_on_create(device: &mut Device, ability: &Value, pid: i64) {
    let stamp = clock::stamp(&device.conf);
    let template = json!([{"level": "I", "domain": 0, "tag": "testTag", "message": "Ability onCreate"}]);
    let logs = ability.get("onCreateLogs").and_then(Value::as_array).cloned();
    for entry in logs.unwrap_or_else(|| template.as_array().unwrap().clone()) {
        let entry = if entry.is_string() { json!({"message": entry}) } else { entry };
        let level = entry.get("level").and_then(Value::as_str).unwrap_or("I");
        let domain = entry.get("domain").and_then(Value::as_u64).unwrap_or(0) as u32;
        let tag = entry.get("tag").and_then(Value::as_str).unwrap_or("testTag");
        let message = entry.get("message").and_then(Value::as_str).unwrap_or("");
        let line = hilog::format(&stamp, pid, pid, level, "A", domain, tag, message);
        device.hilog_mut().push(json!(line));
    }
}

fn force_stop(bundle: &str, device: &mut Device, out: &mut String) {
    if device.installed().contains_key(bundle) {
        device.stop(bundle);
        out.push_str("force stop process successfully.\n");
    } else {
        out.push_str(&format!("error: failed to force stop process.\n{}", error_info(FORCE_STOP_UNKNOWN)));
    }
}

/// A short mission list of the running processes (GUESS: the layout of `aa dump -a`'s mission
/// lines; rein reads none of it).
fn dump(device: &Device, out: &mut String) {
    out.push_str("User ID #100\n  current mission lists:{\n");
    for (n, r) in device.running().iter().enumerate() {
        let bundle = r["bundle"].as_str().unwrap_or("");
        let module = device.installed().get(bundle).and_then(|a| a.get("module")).and_then(Value::as_str);
        out.push_str(&format!(
            "    Mission ID #{}  mission name #[#{bundle}:{}:{}]  lockedState #0  mission affinity #[]\n",
            n + 1,
            module.unwrap_or("entry"),
            r["ability"].as_str().unwrap_or("")
        ));
    }
    out.push_str("  }\n");
}
