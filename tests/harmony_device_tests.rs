//! `device_test`: the project's ohosTest suites built, signed, installed with the app in one
//! transaction and run by `aa test` on the fake device, which prints what aa and Hypium print
//! (tests/fakes/README.md "aa test"); the results per test, the verdict from the per-test codes
//! and the Tests run line, the failures pointing at workspace files.

use crate::common::lab::{lab, step, Lab, KEY};
use serde_json::{json, Value};

const ABILITY_TEST: &str = "entry/src/ohosTest/ets/test/Ability.test.ets";

/// A second suite beside the template's, so a run cut short has tests it never reached.
const MATH_TEST: &str = "import { describe, it, expect } from '@ohos/hypium';

export default function mathTest() {
  describe('MathTest', () => {
    it('adds', 0, () => {
      expect(1 + 1).assertEqual(2);
    })
    it('divides', 0, () => {
      expect(4 / 2).assertEqual(2);
    })
  })
}
";

fn with_math(lab: &Lab) {
    std::fs::write(lab.ws.path("entry/src/ohosTest/ets/test/Math.test.ets"), MATH_TEST).unwrap();
    lab.one_device();
}

/// What the device ran of `command` (calls.log), as command lines.
fn on_device(lab: &Lab, command: &str) -> Vec<String> {
    lab.command_lines(command).into_iter().map(|line| format!("{command} {line}")).collect()
}

fn outcomes(lab: &Lab, outcomes: Value) {
    lab.edit_device(KEY, |d| d["test_outcomes"] = outcomes);
}

#[test]
fn the_template_tests_pass_after_one_install_of_app_and_test_hap() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    let out = lab.ok(&["--yes"], "device_test", json!({}));
    assert_eq!((out["ok"].clone(), out["verdict"].clone()), (json!(true), json!("passed")), "{out:#}");
    assert_eq!(out["counts"]["total"], 1);
    assert_eq!(out["counts"]["passed"], 1);
    assert_eq!(
        out["tests"][0],
        json!({"suite": "ActsAbilityTest", "test": "assertContain", "status": "passed", "time_ms": 1})
    );
    assert_eq!(
        out["packages"],
        json!([
            "entry/build/default/outputs/default/entry-default-signed.hap",
            "entry/build/default/outputs/ohosTest/entry-ohosTest-signed.hap"
        ])
    );
    // The test HAP was built as hvigor builds it, and both packages went in one bm install.
    let hvigorw = lab.command_lines("hvigorw");
    assert!(
        hvigorw
            .iter()
            .any(|c| c.ends_with("--mode module -p module=entry@ohosTest -p product=default assembleHap --no-daemon")),
        "{hvigorw:#?}"
    );
    let installs: Vec<String> = on_device(&lab, "bm").into_iter().filter(|c| c.contains("install")).collect();
    assert_eq!(installs.len(), 1, "{installs:?}");
    let installed = lab.read_device(KEY)["installed"]["com.example.hello"]["modules"].clone();
    assert!(
        installed["entry"].is_object() && installed["entry_test"]["testRunner"] == "OpenHarmonyTestRunner",
        "{installed:#}"
    );
    let aa = on_device(&lab, "aa");
    assert_eq!(
        aa.last().unwrap(),
        "aa test -b com.example.hello -m entry_test -s unittest OpenHarmonyTestRunner",
        "the run after the dry run: {aa:?}"
    );
    assert!(aa.iter().any(|c| c.ends_with("-s dryRun true")), "{aa:?}");
}

#[test]
fn a_failed_assertion_is_reported_with_its_message_and_workspace_location() {
    let Some(lab) = lab() else { return };
    with_math(&lab);
    outcomes(
        &lab,
        json!({"ActsAbilityTest#assertContain": {"status": "fail", "message": "expect abc equals abd"},
                           "MathTest#divides": {"status": "error", "message": "boom", "stack": [
                               "    at divides (entry|entry|1.0.0|src/ohosTest/ets/test/Math.test.ets:9:7)",
                               "    at run (oh_modules/@ohos/hypium/index.js:1:1)"]}}),
    );
    let error = lab.failed(&["--yes"], "device_test", json!({}), "TESTS_FAILED");
    let d = &error["details"];
    assert_eq!(d["verdict"], "failed", "{error:#}");
    assert_eq!(
        d["counts"],
        json!({"total": 3, "passed": 1, "failed": 1, "error": 1, "timed_out": 0, "skipped": 0, "not_run": 0})
    );
    let first = &d["failures"][0];
    assert_eq!((first["test"].as_str(), first["status"].as_str()), (Some("assertContain"), Some("failed")), "{d:#}");
    assert_eq!(first["message"], "expect abc equals abd");
    assert_eq!(first["location"], json!({"file": ABILITY_TEST, "line": 19, "column": 7}));
    // A frame in the `module|package|version|path` form maps to the module's folder; the
    // stack keeps its second line, which came without a prefix.
    let second = &d["failures"][1];
    assert_eq!(
        second["location"],
        json!({"file": "entry/src/ohosTest/ets/test/Math.test.ets", "line": 9, "column": 7})
    );
    assert!(
        second["stack"].as_str().unwrap().ends_with("\n    at run (oh_modules/@ohos/hypium/index.js:1:1)"),
        "{second:#}"
    );
    let message = error["message"].as_str().unwrap();
    assert!(message.starts_with("tests failed: 1 passed, 1 failed, 1 errors"), "{message}");
    assert!(
        message
            .contains(&format!("ActsAbilityTest#assertContain (failed) at {ABILITY_TEST}:19:7: expect abc equals abd")),
        "{message}"
    );
}

#[test]
fn a_crash_names_the_tests_that_never_ran_and_carries_the_crash_record() {
    let Some(lab) = lab() else { return };
    with_math(&lab);
    outcomes(&lab, json!({"MathTest#adds": {"status": "crash", "error_name": "RangeError", "message": "too far"}}));
    let error = lab.failed(&["--yes"], "device_test", json!({}), "TESTS_FAILED");
    let d = &error["details"];
    assert_eq!(d["verdict"], "crashed", "{error:#}");
    let statuses: Vec<String> = d["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| format!("{}={}", t["test"].as_str().unwrap(), t["status"].as_str().unwrap()))
        .collect();
    assert_eq!(statuses, ["assertContain=passed", "adds=error", "divides=not run"]);
    assert!(d["crash"].to_string().contains("RangeError"), "{d:#}");
}

#[test]
fn zero_tests_fail_and_say_so() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    let error = lab.failed(&["--yes"], "device_test", json!({"class": "NoSuchSuite"}), "TESTS_FAILED");
    assert_eq!(error["details"]["verdict"], "no tests", "{error:#}");
    assert!(error["message"].as_str().unwrap().starts_with("no test ran"), "{error:#}");
    let aa = on_device(&lab, "aa");
    assert!(aa.last().unwrap().ends_with("-s class NoSuchSuite"), "{aa:?}");
}

/// An agent's filter is a value of Hypium's, never shell: one that is not passes no policy,
/// and the device never runs it.
#[test]
fn a_filter_that_is_not_hypiums_never_reaches_the_device() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    let (status, out) =
        lab.call(&["--yes"], "device_test", json!({"class": "ActsAbilityTest;reboot", "list_first": false}));
    assert_eq!(status, 1, "{out}");
    assert_eq!(out["error"]["code"], "APPROVAL_DENIED", "{out:#}");
    assert!(on_device(&lab, "aa").is_empty(), "aa never ran: {:?}", on_device(&lab, "aa"));
}

/// The `test` recipe: each phase a step of the report, both packages in one install, and the
/// verdict from the per-test codes.
#[test]
fn the_test_recipe_passes_only_when_every_test_passed() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    let (status, out) = lab.recipe(&["--yes"], "test", json!({}));
    assert_eq!(status, 0, "{out:#}");
    let report = lab.report(&out);
    let steps: Vec<(&str, &str)> = report["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["name"].as_str().unwrap(), s["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        steps,
        [
            ("preflight", "verified"),
            ("build", "verified"),
            ("sign", "verified"),
            ("install", "verified"),
            ("tests", "verified")
        ]
    );
    assert_eq!(
        step(&report, "tests")["evidence"][0],
        "all 1 tests passed (1 passed, 0 failed, 0 errors, 0 timed out, 0 skipped, 0 not run)"
    );
    let installs: Vec<String> = on_device(&lab, "bm").into_iter().filter(|c| c.contains("install")).collect();
    assert_eq!(installs.len(), 1, "{installs:?}");
}

#[test]
fn the_test_recipe_fails_on_a_failed_test_and_names_it() {
    let Some(lab) = lab() else { return };
    with_math(&lab);
    outcomes(&lab, json!({"MathTest#divides": {"status": "fail", "message": "expect 2 equals 3"}}));
    let (status, out) = lab.recipe(&["--yes"], "test", json!({}));
    assert_eq!(status, 1, "{out:#}");
    let report = lab.report(&out);
    assert_eq!(report["failure"]["step"], "tests", "{report:#}");
    assert_eq!(report["failure"]["code"], "TESTS_FAILED", "{report:#}");
    assert!(report["failure"]["message"].as_str().unwrap().contains("MathTest#divides (failed)"), "{report:#}");
}

/// Every report lists each test: report.json (`tests`, stack and place with each that failed),
/// report.md (counts, then only what did not pass), report.html (a table of all with filters
/// and no script), the JUnit XML (a testsuite per suite, a testcase per test with
/// failure/error/skipped, valid against the schema CI reads).
// Linux only: its judges (xmllint, chromium) are run_report_formats', installed on Linux.
#[cfg(target_os = "linux")]
#[test]
fn each_report_format_lists_the_tests_and_the_failures_with_their_place() {
    use crate::run_report_formats::{assert_valid_junit, judges_present};
    if !judges_present("each_report_format_lists_the_tests_and_the_failures_with_their_place", false) {
        return;
    }
    let Some(lab) = lab() else { return };
    with_math(&lab);
    outcomes(
        &lab,
        json!({"ActsAbilityTest#assertContain": {"status": "fail", "message": "expect abc equals abd"},
               "MathTest#adds": {"status": "skip", "reason": "not on this device"},
               "MathTest#divides": {"status": "error", "message": "boom", "stack": [
                   "    at divides (entry|entry|1.0.0|src/ohosTest/ets/test/Math.test.ets:9:7)",
                   "    at run (oh_modules/@ohos/hypium/index.js:1:1)"]}}),
    );
    let (status, out) = lab.recipe(&["--yes"], "test", json!({}));
    assert_eq!(status, 1, "{out:#}");
    let report = lab.report(&out);
    let run = &report["tests"][0];
    assert_eq!((run["step"].as_str(), run["verdict"].as_str()), (Some("tests"), Some("failed")), "{report:#}");
    let statuses: Vec<String> = run["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            format!(
                "{}#{}={}",
                t["suite"].as_str().unwrap(),
                t["test"].as_str().unwrap(),
                t["status"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(statuses, ["ActsAbilityTest#assertContain=failed", "MathTest#adds=skipped", "MathTest#divides=error"]);
    let divides = &run["tests"][2];
    assert_eq!(
        divides["location"],
        json!({"file": "entry/src/ohosTest/ets/test/Math.test.ets", "line": 9, "column": 7})
    );
    assert!(
        divides["stack"].as_str().unwrap().ends_with("\n    at run (oh_modules/@ohos/hypium/index.js:1:1)"),
        "{divides:#}"
    );

    let md = lab.report_md(&out);
    let tally = "3 tests: 0 passed, 1 failed, 1 errors, 0 timed out, 1 skipped, 0 not run";
    assert!(md.contains(&format!("## Tests (step `tests`): `failed`\n\n{tally}\n")), "{md}");
    assert!(
        md.contains("| ActsAbilityTest | assertContain | failed | entry/src/ohosTest/ets/test/Ability.test.ets:19:7 | expect abc equals abd |"),
        "{md}"
    );
    assert!(
        md.contains("| MathTest | divides | error | entry/src/ohosTest/ets/test/Math.test.ets:9:7 | boom |"),
        "{md}"
    );
    assert!(!md.contains("| MathTest | adds |"), "report.md lists only what did not pass: {md}");
    assert!(md.find("## Tests").unwrap() < md.find("| # | step |").unwrap(), "the tests come first: {md}");

    let run_id = report["run_id"].as_str().unwrap();
    let html = std::fs::read_to_string(lab.ws.path(&format!(".rein/runs/{run_id}/report.html"))).unwrap();
    assert!(!html.contains("<script"), "the page stays inert");
    assert_eq!(html.matches("<tr class=\"").count(), 3, "a row per test: {html}");
    assert!(html.contains("<tr class=\"skipped\"><td>MathTest</td><td>adds</td><td>skipped</td>"), "{html}");
    assert!(html.contains("id=\"tests-0-failing\" checked>"), "failing tests shown first: {html}");
    assert!(
        html.contains("<pre>    at divides (entry|entry|1.0.0|src/ohosTest/ets/test/Math.test.ets:9:7)\n"),
        "{html}"
    );

    let (status, xml, err) = crate::common::human(
        std::process::Command::new(crate::common::REIN)
            .arg("--workspace")
            .arg(&lab.ws.ws)
            .arg("--home")
            .arg(&lab.ws.home)
            .args(["runs", "show", run_id, "--format", "junit"]),
    );
    assert_eq!(status, 0, "{err}");
    let file = lab.ws.path("tests-junit.xml");
    std::fs::write(&file, &xml).unwrap();
    assert_valid_junit(&file);
    assert!(
        xml.contains(
            "<testsuite name=\"MathTest\" package=\"rein.tests\" tests=\"2\" failures=\"0\" errors=\"1\" skipped=\"1\""
        ),
        "{xml}"
    );
    assert!(xml.contains("<testcase name=\"assertContain\" classname=\"ActsAbilityTest\" time=\"0.001\">\n      <failure type=\"failed\" message=\"expect abc equals abd\">where: entry/src/ohosTest/ets/test/Ability.test.ets:19:7\n"), "{xml}");
    assert!(xml.contains("<skipped type=\"skipped\" message=\"not on this device\">"), "{xml}");
}

const PAGE: &str = "entry/src/main/ets/pages/Index.ets";

/// edit-and-verify with tests=device: a failed test rolls the edit back byte for byte (the
/// build alone passed), and the report names the failed test; passing tests keep it.
#[test]
fn edit_and_verify_keeps_an_edit_only_when_the_device_tests_pass() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    // CRLF and no final newline: a rollback that rewrote the text would show.
    let original = std::fs::read_to_string(lab.ws.path(PAGE)).unwrap().replace('\n', "\r\n");
    std::fs::write(lab.ws.path(PAGE), original.trim_end()).unwrap();
    let before = std::fs::read(lab.ws.path(PAGE)).unwrap();
    outcomes(&lab, json!({"ActsAbilityTest#assertContain": {"status": "fail", "message": "expect abc equals abd"}}));
    let edits = json!([{"old_string": "Hello World", "new_string": "Hello rein"}]);
    let args = json!({"path": PAGE, "edits": edits, "tests": "device"});
    let (status, out) = lab.recipe(&["--yes"], "edit-and-verify", args.clone());
    assert_eq!(status, 1, "{out:#}");
    assert_eq!(std::fs::read(lab.ws.path(PAGE)).unwrap(), before, "rolled back byte for byte");
    let report = lab.report(&out);
    assert_eq!(report["failure"]["code"], "TESTS_FAILED", "{report:#}");
    assert_eq!(report["tests"][0]["tests"][0]["status"], "failed", "{report:#}");
    assert_eq!(step(&report, "edit-and-build")["rolled_back"], json!([format!("{PAGE} (restored)")]));

    outcomes(&lab, json!({}));
    let (status, out) = lab.recipe(&["--yes"], "edit-and-verify", args);
    assert_eq!(status, 0, "{out:#}");
    assert!(std::fs::read_to_string(lab.ws.path(PAGE)).unwrap().contains("Hello rein"), "the edit is kept");
    let report = lab.report(&out);
    let evidence = step(&report, "edit-and-build")["evidence"][0].as_str().unwrap().to_string();
    assert!(evidence.starts_with("BUILD SUCCESSFUL after the edit, and all 1 tests passed"), "{evidence}");
}

/// sign-install-launch with device_tests=true runs the tests after the proven launch; without
/// it the step runs nothing and says so.
#[test]
fn sign_install_launch_runs_the_device_tests_after_the_launch_when_asked() {
    let Some(lab) = lab() else { return };
    with_math(&lab);
    outcomes(&lab, json!({"MathTest#adds": {"status": "fail", "message": "expect 2 equals 3"}}));
    let args = json!({"device_tests": true, "test_filters": {"class": "MathTest"}});
    let (status, out) = lab.recipe(&["--yes"], "sign-install-launch", args);
    assert_eq!(status, 1, "{out:#}");
    let report = lab.report(&out);
    assert_eq!(report["failure"]["step"], "tests", "{report:#}");
    assert_eq!(step(&report, "launch")["status"], "verified");
    assert_eq!(report["tests"][0]["counts"]["failed"], 1, "{report:#}");
    let aa = on_device(&lab, "aa");
    let start = aa.iter().position(|c| c.starts_with("aa start")).expect("launched");
    assert!(aa[start..].iter().any(|c| c.starts_with("aa test ")), "tests after the launch: {aa:?}");
    assert!(aa.last().unwrap().ends_with("-s unittest OpenHarmonyTestRunner -s class MathTest"), "{aa:?}");
    assert_eq!(report["tests"][0]["counts"]["total"], 2, "only MathTest ran: {report:#}");

    let (status, out) = lab.recipe(&["--yes"], "sign-install-launch", json!({}));
    assert_eq!(status, 0, "{out:#}");
    let report = lab.report(&out);
    assert_eq!(step(&report, "tests")["evidence"][0], "device tests not asked for (device_tests = false): nothing ran");
}

/// local_test: the results come from test_result.txt, never from hvigorw's exit (0 and BUILD
/// SUCCESSFUL when tests fail: shared/HARMONY-VERIFY.md §2); coverage when asked.
#[test]
fn local_test_reads_test_result_txt_whatever_hvigorw_exits() {
    let Some(lab) = lab() else { return };
    let out = lab.ok(&[], "local_test", json!({"coverage": true}));
    assert_eq!((out["verdict"].as_str(), out["counts"]["passed"].as_u64()), (Some("passed"), Some(1)), "{out:#}");
    assert_eq!(out["tests"], json!([{"suite": "localUnitTest", "test": "assertContain", "status": "passed"}]));
    assert_eq!(out["result_file"], "entry/.test/default/intermediates/test/coverage_data/test_result.txt");
    assert_eq!(out["coverage"]["files"], json!(["entry/.test/default/outputs/test/reports/coverageReport.json"]));
    let hvigorw = lab.command_lines("hvigorw");
    assert_eq!(
        hvigorw.last().unwrap(),
        "--mode module -p module=entry@default -p product=default -p coverage=true test --no-daemon"
    );

    lab.scenario(json!({"hvigorw": {"local_test_outcomes": {"localUnitTest#assertContain": "fail"}}}));
    let error = lab.failed(&[], "local_test", json!({}), "TESTS_FAILED");
    assert_eq!(error["details"]["verdict"], "failed", "{error:#}");
    assert_eq!(error["details"]["failures"][0]["test"], "assertContain", "{error:#}");
    assert!(error["message"].as_str().unwrap().ends_with("\nlocalUnitTest#assertContain (failed)"), "{error:#}");
}

/// Where hvigor runs no unit test (its documentation: `hvigorw test` is not supported on
/// Linux), a clear refusal with a stable code, never an empty pass or an old result file.
#[test]
fn local_test_where_hvigor_runs_no_unit_test_refuses_and_never_reads_an_old_result() {
    let Some(lab) = lab() else { return };
    lab.ok(&[], "local_test", json!({}));
    lab.scenario(json!({"hvigorw": {"local_tests_unsupported": true}}));
    let code = if cfg!(target_os = "linux") { "LOCAL_TESTS_UNSUPPORTED" } else { "TESTS_FAILED" };
    let error = lab.failed(&[], "local_test", json!({}), code);
    assert!(
        error["message"].as_str().unwrap().starts_with("hvigorw test ran no unit test of module entry"),
        "{error:#}"
    );
    assert!(error["details"]["remedy"].is_string(), "{error:#}");
}

/// edit-and-verify with tests=local: a failing unit test rolls the edit back.
#[test]
fn edit_and_verify_with_local_tests_rolls_back_on_a_failed_unit_test() {
    let Some(lab) = lab() else { return };
    let before = std::fs::read(lab.ws.path(PAGE)).unwrap();
    lab.scenario(json!({"hvigorw": {"local_test_outcomes": {"localUnitTest#assertContain": "error"}}}));
    let edits = json!([{"old_string": "Hello World", "new_string": "Hello rein"}]);
    let (status, out) = lab.recipe(&[], "edit-and-verify", json!({"path": PAGE, "edits": edits, "tests": "local"}));
    assert_eq!(status, 1, "{out:#}");
    assert_eq!(std::fs::read(lab.ws.path(PAGE)).unwrap(), before);
    let report = lab.report(&out);
    assert_eq!(report["tests"][0]["tests"][0]["status"], "error", "{report:#}");
}

/// A filter a recipe passes on is one of device_test's: any other key is refused before the
/// edit is made.
#[test]
fn an_unknown_test_filter_is_refused_and_nothing_changes() {
    let Some(lab) = lab() else { return };
    let before = std::fs::read(lab.ws.path(PAGE)).unwrap();
    let edits = json!([{"old_string": "Hello World", "new_string": "Hello rein"}]);
    let args = json!({"path": PAGE, "edits": edits, "tests": "device", "test_filters": {"klass": "MathTest"}});
    let (status, out) = lab.recipe(&["--yes"], "edit-and-verify", args);
    assert_eq!(status, 1, "{out:#}");
    assert!(out.to_string().contains("INVALID_ARGS") && out.to_string().contains("no key klass"), "{out:#}");
    assert_eq!(std::fs::read(lab.ws.path(PAGE)).unwrap(), before);
    assert!(lab.command_lines("hvigorw").is_empty(), "nothing built");
}

/// A failing test's stack is the project's test code's to print: a frame naming a file outside
/// the workspace had rein look the file up (asking, so `--yes` allowed it) and give it as the
/// test's place in the workspace — an existence check of any path, shown in every report. The
/// place is the first frame of the workspace, and nothing outside is looked at.
#[test]
fn a_stack_frame_outside_the_workspace_is_never_looked_up_or_shown_as_the_place() {
    let Some(lab) = lab() else { return };
    with_math(&lab);
    let outside = lab.ws.root.join("elsewhere/secret.ets");
    std::fs::create_dir_all(outside.parent().unwrap()).unwrap();
    std::fs::write(&outside, "// a file of the person's\n").unwrap();
    outcomes(
        &lab,
        json!({"MathTest#divides": {"status": "error", "message": "boom", "stack": [
                   "    at a (../elsewhere/secret.ets:1:1)",
                   format!("    at b ({}:2:2)", outside.display()),
                   "    at divides (entry|entry|1.0.0|src/ohosTest/ets/test/Math.test.ets:9:7)"]}}),
    );
    let error = lab.failed(&["--yes"], "device_test", json!({}), "TESTS_FAILED");
    let failure = error["details"]["failures"].as_array().unwrap().iter().find(|f| f["test"] == "divides").unwrap();
    assert_eq!(
        failure["location"],
        json!({"file": "entry/src/ohosTest/ets/test/Math.test.ets", "line": 9, "column": 7}),
        "{error:#}"
    );
    let mut journal = String::new();
    for entry in std::fs::read_dir(lab.ws.path(".rein/journal")).unwrap() {
        journal.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
    }
    assert!(!journal.contains("secret.ets"), "a path outside the workspace was looked up: {journal}");
}

/// An agent's own tool that runs `aa test` of `bundle`'s `entry_test` as it likes: on the
/// device it names (`named`), or on whichever one hdc picks.
fn run_tests_tool(lab: &Lab) {
    let tool = r#"local device = require("harmony.device")
return { name = "run_tests", description = "runs a bundle's tests",
  params = { bundle = { type = "string" }, named = { type = "boolean", default = true } },
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  run = function(args)
    local at = device.pick(nil, nil)
    if args.named then at = device.named(at) end
    local argv = { "shell", "aa", "test", "-b", args.bundle, "-m", "entry_test", "-s", "unittest",
      "OpenHarmonyTestRunner" }
    return { out = (device.run(at, argv)) }
  end }"#;
    std::fs::create_dir_all(lab.ws.path("tools")).unwrap();
    std::fs::write(lab.ws.path("tools/run_tests.lua"), tool).unwrap();
}

/// The attack: the project's bundle name is the agent's to write (AppScope/app.json5). Another
/// of the person's debug apps, installed by DevEco, has an `entry_test` module; renamed to its
/// bundle, the project's "own" tests would be that app's, run unasked (they may change or
/// remove what it keeps). Only an app rein itself installed on the device the run names is the
/// project's, as for screen input.
#[test]
fn renaming_the_projects_bundle_to_another_debug_app_does_not_run_its_tests_unasked() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    run_tests_tool(&lab);
    const OTHER: &str = "com.example.notes";
    lab.edit_device(KEY, |d| {
        d["installed"][OTHER] = json!({"module": "entry", "modules": {
            "entry": {"type": "entry"},
            "entry_test": {"type": "feature", "testRunner": "OpenHarmonyTestRunner", "tests": []},
        }});
    });
    lab.replace_in("AppScope/app.json5", "com.example.hello", OTHER);
    lab.failed(&[], "run_tests", json!({"bundle": OTHER}), "APPROVAL_REQUIRED");
    assert!(on_device(&lab, "aa").is_empty(), "aa never ran: {:?}", on_device(&lab, "aa"));
    // The project's own app, installed by rein (device_test's install, which a person allowed),
    // on the device the run names: its tests run unasked; for whichever device hdc picks, rein
    // cannot say the app there is the one it installed.
    lab.replace_in("AppScope/app.json5", OTHER, "com.example.hello");
    lab.ok(&["--yes"], "device_test", json!({}));
    let tests: Vec<String> = lab.command_lines("hdc").into_iter().filter(|c| c.contains("aa test")).collect();
    assert!(tests.iter().all(|c| c.starts_with(&format!("-t {KEY} shell aa test"))), "named: {tests:?}");
    let ok = lab.ok(&[], "run_tests", json!({"bundle": "com.example.hello"}));
    assert!(ok["out"].as_str().unwrap().contains("user test finished"), "{ok}");
    lab.failed(&[], "run_tests", json!({"bundle": "com.example.hello", "named": false}), "APPROVAL_REQUIRED");
    lab.replace_in("AppScope/app.json5", "com.example.hello", OTHER);
    lab.failed(&[], "run_tests", json!({"bundle": OTHER}), "APPROVAL_REQUIRED");
    // Another device behind the same key (its UDID, which the kernel reads before the run).
    lab.replace_in("AppScope/app.json5", OTHER, "com.example.hello");
    lab.edit_device(KEY, |d| d["udid"] = json!("0B0B0B0B"));
    lab.failed(&[], "run_tests", json!({"bundle": "com.example.hello"}), "APPROVAL_REQUIRED");
}
