//! `aa test`: the device runs a test module's Hypium suites and prints what aa and Hypium print
//! (shared/HARMONY-VERIFY.md §1.1–1.3).
//!
//! aa's side (`openharmony/ability_ability_runtime` @13c4af6f `tools/aa/src/ability_command.cpp`
//! `RunAsTestCommand`, `IsTestCommandIntegrity`, `TestCommandError`, `StartUserTest`;
//! `tools/aa/include/ability_command.h` `HELP_MSG_TEST`, `STRING_START_USER_TEST_NG`,
//! `STRING_USER_TEST_FINISHED`, `TIME_RATE_MS`; `tools/aa/src/test_observer.cpp` `TestStatus`
//! (`printf("%s\n")`), `TestFinished`): the usage errors and the help text, the start failure and
//! its code, every printed message followed by a newline, `TestFinished-ResultCode/-ResultMsg`,
//! `user test finished.`, the `-w` expiry text (seconds), and `App died` from appmgr
//! (`services/appmgr/src/app_mgr_service_inner.cpp` `FinishUserTestLocked`).
//!
//! Hypium's side is [`crate::hypium`].
//!
//! What the device knows of a test module: `installed[bundle].modules[<module>].tests`, the
//! `{suite, test, level?, size?, testType?}` the HAP's compiled code declares, and
//! `testRunner` (recorded at install); what each test does is the device's `test_outcomes`
//! (tests/fakes/README.md "aa test").

use serde_json::{json, Value};

use crate::aa::error_info;
use crate::device::Device;
use crate::faultlog;
use crate::hypium::{self, Outcome, Spec};
use crate::state::now_secs;

/// `HELP_MSG_TEST`, printed after every usage error.
pub const HELP_MSG_TEST: &str = "usage: aa test <options>\n\
options list:\n  \
-h, --help                                             list available commands\n  \
-b <bundle-name> -s unittest <test-runner>             start the test framework with options\n                  \
[-p <package-name>]                    the name of package with test-runner, required for the FA model\n                  \
[-m <module-name>]                     the name of module with test-runner, required for the STAGE model\n                  \
[-s class <test-class>]\n                  \
[-s level <test-level>]\n                  \
[-s size <test-size>]\n                  \
[-s testType <test-testType>]\n                  \
[-s timeout <test-timeout>]\n                  \
[-s <any-key> <any-value>]\n                  \
[-w <wait-time>]\n                  \
[-D]\n";

/// `STRING_TEST_REGEX_INTEGER_NUMBERS`: `^(0|[1-9][0-9]*|-[1-9][0-9]*)$`.
fn is_integer(word: &str) -> bool {
    let digits = word.strip_prefix('-').unwrap_or(word);
    let leading_ok =
        if word.starts_with('-') { !digits.starts_with('0') } else { digits == "0" || !digits.starts_with('0') };
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) && leading_ok
}

/// The options aa read: `-b`, `-m`, `-p`, `-w`, `-D`, and every `-s <key> <value>` in order.
#[derive(Default)]
pub struct TestArgs {
    pub bundle: Option<String>,
    pub module: Option<String>,
    pub wait_secs: Option<i64>,
    pub params: Vec<(String, String)>,
}

impl TestArgs {
    pub fn param(&self, key: &str) -> Option<&str> {
        // aa keeps them in a map: a later `-s key` replaces an earlier one.
        self.params.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }
}

/// `RunAsTestCommand`'s loop: Err is the usage error line.
fn parse(words: &[String]) -> Result<Option<TestArgs>, String> {
    let mut args = TestArgs::default();
    let mut i = 2;
    while i < words.len() {
        let opt = words[i].as_str();
        match opt {
            "-h" | "--help" => return Ok(None),
            "-b" | "-p" | "-m" | "-w" => {
                let Some(value) = words.get(i + 1) else {
                    return Err(format!("error: option [{opt}] requires a value.\n"));
                };
                i += 1;
                match opt {
                    "-b" => args.bundle = Some(value.clone()),
                    "-m" => args.module = Some(value.clone()),
                    "-w" if !is_integer(value) => {
                        return Err(format!("error: option [{opt}] only supports integer numbers.\n"));
                    }
                    "-w" => args.wait_secs = value.parse().ok(),
                    _ => {}
                }
            }
            "-s" => {
                if i + 2 >= words.len() {
                    return Err("error: option [-s] is incorrect.\n".into());
                }
                args.params.push((words[i + 1].clone(), words[i + 2].clone()));
                i += 2;
            }
            "-D" => {}
            _ if opt.starts_with('-') => return Err(format!("error: unknown option: {opt}\n")),
            _ => {}
        }
        i += 1;
    }
    // `IsTestCommandIntegrity` at the sheet's commit looks for `-b` alone (§1.1).
    if args.bundle.is_none() {
        return Err("error: the option [-b] is expected.\n".into());
    }
    Ok(Some(args))
}

pub fn aa_test(words: &[String], device: &mut Device, out: &mut String) {
    let args = match parse(words) {
        Ok(Some(args)) => args,
        Ok(None) => return out.push_str(HELP_MSG_TEST),
        Err(line) => {
            out.push_str(&line);
            return out.push_str(HELP_MSG_TEST);
        }
    };
    let bundle = args.bundle.clone().unwrap_or_default();
    if let Some(code) = start_error(device, &bundle) {
        out.push_str("error: failed to start user test.\n");
        return out.push_str(&error_info(code));
    }
    let app = device.installed()[&bundle].clone();
    let runner = args.param("unittest").unwrap_or("");
    let module = args.module.clone().unwrap_or_default();
    let test_module = app.get("modules").and_then(|m| m.get(&module)).cloned();
    // A runner the module does not have, or a module the app does not have: the process aa
    // started cannot load it and dies (observed for a wrong runner name, §1.1; GUESS for a
    // wrong module).
    let Some(test_module) = test_module.filter(|m| runs(m, runner)) else {
        return finish(out, -1, "App died");
    };
    let specs: Vec<Spec> = test_module
        .get("tests")
        .and_then(Value::as_array)
        .map(|tests| tests.iter().map(|t| Spec::of(t, device)).collect())
        .unwrap_or_default();
    let deadline_ms = args.wait_secs.filter(|s| *s > 0).map(|s| s * 1000);
    match hypium::run(&specs, &args, deadline_ms, out) {
        Outcome::Finished(message) => finish(out, 0, &message),
        Outcome::Crashed(spec) => {
            crash(device, &bundle, &spec);
            finish(out, -1, "App died");
        }
        Outcome::Expired => out.push_str("Timeout: user test is not completed within the specified time.\n"),
    }
}

/// The code `StartUserTest` fails with, if it does: the device's scripted `test_start_error`,
/// 10104002 for a bundle that is not installed, 10106002 for a release-signed one (aa test
/// runs only debug-signed apps, AADOC).
fn start_error(device: &Device, bundle: &str) -> Option<i64> {
    if let Some(code) = device.flag("test_start_error").as_i64().filter(|c| *c != 0) {
        return Some(code);
    }
    match device.installed().get(bundle) {
        None => Some(10104002),
        Some(app) if app.get("buildMode").and_then(Value::as_str) == Some("release") => Some(10106002),
        Some(_) => None,
    }
}

/// Whether `runner` names the module's test runner: its name, or the path xdevice passes for
/// an esmodule build (`/ets/testrunner/<name>`, §1.1).
fn runs(module: &Value, runner: &str) -> bool {
    let Some(name) = module.get("testRunner").and_then(Value::as_str) else {
        return false;
    };
    runner == name || runner == format!("/ets/testrunner/{name}")
}

/// `TestObserver::TestFinished`, then `user test finished.` (aa's result after the wait).
fn finish(out: &mut String, code: i64, message: &str) {
    out.push_str(&format!("TestFinished-ResultCode: {code}\nTestFinished-ResultMsg: {message}\n"));
    out.push_str("user test finished.\n");
}

/// The app's process dies in the middle of `spec`: a jscrash log and its event, as a crash
/// after launch leaves them (`faultlog::reap`).
fn crash(device: &mut Device, bundle: &str, spec: &Spec) {
    let pid = device.new_pid();
    let crash = json!({
        "error_name": spec.crash_name(),
        "error_message": spec.message.clone().unwrap_or_else(|| "Cannot read property 'length' of undefined".into()),
    });
    device.running_mut().push(json!({"bundle": bundle, "ability": "TestAbility", "pid": pid,
                                     "crash": crash, "dies_at": now_secs()}));
    faultlog::reap(device);
}

#[cfg(test)]
#[path = "aa_test_tests.rs"]
mod tests;
