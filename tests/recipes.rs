//! Recipes against the fake toolchain: the happy path with its evidence, every failure class
//! ending in a failed step with the right code, rollback, stop-loss, budgets, cancellation,
//! undo, --from, and a device matrix.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::lab::{lab, step, Lab, KEY};
use serde_json::{json, Value};

fn recipe(lab: &Lab, flags: &[&str], name: &str, args: Value) -> (i32, Value) {
    lab.recipe(flags, name, args)
}

fn report(lab: &Lab, out: &Value) -> Value {
    lab.report(out)
}

/// Runs sign-install-launch expecting a failure; returns (failed step, failure) from the report.
fn fails_at(lab: &Lab, args: Value) -> (String, Value) {
    let (status, out) = recipe(lab, &["--yes"], "sign-install-launch", args);
    assert_eq!(status, 1, "{out}");
    let report = report(lab, &out);
    assert_eq!(report["status"], json!("failed"));
    let failure = report["failure"].clone();
    (failure["step"].as_str().unwrap().to_string(), failure)
}

#[test]
fn sign_install_launch_proves_each_step() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    let (status, out) = recipe(&lab, &["--yes"], "sign-install-launch", json!({}));
    assert_eq!(status, 0, "{out}");
    let report = report(&lab, &out);
    assert_eq!(report["status"], json!("succeeded"));
    let names: Vec<&str> = report["steps"].as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["preflight", "build", "sign", "install", "launch", "screen", "tests"]);
    assert!(report["steps"].as_array().unwrap().iter().all(|s| s["status"] == "verified"));
    let preflight = step(&report, "preflight")["evidence"][0].as_str().unwrap();
    assert_eq!(preflight, format!("device {KEY} ready; com.example.hello signed by hvigor (signingConfig default)"));
    assert_eq!(step(&report, "install")["evidence"], json!(["install bundle successfully."]));
    let commands = step(&report, "install")["commands"].as_array().unwrap().clone();
    let install = commands.iter().find(|c| c["command"].as_str().unwrap().contains(" install ")).unwrap();
    assert!(
        install["command"].as_str().unwrap().starts_with(&format!("hdc -p -t {KEY} install -r")),
        "the report shows the command as it ran"
    );
    assert_eq!(install["decided_by"], json!({"approver": "--yes"}));
    let approvals = step(&report, "install")["approvals"].as_array().unwrap().clone();
    assert_eq!(approvals.len(), 1, "{approvals:?}");
    assert_eq!(approvals[0]["decided_by"], json!({"approver": "--yes"}));
    let md = lab.report_md(&out);
    assert!(md.contains("install bundle successfully.") && md.contains("succeeded"));
}

#[test]
fn each_failure_class_ends_in_a_failed_step_with_its_code() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    for (code, state) in [
        ("9568320", json!({"install_error": 9568320})),
        ("9568332", json!({"installed": {"com.example.hello": {"versionCode": 1000000, "signer": "other.p12/k"}}})),
        ("9568263", json!({"installed": {"com.example.hello": {"versionCode": 9000000, "signer": lab.signer()}}})),
    ] {
        lab.device(KEY, state);
        let (step_name, failure) = fails_at(&lab, json!({}));
        assert_eq!(
            (step_name.as_str(), failure["code"].as_str(), failure["location"].as_str()),
            ("install", Some("INSTALL_FAILED"), Some(code))
        );
        assert!(!failure["remedy"].as_str().unwrap_or("").is_empty(), "{code}: {failure}");
        assert_eq!(failure["details"]["code"], json!(code), "the install's details travel: {failure}");
        assert!(failure["details"]["message"].is_string(), "{failure}");
    }
    lab.device(KEY, json!({"start_error": 10104001}));
    let (step_name, failure) = fails_at(&lab, json!({}));
    assert_eq!(
        (step_name.as_str(), failure["code"].as_str(), failure["location"].as_str()),
        ("launch", Some("LAUNCH_FAILED"), Some("10104001"))
    );
    lab.device(KEY, json!({}));
    let (step_name, failure) = fails_at(&lab, json!({"expect_log": "NEVER PRINTED", "wait_ms": 1500}));
    assert_eq!((step_name.as_str(), failure["code"].as_str()), ("launch", Some("VERIFY_FAILED")));
    assert!(failure["remedy"].as_str().unwrap_or("").contains("expect_log"), "{failure}");
}

#[test]
fn an_arkts_error_fails_the_build_step_with_its_location() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    let page = "entry/src/main/ets/pages/Index.ets";
    let text = std::fs::read_to_string(lab.ws.path(page)).unwrap();
    std::fs::write(lab.ws.path(page), text.replacen("build() {", "build() {\n    REIN_FAKE_ARKTS_ERROR", 1)).unwrap();
    let (step_name, failure) = fails_at(&lab, json!({}));
    assert_eq!((step_name.as_str(), failure["code"].as_str()), ("build", Some("BUILD_FAILED")));
    assert!(failure["location"].as_str().unwrap().contains("Index.ets:"), "{failure}");
    assert!(failure["command"].as_str().unwrap().starts_with("hvigorw"));
    assert!(!failure["remedy"].as_str().unwrap_or("").is_empty(), "{failure}");
}

#[test]
fn reinstall_uninstalls_and_retries_once_on_a_signer_mismatch() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.device(KEY, json!({"installed": {"com.example.hello": {"versionCode": 1000000, "signer": "other.p12/k"}}}));
    let (status, out) = recipe(&lab, &["--yes"], "sign-install-launch", json!({"reinstall": true}));
    assert_eq!(status, 0, "{out}");
    let commands: Vec<String> = step(&report(&lab, &out), "install")["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["command"].as_str().unwrap().to_string())
        .filter(|c| c.contains(" install ") || c.contains(" uninstall "))
        .collect();
    assert_eq!(commands.len(), 3, "{commands:?}");
    assert!(commands[1].starts_with(&format!("hdc -p -t {KEY} uninstall com.example.hello")), "{commands:?}");
}

#[test]
fn a_failed_build_rolls_the_edit_back_byte_for_byte() {
    let Some(lab) = lab() else { return };
    let page = "entry/src/main/ets/pages/Index.ets";
    let before = std::fs::read(lab.ws.path(page)).unwrap();
    let edits = json!([{"old_string": "build() {", "new_string": "build() {\n    REIN_FAKE_ARKTS_ERROR"}]);
    let (status, out) = recipe(&lab, &[], "edit-and-verify", json!({"path": page, "edits": edits}));
    assert_eq!(status, 1, "{out}");
    assert_eq!(std::fs::read(lab.ws.path(page)).unwrap(), before, "the edit is rolled back");
    let report = report(&lab, &out);
    let s = step(&report, "edit-and-build");
    assert_eq!(s["status"], json!("failed"));
    assert_eq!(s["rolled_back"], json!([format!("{page} (restored)")]));
    assert_eq!(report["failure"]["code"], json!("BUILD_FAILED"));
}

#[test]
fn a_good_edit_is_kept_and_undo_restores_it_unless_changed_since() {
    let Some(lab) = lab() else { return };
    let page = "entry/src/main/ets/pages/Index.ets";
    let before = std::fs::read(lab.ws.path(page)).unwrap();
    let edits = json!([{"old_string": "Hello World", "new_string": "Hello rein"}]);
    let (status, out) = recipe(&lab, &[], "edit-and-verify", json!({"path": page, "edits": edits}));
    assert_eq!(status, 0, "{out}");
    let run_id = out["result"]["run_id"].as_str().unwrap().to_string();
    let edited = std::fs::read(lab.ws.path(page)).unwrap();
    assert_ne!(edited, before);
    std::fs::write(lab.ws.path(page), [edited.as_slice(), b"// later change\n"].concat()).unwrap();
    let (status, out) = lab.rein(&["undo", &run_id]);
    assert_eq!((status, out["error"]["code"].as_str()), (1, Some("STALE_FILE")), "{out}");
    std::fs::write(lab.ws.path(page), &edited).unwrap();
    let (status, out) = lab.rein(&["undo", &run_id]);
    assert_eq!(status, 0, "{out}");
    assert_eq!(std::fs::read(lab.ws.path(page)).unwrap(), before);
    let (_, listed) = lab.rein(&["runs", "list"]);
    assert_eq!(listed["result"]["runs"][0]["run_id"], json!(run_id));
}

fn project_recipe(lab: &Lab, name: &str, body: &str) {
    std::fs::create_dir_all(lab.ws.path("recipes")).unwrap();
    std::fs::write(lab.ws.path(&format!("recipes/{name}.lua")), body).unwrap();
}

#[test]
fn retries_stop_when_the_same_failure_repeats() {
    let Some(lab) = lab() else { return };
    project_recipe(
        &lab,
        "flaky",
        r#"return { name = "flaky", description = "fails the same way", steps = {
  { name = "always", retry = { max = 5 }, run = function(ctx)
      rein.fs.write("attempt-" .. ctx.attempt .. ".txt", "x")
      rein.error("SAME", "same failure", { file = "a.ets", line = 3 })
    end },
} }"#,
    );
    let (status, out) = recipe(&lab, &[], "flaky", json!({}));
    assert_eq!(status, 1, "{out}");
    let report = report(&lab, &out);
    let attempts = step(&report, "always")["attempts"].as_array().unwrap().len();
    assert_eq!(attempts, 2, "stop-loss after the same failure twice in a row");
    assert_eq!(report["failure"]["location"], json!("a.ets:3"));
    assert!(
        !lab.ws.path("attempt-1.txt").exists() && !lab.ws.path("attempt-2.txt").exists(),
        "each attempt rolled back"
    );
}

#[test]
fn budgets_stop_the_run() {
    let Some(lab) = lab() else { return };
    project_recipe(
        &lab,
        "spendy",
        r#"return { name = "spendy", description = "runs too much", budget = { spawns = 1 }, steps = {
  { name = "two", run = function() rein.tool("device_list", {}); rein.tool("device_list", {}) end },
} }"#,
    );
    let (_, out) = recipe(&lab, &[], "spendy", json!({}));
    let spent = report(&lab, &out);
    assert_eq!(spent["failure"]["code"], json!("BUDGET_EXCEEDED"), "{spent}");
    project_recipe(
        &lab,
        "slow",
        r#"return { name = "slow", description = "takes too long", budget = { time_s = 1 }, steps = {
  { name = "wait", run = function() for _ = 1, 10 do rein.sleep(500) end end },
} }"#,
    );
    let started = Instant::now();
    let (_, out) = recipe(&lab, &[], "slow", json!({}));
    assert!(started.elapsed() < Duration::from_secs(4));
    assert_eq!(report(&lab, &out)["failure"]["code"], json!("BUDGET_EXCEEDED"));
}

#[test]
fn ctrl_c_stops_the_step_kills_its_programs_rolls_back_and_still_reports() {
    let Some(lab) = lab() else { return };
    lab.scenario(json!({"hvigorw": {"sleep_ms": 600000, "spawn_child": true}}));
    project_recipe(
        &lab,
        "long",
        r#"return { name = "long", description = "builds forever", steps = {
  { name = "build", run = function() rein.fs.write("partial.txt", "x"); return rein.tool("hvigor_build", {}) end },
} }"#,
    );
    let mut child = lab.command(&["recipe", "long"]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let calls = lab.state.join("calls.log");
    let until = Instant::now() + Duration::from_secs(30);
    while !std::fs::read_to_string(&calls).unwrap_or_default().contains("hvigorw") {
        assert!(Instant::now() < until, "hvigorw never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: sending SIGINT to the child we spawned.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let output = child.wait_with_output().unwrap();
    let progress: Vec<String> = BufReader::new(stderr).lines().map_while(Result::ok).collect();
    assert_eq!(output.status.code(), Some(1), "{progress:?}");
    let out: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(out["error"]["code"], json!("CANCELLED"));
    let report = report(&lab, &out);
    assert_eq!(report["status"], json!("cancelled"));
    assert!(!lab.ws.path("partial.txt").exists(), "the step was rolled back");
    let children = std::fs::read_to_string(lab.state.join("children.log")).unwrap_or_default();
    for line in children.lines() {
        let pid = serde_json::from_str::<Value>(line).unwrap()["child_pid"].as_i64().unwrap() as i32;
        assert!(gone(pid), "child {pid} of hvigorw survived the cancellation");
    }
}

fn gone(pid: i32) -> bool {
    let until = Instant::now() + Duration::from_secs(5);
    while Instant::now() < until {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        // SAFETY: signal 0 only probes.
        if unsafe { libc::kill(pid, 0) } != 0 || status.contains("State:\tZ") {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn from_reuses_the_outputs_of_the_last_run() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    let (status, out) = recipe(&lab, &["--yes"], "sign-install-launch", json!({}));
    assert_eq!(status, 0, "{out}");
    let (status, out) = lab.rein(&["--yes", "recipe", "sign-install-launch", "{}", "--from", "launch"]);
    assert_eq!(status, 0, "{out}");
    let report = report(&lab, &out);
    assert_eq!(step(&report, "install")["status"], json!("reused"));
    assert_eq!(step(&report, "launch")["status"], json!("verified"));
    let (status, out) = lab.rein(&["recipe", "sign-install-launch", "{}", "--from", "nope"]);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_ARGS")));
}

#[test]
fn explain_lists_steps_and_approvals_without_running_anything() {
    let Some(lab) = lab() else { return };
    let (status, out) = lab.rein(&["recipe", "sign-install-launch", "--explain"]);
    assert_eq!(status, 0, "{out}");
    let steps = out["result"]["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 7);
    assert_eq!(steps[3]["approvals"][0], json!("hdc install"));
    assert_eq!(steps[5]["approvals"], json!(["hdc shell snapshot_display"]));
    assert!(!lab.state.join("calls.log").exists(), "nothing ran");
}

#[test]
fn verify_returns_ok_and_evidence_and_the_evidence_is_kept() {
    let Some(lab) = lab() else { return };
    project_recipe(
        &lab,
        "proven",
        r#"return { name = "proven", description = "one verified step, one that says why it failed", steps = {
  { name = "good", run = function() return { n = 1 } end,
    verify = function(_, out) return out.n == 1, "n is " .. out.n end },
  { name = "bad", run = function() return { n = 2 } end,
    verify = function(_, out) return out.n == 1, "n is " .. out.n end },
} }"#,
    );
    let (status, out) = recipe(&lab, &[], "proven", json!({}));
    assert_eq!(status, 1, "{out}");
    let report = report(&lab, &out);
    assert_eq!(step(&report, "good")["evidence"], json!(["n is 1"]), "{report:#}");
    assert_eq!(report["failure"]["code"], json!("VERIFY_FAILED"));
    assert!(report["failure"]["message"].as_str().unwrap().ends_with("did not pass: n is 2"), "{report:#}");
    assert_eq!(step(&report, "bad")["output"], json!({"n": 2}), "what the step made stays visible");
}

#[test]
fn a_verify_that_does_not_return_a_boolean_fails_with_the_contract() {
    let Some(lab) = lab() else { return };
    project_recipe(
        &lab,
        "vague",
        r#"return { name = "vague", description = "verify returns evidence alone", steps = {
  { name = "only", run = function() return {} end, verify = function() return "looks fine" end },
} }"#,
    );
    let (status, out) = recipe(&lab, &[], "vague", json!({}));
    assert_eq!(status, 1, "{out}");
    let failure = &report(&lab, &out)["failure"];
    assert_eq!(failure["code"], json!("VERIFY_FAILED"), "{failure}");
    assert!(failure["message"].as_str().unwrap().contains("return ok, \"what proves it\""), "{failure}");
}

#[test]
fn old_runs_saved_copies_are_collected_and_undo_inside_the_window_still_works() {
    let Some(lab) = lab() else { return };
    std::fs::write(lab.ws.path("first.txt"), "first before\n").unwrap();
    std::fs::write(lab.ws.path("second.txt"), "second before\n").unwrap();
    project_recipe(
        &lab,
        "rewrite",
        r#"return { name = "rewrite", description = "rewrites a file", params = { path = { type = "string" } }, steps = {
  { name = "write", run = function(ctx) rein.fs.write(ctx.args.path, "rewritten\n") end },
} }"#,
    );
    let mut runs = Vec::new();
    for path in ["first.txt", "second.txt"] {
        let (status, out) = recipe(&lab, &[], "rewrite", json!({"path": path}));
        assert_eq!(status, 0, "{out}");
        runs.push(out["result"]["run_id"].as_str().unwrap().to_string());
    }
    let pre = lab.ws.path(".rein/journal/pre");
    assert_eq!(std::fs::read_dir(&pre).unwrap().count(), 2, "one saved copy per run (the defaults keep both)");

    // Keep only what the last run needs: the first run's copy goes, the second's stays.
    let (status, out) = lab.rein(&["runs", "prune", "--keep-runs", "1", "--keep-days", "0"]);
    assert_eq!(status, 0, "{out}");
    assert_eq!(out["result"]["collected"]["removed"].as_array().unwrap().len(), 1, "{out}");
    assert_eq!(out["result"]["collected"]["kept"], json!(1), "{out}");

    let (status, out) = lab.rein(&["undo", &runs[0]]);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_ARGS")), "{out}");
    let message = out["error"]["message"].as_str().unwrap();
    assert!(message.contains("rein runs prune") && message.contains("nothing was restored"), "{message}");
    assert_eq!(std::fs::read_to_string(lab.ws.path("first.txt")).unwrap(), "rewritten\n", "nothing changed");

    let (status, out) = lab.rein(&["undo", &runs[1]]);
    assert_eq!(status, 0, "undo inside the window: {out}");
    assert_eq!(std::fs::read_to_string(lab.ws.path("second.txt")).unwrap(), "second before\n");
    let (_, listed) = lab.rein(&["runs", "list"]);
    assert_eq!(listed["result"]["runs"].as_array().unwrap().len(), 2, "the reports stay: {listed}");
}
