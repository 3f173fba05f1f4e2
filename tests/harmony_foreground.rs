//! A launch is proven the way Huawei's own clients judge "the app is up": the ability reached
//! the foreground (`aa start -W`, else `aa dump -l`), and the new process is still alive with no
//! crash or freeze on record at the end of a window after the foreground that covers the first
//! page. A first-page crash, a frozen app and an app that never comes up all fail, each saying
//! what was seen.

use crate::common::lab::{installed_lab, lab, step, Lab, KEY};
use serde_json::{json, Value};

fn set(lab: &Lab, field: &str, value: Value) {
    lab.edit_device(KEY, |state| state[field] = value);
}

#[test]
fn a_crash_of_the_first_page_after_the_process_appeared_fails_the_launch() {
    let Some(lab) = installed_lab() else { return };
    // The process is there at once, the page comes up 300 ms later and crashes at 1.5 s: a
    // check one second after the pid saw a live process.
    set(&lab, "crash_on_launch", json!({"com.example.hello": {"after_ms": 1500, "error_name": "SyntaxError"}}));
    let error = lab.failed(&["--yes"], "app_launch", json!({}), "APP_CRASHED");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("com.example.hello (pid 2291) crashed right after launch: SyntaxError"), "{error}");
    let details = &error["details"];
    assert!(details["crash"]["file"].as_str().unwrap().starts_with("jscrash-com.example.hello-"), "{error}");
    assert_eq!(
        (details["event"]["event"].clone(), details["event"]["pid"].clone(), details["event"]["reason"].clone()),
        (json!("JS_ERROR"), json!(2291), json!("SyntaxError")),
        "hiview's event names the same crash: {error}"
    );
    assert!(details["event"]["log_path"].as_str().unwrap().starts_with("/data/log/faultlog/faultlogger/jscrash-"));
}

#[test]
fn a_frozen_app_is_reported_as_a_freeze_with_its_state() {
    let Some(lab) = installed_lab() else { return };
    set(&lab, "freeze_on_launch", json!({"com.example.hello": {"after_ms": 1500}}));
    let error = lab.failed(&["--yes"], "app_launch", json!({"wait_ms": 3000}), "APP_FROZEN");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("com.example.hello (pid 2291) froze on launch (APP_FREEZE THREAD_BLOCK_6S, state #FOREGROUNDING, app state #READY)"),
        "{error}"
    );
    assert_eq!(error["details"]["event"]["event"], json!("APP_FREEZE"), "{error}");
    assert!(error["details"]["remedy"].as_str().unwrap().contains("main thread"), "{error}");
}

#[test]
fn an_app_that_never_reaches_the_foreground_fails_with_what_was_seen() {
    let Some(lab) = installed_lab() else { return };
    set(&lab, "freeze_on_launch", json!({"com.example.hello": {"after_ms": 600000}}));
    let error = lab.failed(&["--yes"], "app_launch", json!({"wait_ms": 1500}), "LAUNCH_FAILED");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("com.example.hello (pid 2291) is alive but its EntryAbility never reached the foreground within 1500 ms (state #FOREGROUNDING, app state #READY;"),
        "{error}"
    );
    assert_eq!(error["details"]["state"], json!("state #FOREGROUNDING, app state #READY"), "{error}");
    assert!(error["details"]["log"][0].as_str().unwrap().ends_with("I A00000/testTag: Ability onCreate"), "{error}");
}

#[test]
fn aa_start_w_proves_the_foreground_where_the_image_has_it() {
    let Some(lab) = installed_lab() else { return };
    set(&lab, "aa_start_wait", json!(true));
    let proof = lab.ok(&["--yes"], "app_launch", json!({}));
    assert_eq!(proof["foreground"]["via"], json!("aa start -W"), "{proof}");
    assert_eq!(proof["foreground"]["start_mode"], json!("Cold"), "{proof}");
    assert!(proof["evidence"].as_str().unwrap().contains("in the foreground (aa start -W: StartMode Cold, TotalTime "));
    let hdc = lab.command_lines("hdc");
    let starts: Vec<&String> = hdc.iter().filter(|c| c.contains("shell aa start")).collect();
    assert_eq!(starts.len(), 1, "one start, waited on: {hdc:#?}");
    assert!(starts[0].ends_with("shell aa start -W -a EntryAbility -b com.example.hello -m entry"), "{hdc:#?}");
    assert!(!hdc.iter().any(|c| c.ends_with("aa dump -l")), "-W said it: {hdc:#?}");
    // A crash after the foreground is still caught by the window after it.
    set(&lab, "crash_on_launch", json!({"com.example.hello": {"after_ms": 1500}}));
    lab.failed(&["--yes"], "app_launch", json!({}), "APP_CRASHED");
}

#[test]
fn the_window_after_the_foreground_is_settable() {
    let Some(lab) = installed_lab() else { return };
    set(&lab, "crash_on_launch", json!({"com.example.hello": {"after_ms": 2500}}));
    let error = lab.failed(&["--yes"], "app_launch", json!({"settle_ms": 4000}), "APP_CRASHED");
    assert_eq!(error["details"]["pid"], json!(2291), "{error}");
    // A crash well after a short window (not 2.5 s, which a loaded machine's launch outlasts).
    set(&lab, "crash_on_launch", json!({"com.example.hello": {"after_ms": 60000}}));
    let proof = lab.ok(
        &["--yes"],
        "app_launch",
        json!({"bundle": "com.example.hello", "ability": "EntryAbility", "settle_ms": 500}),
    );
    assert_eq!(proof["alive_after_ms"], json!(500), "a short window is the caller's choice: {proof}");
}

#[test]
fn a_marker_hidden_as_private_says_to_log_it_with_public() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.replace_in(
        "entry/src/main/ets/entryability/EntryAbility.ets",
        "'Ability onCreate');",
        "'Ability onCreate');\n    hilog.info(0x0000, 'testTag', 'REIN_READY %s', '42');",
    );
    let (status, out) =
        lab.recipe(&["--yes"], "sign-install-launch", json!({"expect_log": "REIN_READY 42", "wait_ms": 2000}));
    assert_eq!(status, 1, "{out}");
    let failure = &lab.report(&out)["failure"];
    assert_eq!(failure["code"], json!("VERIFY_FAILED"), "{failure:#}");
    let details = &failure["details"];
    assert!(
        details["private_line"].as_str().unwrap().ends_with("I A00000/testTag: REIN_READY <private>"),
        "{failure:#}"
    );
    assert!(details["remedy"].as_str().unwrap().contains("%{public}s"), "{failure:#}");
    assert!(failure["message"].as_str().unwrap().contains("its value is hidden as <private>"), "{failure:#}");
    // The report still shows the launch it did prove.
    let report = lab.report(&out);
    assert_eq!(step(&report, "launch")["status"], json!("failed"));
}

#[test]
fn crash_scan_reports_a_crash_after_a_proven_launch_and_the_recipe_helper_fails_on_it() {
    let Some(lab) = installed_lab() else { return };
    let proof = lab.ok(&["--yes"], "app_launch", json!({"settle_ms": 500}));
    let since = proof["launched_at"].as_str().unwrap().to_string();
    let clean = lab.ok(&[], "crash_scan", json!({"since": since, "pid": proof["pid"]}));
    assert_eq!((clean["clean"].clone(), clean["alive"].clone()), (json!(true), json!(true)), "{clean}");
    // After the proof, the app crashes (its process is due now: the device reaps it on the next
    // command and records the crash).
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
    lab.edit_device(KEY, |state| {
        state["running"][0]["crash"] = json!({"error_name": "RangeError"});
        state["running"][0]["dies_at"] = json!(now);
    });
    let scan = lab.ok(&[], "crash_scan", json!({"since": since, "pid": proof["pid"]}));
    assert_eq!((scan["clean"].clone(), scan["alive"].clone()), (json!(false), json!(false)), "{scan}");
    assert_eq!(scan["crashes"][0]["event"], json!("JS_ERROR"), "{scan}");
    assert_eq!(scan["crashes"][0]["reason"], json!("RangeError"), "{scan}");
    assert!(scan["fault_logs"][0]["file"].as_str().unwrap().starts_with("jscrash-com.example.hello-"), "{scan}");
    assert_eq!(scan["bundle"], json!("com.example.hello"), "the project's bundle by default");

    // A recipe that acts on the app after its launch checks it is still up: here its action
    // ends the process.
    lab.ws.file(
        "recipes/launch-then-act.lua",
        r#"local deploy = require("harmony.deploy")
return {
  name = "launch-then-act",
  description = "launch, act, check",
  steps = {
    { name = "launch", run = function(ctx) return ctx:tool("app_launch", { settle_ms = 500 }) end },
    {
      name = "act",
      run = function(ctx)
        ctx:tool("app_stop", {})
        return deploy.still_alive(ctx, ctx.outputs.launch, "com.example.hello")
      end,
    },
  },
}
"#,
    );
    let (status, out) = lab.recipe(&["--yes"], "launch-then-act", json!({}));
    assert_eq!(status, 1, "{out}");
    let failure = &lab.report(&out)["failure"];
    assert_eq!((failure["step"].as_str(), failure["code"].as_str()), (Some("act"), Some("APP_CRASHED")), "{failure:#}");
    assert!(failure["message"].as_str().unwrap().contains("is gone"), "{failure:#}");
    assert_eq!(failure["details"]["alive"], json!(false), "{failure:#}");
}
