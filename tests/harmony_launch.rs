//! A launch is proven by this launch: the new process (pid from pidof, alive after the settle,
//! no fault log), and a log marker only on a line of that pid not earlier than the launch —
//! never by a line an earlier launch left in the ring buffer.

use crate::common::lab::{lab, step, Lab, KEY};
use serde_json::{json, Value};

const SIGNED: &str = "entry/build/default/outputs/default/entry-default-signed.hap";
const EARLIER_ON_CREATE: &str = "01-01 00:00:01.000  1999  1999 I A00000/testTag: Ability onCreate";

fn launched_ok(lab: &Lab, args: Value) -> (Value, Value, String) {
    let (status, out) = lab.recipe(&["--yes"], "sign-install-launch", args);
    assert_eq!(status, 0, "{out}");
    let report = lab.report(&out);
    assert_eq!(report["status"], json!("succeeded"), "{report:#}");
    let md = lab.report_md(&out);
    (out, report, md)
}

fn launch_failed(lab: &Lab, args: Value) -> (Value, Value, String) {
    let (status, out) = lab.recipe(&["--yes"], "sign-install-launch", args);
    assert_eq!(status, 1, "{out}");
    let report = lab.report(&out);
    assert_eq!(report["status"], json!("failed"), "never a success: {report:#}");
    assert_eq!(report["failure"]["step"], json!("launch"), "{report:#}");
    let md = lab.report_md(&out);
    (out, report["failure"].clone(), md)
}

#[test]
fn the_stock_template_app_passes_with_pid_bound_evidence_and_no_marker() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.device(KEY, json!({"hilog": [EARLIER_ON_CREATE]}));
    let (_, report, md) = launched_ok(&lab, json!({}));
    let launch = step(&report, "launch");
    assert_eq!(launch["output"]["pid"], json!(2291), "{launch:#}");
    let evidence: Vec<&str> = launch["evidence"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()).collect();
    assert!(
        evidence[0].starts_with("pid 2291 of com.example.hello started by this launch (device clock 2")
            && evidence[0].contains(
                ", in the foreground (aa dump -l: state #FOREGROUND, app state #FOREGROUND), alive 3000 ms after it; \
                 no fault log and no crash or freeze event for this launch (fault logs read; crash and freeze events read)"
            ),
        "{evidence:?}"
    );
    assert_eq!(launch["output"]["foreground"]["state"], json!("FOREGROUND"), "{launch:#}");
    assert_eq!(evidence.len(), 2, "the proof and the launched process's own line: {evidence:?}");
    assert!(evidence[1].ends_with(" 2291  2291 I A00000/testTag: Ability onCreate"), "{evidence:?}");
    assert!(!evidence.iter().any(|e| e.contains("1999")), "an earlier launch's line is no evidence");
    assert!(md.contains("pid 2291 of com.example.hello started by this launch"), "{md}");
    assert!(md.contains("I A00000/testTag: Ability onCreate"), "{md}");
    // The proof asked the device, in this order, and only read it after aa start.
    let hdc = lab.command_lines("hdc");
    let start = hdc.iter().position(|c| c.contains("shell aa start")).expect("aa start ran");
    assert!(hdc[..start].iter().any(|c| c.ends_with("shell date +%Y%m%d%H%M%S")), "{hdc:#?}");
    let after = &hdc[start..];
    assert!(after.iter().any(|c| c.ends_with("shell pidof com.example.hello")), "{hdc:#?}");
    assert!(after.iter().any(|c| c.contains("shell hidumper -s 1201 -a -p Faultlogger -m com.example.hello -t ")));
    assert!(after.iter().any(|c| c.ends_with("shell hilog -x -P 2291")), "{hdc:#?}");
    // This image's aa has no -W: it said so, and the foreground came from aa dump -l.
    assert!(hdc[start].contains("shell aa start -W -a EntryAbility -b com.example.hello"), "{hdc:#?}");
    assert!(hdc[start + 1].contains("shell aa start -a EntryAbility -b com.example.hello"), "{hdc:#?}");
    assert!(after.iter().any(|c| c.ends_with("shell aa dump -l")), "{hdc:#?}");
    assert!(after.iter().any(|c| c.contains("shell hisysevent -l -o RELIABILITY -S 2")), "{hdc:#?}");
}

#[test]
fn an_earlier_on_create_line_never_passes_a_launch_that_crashes() {
    for crash in
        [json!({}), json!({"after_ms": 400, "error_name": "RangeError", "error_message": "Invalid array length"})]
    {
        let Some(lab) = lab() else { return };
        lab.one_device();
        lab.device(KEY, json!({"hilog": [EARLIER_ON_CREATE], "crash_on_launch": {"com.example.hello": crash}}));
        let (out, failure, md) = launch_failed(&lab, json!({}));
        assert_eq!(failure["code"], json!("APP_CRASHED"), "{failure:#}");
        assert_eq!(out["error"]["code"], json!("STEP_FAILED"));
        let evidence = &failure["details"]["crash"];
        let name = crash.get("error_name").and_then(Value::as_str).unwrap_or("TypeError");
        assert_eq!(evidence["error_name"], json!(name), "{failure:#}");
        assert_eq!(evidence["pid"], json!(2291), "the fault log names the launched process: {failure:#}");
        assert!(evidence["file"].as_str().unwrap().starts_with("jscrash-com.example.hello-"), "{failure:#}");
        assert_eq!(evidence["first_lines"][0], json!("Generated by HiviewDFX@OpenHarmony"));
        assert!(evidence["stack"][0].as_str().unwrap().contains("EntryAbility.ets:7:5"));
        assert_eq!(failure["location"], evidence["file"], "located by the fault log");
        assert!(failure["remedy"].as_str().unwrap().contains("fault log"), "{failure:#}");
        assert!(md.contains(&format!("- crash: {name}")) && md.contains("Pid:2291"), "{md}");
    }
}

#[test]
fn a_marker_before_the_launch_does_not_count() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    // The clock is pinned, so a line of the very pid the launch gets, logged a minute before it,
    // is told apart by time alone; another pid's line by its pid.
    lab.scenario(json!({"hdc": {"now": "06-15 10:00:00.000", "year": 2025}}));
    lab.device(
        KEY,
        json!({"hilog": [
            "06-15 09:59:00.000  1999  1999 I A00000/testTag: REIN_READY",
            "06-15 09:59:00.000  2291  2291 I A00000/testTag: REIN_READY",
        ]}),
    );
    let (_, failure, md) = launch_failed(&lab, json!({"expect_log": "REIN_READY", "wait_ms": 1500}));
    assert_eq!(failure["code"], json!("VERIFY_FAILED"), "{failure:#}");
    assert_eq!(
        (failure["details"]["marker"].clone(), failure["details"]["pid"].clone()),
        (json!("REIN_READY"), json!(2291))
    );
    assert_eq!(
        failure["details"]["log"],
        json!(["06-15 10:00:00.000  2291  2291 I A00000/testTag: Ability onCreate"]),
        "what this launch did log"
    );
    assert!(md.contains("awaited log text: `REIN_READY` on pid 2291"), "{md}");
}

#[test]
fn a_marker_on_a_line_of_the_new_pid_counts() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.device(KEY, json!({"hilog": ["01-01 00:00:01.000  1999  1999 I A00000/testTag: REIN_READY old"]}));
    lab.replace_in(
        "entry/src/main/ets/entryability/EntryAbility.ets",
        "'Ability onCreate');",
        "'Ability onCreate');\n    hilog.info(0x0000, 'testTag', '%{public}s', 'REIN_READY 42');",
    );
    let (_, report, md) = launched_ok(&lab, json!({"expect_log": "REIN_READY"}));
    let launch = step(&report, "launch");
    assert_eq!(launch["output"]["marker"], json!("REIN_READY"));
    let proof = launch["evidence"][1].as_str().unwrap();
    assert!(proof.ends_with(" 2291  2291 I A00000/testTag: REIN_READY 42"), "{proof}");
    assert!(md.contains("REIN_READY 42") && !md.contains("REIN_READY old"), "{md}");
}

#[test]
fn app_launch_stops_a_running_instance_and_proves_the_new_one() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.build();
    lab.ok(&["--yes"], "app_install", json!({"hap": SIGNED}));
    let first = lab.ok(&["--yes"], "app_launch", json!({}));
    let second = lab.ok(&["--yes"], "app_launch", json!({}));
    assert_eq!((first["pid"].clone(), second["pid"].clone()), (json!(2291), json!(2308)), "{second}");
    assert_eq!(second["lines"].as_array().unwrap().len(), 1, "only the new process's lines: {second}");
    let hdc = lab.command_lines("hdc");
    let stops = hdc.iter().filter(|c| c.ends_with("shell aa force-stop com.example.hello")).count();
    assert_eq!(stops, 1, "the second launch stopped the first process: {hdc:#?}");
    let log = lab.ok(&[], "hilog_read", json!({"pid": 2308}));
    assert_eq!(log["count"], json!(1), "{log}");
    assert_eq!(log["entries"][0]["message"], json!("Ability onCreate"));
    assert_eq!(
        lab.ok(&[], "hilog_read", json!({"grep": "Ability onCreate"}))["count"],
        json!(2),
        "both stay in the ring"
    );
}

#[test]
fn a_process_that_dies_without_a_fault_log_still_fails_the_launch() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.build();
    lab.ok(&["--yes"], "app_install", json!({"hap": SIGNED}));
    // It lives long enough to be seen (a generous margin on a loaded machine), then exits
    // quietly before the settle ends.
    lab.edit_device(KEY, |state| {
        state["crash_on_launch"] = json!({"com.example.hello": {"after_ms": 1500, "fault_log": false}});
    });
    let error = lab.failed(&["--yes"], "app_launch", json!({"settle_ms": 4000}), "APP_CRASHED");
    assert_eq!(error["details"]["pid"], json!(2291), "{error}");
    assert!(
        error["message"].as_str().unwrap().contains("was gone within 4000 ms of the launch and left no fault log"),
        "{error}"
    );
    let log = error["details"]["log"].as_array().unwrap();
    assert!(log[0].as_str().unwrap().ends_with("2291  2291 I A00000/testTag: Ability onCreate"), "{error}");
    assert!(error["details"]["remedy"].as_str().unwrap().contains("without a fault log"), "{error}");
    assert!(error["details"].get("crash").is_none(), "{error}");
    lab.edit_device(KEY, |state| {
        state["crash_on_launch"] = json!({"com.example.hello": {"fault_log": false}});
    });
    let error = lab.failed(&["--yes"], "app_launch", json!({"wait_ms": 1500}), "LAUNCH_FAILED");
    assert!(
        error["message"].as_str().unwrap().contains("no process of com.example.hello appeared within 1500 ms"),
        "{error}"
    );
}
