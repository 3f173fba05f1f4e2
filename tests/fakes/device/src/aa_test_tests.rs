//! `aa test` as the fake device prints it, whole outputs compared with the texts of
//! shared/HARMONY-VERIFY.md §1.2–1.3.

use serde_json::{json, Map, Value};

use super::*;
use crate::device::DEFAULT_PARAMS;

const BUNDLE: &str = "com.example.hello";

fn device(tests: Value, outcomes: Value) -> Device {
    let params: Map<String, Value> = DEFAULT_PARAMS.iter().map(|(k, v)| (k.to_string(), json!(v))).collect();
    let state = json!({
        "installed": {BUNDLE: {"module": "entry", "modules": {
            "entry": {"type": "entry"},
            "entry_test": {"type": "feature", "testRunner": "OpenHarmonyTestRunner", "tests": tests},
        }}},
        "running": [], "hilog": [], "faultlogs": [], "next_pid": 2291, "params": params,
        "test_outcomes": outcomes,
    });
    let conf = json!({"now": "06-15 10:00:00.000", "year": 2025});
    Device {
        key: "d1".into(),
        state: state.as_object().unwrap().clone(),
        conf: conf.as_object().unwrap().clone(),
        root: std::env::temp_dir().join("rein-fake-aa-test-unused"),
    }
}

fn template() -> Value {
    json!([{"suite": "ActsAbilityTest", "test": "assertContain",
            "file": "entry/src/ohosTest/ets/test/Ability.test.ets", "line": 19}])
}

fn run(device: &mut Device, line: &str) -> String {
    let words: Vec<String> = line.split_whitespace().map(String::from).collect();
    let mut out = String::new();
    aa_test(&words, device, &mut out);
    out
}

const RUN: &str = "aa test -b com.example.hello -m entry_test -s unittest OpenHarmonyTestRunner";

#[test]
fn a_passing_template_run_prints_every_line_hypium_and_aa_print() {
    let out = run(&mut device(template(), json!({})), RUN);
    let expected = "\n\
OHOS_REPORT_SUM: 1\n\
OHOS_REPORT_STATUS: class=ActsAbilityTest\n\
\n\
\n\
OHOS_REPORT_STATUS: class=ActsAbilityTest\n\
OHOS_REPORT_STATUS: current=1\n\
OHOS_REPORT_STATUS: id=JS\n\
OHOS_REPORT_STATUS: numtests=1\n\
OHOS_REPORT_STATUS: stream=\n\
OHOS_REPORT_STATUS: test=assertContain\n\
OHOS_REPORT_STATUS_CODE: 1\n\
\n\
\n\
OHOS_REPORT_STATUS: class=ActsAbilityTest\n\
OHOS_REPORT_STATUS: current=1\n\
OHOS_REPORT_STATUS: id=JS\n\
OHOS_REPORT_STATUS: numtests=1\n\
OHOS_REPORT_STATUS: stream=\n\
OHOS_REPORT_STATUS: test=assertContain\n\
OHOS_REPORT_STATUS_CODE: 0\n\
OHOS_REPORT_STATUS: consuming=1\n\
\n\
\n\
OHOS_REPORT_STATUS: class=ActsAbilityTest\n\
OHOS_REPORT_STATUS: suiteconsuming=1\n\
\n\
\n\
OHOS_REPORT_RESULT: stream=Tests run: 1, Failure: 0, Error: 0, Pass: 1, Ignore: 0\n\
OHOS_REPORT_CODE: 0\n\
OHOS_REPORT_STATUS: taskconsuming=1\n\
\n\
TestFinished-ResultCode: 0\n\
TestFinished-ResultMsg: your test finished!!!\n\
user test finished.\n";
    assert_eq!(out, expected);
}

fn four_cases() -> Value {
    json!([
        {"suite": "ActsAbilityTest", "test": "passes"},
        {"suite": "ActsAbilityTest", "test": "asserts", "file": "entry/src/ohosTest/ets/test/Ability.test.ets", "line": 30},
        {"suite": "MathTest", "test": "throws"},
        {"suite": "MathTest", "test": "skipped"},
    ])
}

#[test]
fn an_assertion_a_throw_and_a_skip_carry_their_codes_streams_and_stacks() {
    let outcomes = json!({
        "ActsAbilityTest#asserts": {"status": "fail", "message": "expect 1 equals 2", "ms": 7},
        "MathTest#throws": {"status": "error", "message": "boom", "stack": [
            "    at throws (entry/src/ohosTest/ets/test/Math.test.ets:12:9)",
            "    at anonymous (entry/src/ohosTest/ets/test/Math.test.ets:10:3)"]},
        "MathTest#skipped": {"status": "skip", "reason": "not on phones"},
    });
    let out = run(&mut device(four_cases(), outcomes), RUN);
    let asserts = "OHOS_REPORT_STATUS: stack=    at anonymous (entry/src/ohosTest/ets/test/Ability.test.ets:30:7)\n\
OHOS_REPORT_STATUS: stream=Error in asserts, expect 1 equals 2\n\
OHOS_REPORT_STATUS: test=asserts\n\
OHOS_REPORT_STATUS_CODE: -2\n\
OHOS_REPORT_STATUS: consuming=7\n\n";
    assert!(out.contains(asserts), "{out}");
    // The stack's second frame continues without a prefix.
    let throws = "OHOS_REPORT_STATUS: stack=    at throws (entry/src/ohosTest/ets/test/Math.test.ets:12:9)\n    at anonymous (entry/src/ohosTest/ets/test/Math.test.ets:10:3)\n\
OHOS_REPORT_STATUS: stream=Error in throws, boom\n\
OHOS_REPORT_STATUS: test=throws\n\
OHOS_REPORT_STATUS_CODE: -1\n";
    assert!(out.contains(throws), "{out}");
    let skipped = "OHOS_REPORT_STATUS: stream=\nOHOS_REPORT_STATUS: test=skipped\nOHOS_REPORT_STATUS_CODE: -3\nOHOS_REPORT_STATUS: skipReason=not on phones\nOHOS_REPORT_STATUS: consuming=1\n";
    assert!(out.contains(skipped), "{out}");
    assert!(out.contains("\nOHOS_REPORT_SUM: 2\nOHOS_REPORT_STATUS: class=MathTest\n"), "{out}");
    // OHOS_REPORT_CODE counts failures only; the finish code is 0 whatever failed.
    let tail = "OHOS_REPORT_RESULT: stream=Tests run: 4, Failure: 1, Error: 1, Pass: 1, Ignore: 1, SkipSpec: 1\n\
OHOS_REPORT_CODE: -1\n\
OHOS_REPORT_STATUS: taskconsuming=10\n\n\
TestFinished-ResultCode: 0\n\
TestFinished-ResultMsg: your test finished!!!\n\
user test finished.\n";
    assert!(out.ends_with(tail), "{out}");
}

#[test]
fn errors_alone_leave_the_report_code_at_zero() {
    let outcomes = json!({"MathTest#throws": {"status": "error"}});
    let out = run(&mut device(four_cases(), outcomes), RUN);
    assert!(out.contains("Tests run: 4, Failure: 0, Error: 1, Pass: 3, Ignore: 0\nOHOS_REPORT_CODE: 0\n"), "{out}");
}

#[test]
fn a_hang_ends_at_the_timeout_and_the_wait_expires_after_its_seconds() {
    let outcomes = json!({"ActsAbilityTest#asserts": {"status": "hang"}});
    let out = run(&mut device(four_cases(), outcomes.clone()), &format!("{RUN} -s timeout 3000"));
    assert!(out.contains("OHOS_REPORT_STATUS: stack=\nOHOS_REPORT_STATUS: stream=Error in asserts, execute timeout 3000ms\nOHOS_REPORT_STATUS: test=asserts\nOHOS_REPORT_STATUS_CODE: -1\nOHOS_REPORT_STATUS: consuming=3000\n"), "{out}");
    assert!(out.contains("Tests run: 4, Failure: 0, Error: 1, Pass: 3"), "{out}");
    // -w is seconds: 2 s end the run inside the 5 s default timeout, with no finish lines.
    let out = run(&mut device(four_cases(), outcomes), &format!("{RUN} -w 2"));
    assert!(out.ends_with("OHOS_REPORT_STATUS: test=asserts\nOHOS_REPORT_STATUS_CODE: 1\n\nTimeout: user test is not completed within the specified time.\n"), "{out}");
    assert!(!out.contains("TestFinished"), "{out}");
}

#[test]
fn a_crash_ends_the_run_with_app_died_and_leaves_a_jscrash_log() {
    let outcomes = json!({"MathTest#throws": {"status": "crash", "error_name": "RangeError", "message": "too far"}});
    let mut device = device(four_cases(), outcomes);
    let out = run(&mut device, RUN);
    assert!(out.ends_with("OHOS_REPORT_STATUS: test=throws\nOHOS_REPORT_STATUS_CODE: 1\n\nTestFinished-ResultCode: -1\nTestFinished-ResultMsg: App died\nuser test finished.\n"), "{out}");
    assert!(!out.contains("OHOS_REPORT_RESULT"), "{out}");
    let logs = device.state["faultlogs"].as_array().unwrap();
    assert_eq!(logs.len(), 1);
    let content = logs[0]["content"].as_str().unwrap();
    assert!(logs[0]["name"].as_str().unwrap().starts_with("jscrash-com.example.hello-"), "{logs:?}");
    assert!(content.contains("Error name:RangeError\nError message:too far\n"), "{content}");
}

#[test]
fn filters_choose_the_cases_by_suite_test_and_name() {
    let out = run(&mut device(four_cases(), json!({})), &format!("{RUN} -s class MathTest"));
    assert!(out.contains("Tests run: 2, Failure: 0, Error: 0, Pass: 2"), "{out}");
    assert!(out.contains("numtests=2") && !out.contains("class=ActsAbilityTest"), "{out}");
    let out = run(&mut device(four_cases(), json!({})), &format!("{RUN} -s class ActsAbilityTest#asserts,MathTest"));
    assert!(out.contains("Tests run: 3,"), "{out}");
    let out = run(&mut device(four_cases(), json!({})), &format!("{RUN} -s notClass MathTest -s itName passes"));
    assert!(out.contains("Tests run: 1,") && out.contains("test=passes"), "{out}");
    let out = run(&mut device(four_cases(), json!({})), &format!("{RUN} -s class NoSuch"));
    assert!(out.contains("Tests run: 0, Failure: 0, Error: 0, Pass: 0, Ignore: 0\nOHOS_REPORT_CODE: 0\n"), "{out}");
}

#[test]
fn an_invalid_value_finishes_the_run_with_hypiums_message() {
    let out = run(&mut device(template(), json!({})), &format!("{RUN} -s timeout abc"));
    assert_eq!(out, "TestFinished-ResultCode: 0\nTestFinished-ResultMsg: this param timeout:abc is invalid\n\nuser test finished.\n");
    let out = run(&mut device(template(), json!({})), &format!("{RUN} -s level 9"));
    assert!(out.contains("this param level:9 is invalid"), "{out}");
}

#[test]
fn a_dry_run_prints_the_suites_as_json_and_runs_nothing() {
    let out = run(&mut device(four_cases(), json!({})), &format!("{RUN} -s dryRun true"));
    let json = r#"{"suites":[{"ActsAbilityTest":[{"itName":"passes"},{"itName":"asserts"}]},{"MathTest":[{"itName":"throws"},{"itName":"skipped"}]}]}"#;
    assert_eq!(
        out,
        format!(
            "{json}\nTestFinished-ResultCode: 0\nTestFinished-ResultMsg: dry run finished!!!\nuser test finished.\n"
        )
    );
}

#[test]
fn start_errors_carry_their_codes() {
    let out =
        run(&mut device(template(), json!({})), "aa test -b com.other -m entry_test -s unittest OpenHarmonyTestRunner");
    assert!(out.starts_with("error: failed to start user test.\nError Code:10104002  Error Message:Failed to retrieve specified package information.\n"), "{out}");
    let mut release = device(template(), json!({}));
    release.installed_mut().get_mut(BUNDLE).unwrap()["buildMode"] = json!("release");
    let out = run(&mut release, RUN);
    assert!(out.starts_with("error: failed to start user test.\nError Code:10106002  "), "{out}");
    let mut scripted = device(template(), json!({}));
    scripted.state.insert("test_start_error".into(), json!(10105001));
    assert!(run(&mut scripted, RUN).contains("Error Code:10105001  "));
}

#[test]
fn a_wrong_runner_or_module_dies_and_the_esmodule_path_runs() {
    let died = "TestFinished-ResultCode: -1\nTestFinished-ResultMsg: App died\nuser test finished.\n";
    let wrong = "aa test -b com.example.hello -m entry_test -s unittest NoRunner";
    assert_eq!(run(&mut device(template(), json!({})), wrong), died);
    let module = "aa test -b com.example.hello -m feature_test -s unittest OpenHarmonyTestRunner";
    assert_eq!(run(&mut device(template(), json!({})), module), died);
    let esmodule = "aa test -b com.example.hello -m entry_test -s unittest /ets/testrunner/OpenHarmonyTestRunner";
    assert!(run(&mut device(template(), json!({})), esmodule).contains("Pass: 1"));
}

#[test]
fn usage_errors_print_one_line_then_the_help() {
    let cases = [
        ("aa test -b", "error: option [-b] requires a value.\n"),
        ("aa test -b com.x -w 1.5", "error: option [-w] only supports integer numbers.\n"),
        ("aa test -b com.x -w 01", "error: option [-w] only supports integer numbers.\n"),
        ("aa test -b com.x -s unittest", "error: option [-s] is incorrect.\n"),
        ("aa test -b com.x -x", "error: unknown option: -x\n"),
        ("aa test -m entry_test", "error: the option [-b] is expected.\n"),
    ];
    for (line, first) in cases {
        let out = run(&mut device(template(), json!({})), line);
        assert_eq!(out, format!("{first}{HELP_MSG_TEST}"), "{line}");
    }
    assert_eq!(run(&mut device(template(), json!({})), "aa test -h"), HELP_MSG_TEST);
    assert!(HELP_MSG_TEST.ends_with("                  [-w <wait-time>]\n                  [-D]\n"));
}
