//! A run's report as people and CI read it (issue 25): report.html beside report.json, opened
//! in a real headless browser (Debian's chromium), and `--format junit` validated against the
//! JUnit schema CI systems read (Jenkins' xUnit plugin's junit-10.xsd, as pytest ships it) with
//! xmllint. `.ci/setup` installs both judges; a missing one fails with the command that installs
//! it (`tests/common/real_tools.rs`). Whatever a run recorded — a step's name, an error's text — is text on the page and in the
//! XML, never markup or script.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::{human, output_within, rein_json, Workspace};
use crate::mcp_run_reports::failed_run;

const INSTALL: &str =
    "`bash .ci/setup` installs it (chromium, libxml2-utils, and the JUnit schema into .ci/tools/junit/)";

/// Whether this machine has the judges `test` needs (the browser only where it reads the page);
/// else the test fails saying what to install (or, opted out, is skipped).
fn judges_present(test: &str, browser: bool) -> bool {
    use crate::common::real_tools::{file_present, program_runs};
    (!browser || program_runs(test, "chromium", &["--version"], "Debian's chromium"))
        && program_runs(test, "xmllint", &["--version"], "libxml2-utils")
        && file_present(test, &junit_schema_path(), "the JUnit schema (junit-10.xsd)")
}

fn junit_schema_path() -> PathBuf {
    std::env::var_os("REIN_TEST_JUNIT_XSD")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/tools/junit/junit-10.xsd"))
}

/// The schema, as `.ci/run` unpacks it from pytest's source distribution.
fn junit_schema() -> PathBuf {
    let path = junit_schema_path();
    assert!(path.is_file(), "{} is missing: {INSTALL}", path.display());
    path
}

fn show(ws: &Workspace, run_id: &str, format: &str) -> String {
    let (status, out, err) = ws.human(&["runs", "show", run_id, "--format", format]);
    assert_eq!(status, 0, "runs show --format {format}: {err}");
    out
}

/// `chromium --headless --dump-dom` of `page`: the DOM after the page (and what it embeds)
/// loaded, with the flags that work in this sandbox and a fresh profile. (A probe page with
/// an unescaped `<img onerror>` was seen to fill `elements` and empty the step's name.)
fn browser_dom(ws: &Workspace, page: &Path) -> String {
    let profile = tempfile::tempdir_in(&ws.root).unwrap();
    assert!(Command::new("chromium").arg("--version").output().is_ok(), "chromium does not run: {INSTALL}");
    let mut chromium = Command::new("chromium");
    chromium
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--allow-file-access-from-files",
            "--virtual-time-budget=5000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()));
    // Bounded: a page that ran a script (an alert() an attacker slipped in) never finishes.
    let out = output_within(&mut chromium, None, Duration::from_secs(120));
    assert!(out.status.success(), "chromium: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What the browser made of report.html: a page beside it loads it in a frame once it and
/// everything it embeds loaded, and writes what it found as JSON.
fn rendered(ws: &Workspace, report_html: &Path) -> Value {
    let probe = report_html.with_file_name("probe.html");
    std::fs::write(&probe, PROBE).unwrap();
    let dom = browser_dom(ws, &probe);
    let start = dom.find("<pre id=\"result\">").unwrap_or_else(|| panic!("the probe ran: {dom}")) + 17;
    let end = start + dom[start..].find("</pre>").unwrap();
    let text = dom[start..end].replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

const PROBE: &str = r#"<!DOCTYPE html><html><body><iframe id="r" src="report.html"></iframe><script>
window.onload = function () {
  var d = document.getElementById('r').contentDocument;
  var img = d.getElementById('screenshot');
  var tree = d.getElementById('ui-tree');
  var failure = d.getElementById('failure');
  var found = {
    status: d.getElementById('run-status').textContent,
    steps: Array.prototype.map.call(d.querySelectorAll('#steps .step-name'), function (e) { return e.textContent; }),
    statuses: Array.prototype.map.call(d.querySelectorAll('#steps .step .status'), function (e) { return e.textContent; }),
    screenshot: img ? { width: img.naturalWidth, height: img.naturalHeight, complete: img.complete } : null,
    ui_tree: tree ? tree.textContent : null,
    failure: failure ? failure.textContent : null,
    elements: Array.prototype.map.call(d.querySelectorAll('script, iframe, object, embed, img:not(#screenshot), [onerror], [onload]'), function (e) { return e.outerHTML; }),
    text: d.body.textContent
  };
  var pre = document.createElement('pre'); pre.id = 'result'; pre.textContent = JSON.stringify(found);
  document.body.appendChild(pre);
};
</script></body></html>"#;

fn run_dir(ws: &Workspace, run_id: &str) -> PathBuf {
    ws.path(&format!(".rein/runs/{run_id}"))
}

#[test]
fn a_failed_runs_page_shows_the_timeline_and_the_arkts_location_in_a_real_browser() {
    if !judges_present("a_failed_runs_page_shows_the_timeline_and_the_arkts_location_in_a_real_browser", true) {
        return;
    }
    let ws = Workspace::new();
    let run_id = failed_run(&ws);
    let page = run_dir(&ws, &run_id).join("report.html");
    assert!(page.is_file(), "report.html is written beside report.json");
    assert_eq!(std::fs::read_to_string(&page).unwrap(), show(&ws, &run_id, "html"), "runs show renders the same page");
    let found = rendered(&ws, &page);
    assert_eq!(found["status"], "failed", "{found}");
    assert_eq!(found["steps"], json!(["build"]), "{found}");
    let failure = found["failure"].as_str().unwrap_or_default();
    for expected in ["BUILD_FAILED", "entry/src/main/ets/pages/Index.ets:7", "declare REIN_X before using it"] {
        assert!(failure.contains(expected), "the failure shows {expected}: {failure}");
    }
    assert_eq!(found["elements"], json!([]), "{found}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("http://") && !html.contains("https://") && !html.contains("<script"), "self-contained");
}

/// A recipe that succeeds in two steps; the run's id.
fn two_step_run(ws: &Workspace) -> String {
    ws.file(
        "recipes/look.lua",
        r#"return { name = "look", description = "two steps", steps = {
             { name = "launch", run = function(ctx) ctx:evidence("pid 4242 in the foreground") end,
               verify = function() return true, "foreground" end },
             { name = "note", run = function() rein.fs.write("note.txt", "seen\n") end },
           } }"#,
    );
    let (status, out) = rein_json(ws, &["recipe", "look"]);
    assert_eq!(status, 0, "{out}");
    out["result"]["run_id"].as_str().unwrap().to_string()
}

/// An 8x8 grey baseline JPEG (the fake device's `snapshot_display` writes the same).
fn tiny_jpeg() -> Vec<u8> {
    let mut hex = String::from("ffd8ffe000104a46494600010100000100010000ffdb004300");
    hex.push_str(&"01".repeat(64));
    hex.push_str("ffc0000b080008000801011100");
    hex.push_str("ffc40014000100000000000000000000000000000000");
    hex.push_str("ffc40014100100000000000000000000000000000000");
    hex.push_str("ffda0008010100003f003fffd9");
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
}

/// Gives `step` of run `run_id` a screenshot and a UI tree in the run's folder, as the launch's
/// evidence step saves them.
fn attach(ws: &Workspace, run_id: &str, step: usize, attachments: Value) {
    let report_path = run_dir(ws, run_id).join("report.json");
    let mut report: Value = serde_json::from_slice(&std::fs::read(&report_path).unwrap()).unwrap();
    report["steps"][step]["attachments"] = attachments;
    std::fs::write(&report_path, serde_json::to_vec_pretty(&report).unwrap()).unwrap();
}

#[test]
fn the_page_embeds_the_screenshot_and_the_ui_tree_and_a_browser_shows_them() {
    if !judges_present("the_page_embeds_the_screenshot_and_the_ui_tree_and_a_browser_shows_them", true) {
        return;
    }
    let ws = Workspace::new();
    let run_id = two_step_run(&ws);
    let dir = run_dir(&ws, &run_id);
    std::fs::write(dir.join("screenshot.jpeg"), tiny_jpeg()).unwrap();
    std::fs::write(dir.join("ui.txt"), "Text \"Hello World\" #title [0,0][720,96]\n").unwrap();
    let folder = format!(".rein/runs/{run_id}");
    attach(
        &ws,
        &run_id,
        0,
        json!([{"kind": "screenshot", "path": format!("{folder}/screenshot.jpeg")},
               {"kind": "ui_text", "path": format!("{folder}/ui.txt")}]),
    );
    let page = dir.join("shown.html");
    std::fs::write(&page, show(&ws, &run_id, "html")).unwrap();
    let report_html = dir.join("report.html");
    std::fs::copy(&page, &report_html).unwrap();
    let found = rendered(&ws, &report_html);
    assert_eq!(found["screenshot"], json!({"width": 8, "height": 8, "complete": true}), "decoded: {found}");
    assert!(found["ui_tree"].as_str().unwrap_or_default().contains("Text \"Hello World\" #title"), "{found}");
    assert_eq!(found["steps"], json!(["launch", "note"]), "{found}");
    assert_eq!(found["statuses"], json!(["claimed by project code (not proven)", "done (no verify)"]), "{found}");
    let text = found["text"].as_str().unwrap_or_default();
    assert!(text.contains("pid 4242 in the foreground"), "the evidence: {text}");
    assert!(
        text.contains("nothing proved it worked"),
        "the step without verify says so, in the report's words: {text}"
    );
}

#[test]
fn an_attachment_path_a_report_names_outside_its_run_folder_is_not_embedded() {
    let ws = Workspace::new();
    let run_id = two_step_run(&ws);
    ws.file("secret.txt", "the agent wants this shown\n");
    attach(&ws, &run_id, 0, json!([{"kind": "ui_text", "path": format!(".rein/runs/{run_id}/../../../secret.txt")}]));
    let html = show(&ws, &run_id, "html");
    assert!(!html.contains("the agent wants this shown"), "{html}");
}

const HOSTILE: &str = r#"return { name = "hostile", description = "names that are markup", steps = {
  { name = "<img src=x onerror=alert(1)>", run = function() end },
  { name = "b", run = function()
      rein.error("BUILD_FAILED", "</pre><script>alert(2)</script>]]> \27[31m",
        { file = "<iframe src=//evil>", line = 1, remedy = "\"><svg onload=alert(3)>" })
    end },
} }"#;

#[test]
fn a_step_name_or_error_text_a_script_wrote_stays_text_in_the_page_and_the_xml() {
    if !judges_present("a_step_name_or_error_text_a_script_wrote_stays_text_in_the_page_and_the_xml", true) {
        return;
    }
    let ws = Workspace::new();
    ws.file("recipes/hostile.lua", HOSTILE);
    let (status, out) = rein_json(&ws, &["recipe", "hostile"]);
    assert_eq!(status, 1, "{out}");
    let run_id = out["error"]["details"]["run_id"].as_str().unwrap().to_string();
    let found = rendered(&ws, &run_dir(&ws, &run_id).join("report.html"));
    assert_eq!(found["elements"], json!([]), "nothing became markup: {found}");
    assert_eq!(found["steps"][0], "<img src=x onerror=alert(1)>", "{found}");
    let failure = found["failure"].as_str().unwrap_or_default();
    assert!(failure.contains("<script>alert(2)</script>") && failure.contains("\"><svg onload=alert(3)>"), "{failure}");
    assert!(!failure.contains('\u{1b}'), "a terminal escape is not carried: {failure:?}");

    let xml = show(&ws, &run_id, "junit");
    let checked = ws.root.join("hostile.xml");
    std::fs::write(&checked, &xml).unwrap();
    assert_valid_junit(&checked);
    assert!(!xml.contains("<script>") && !xml.contains('\u{1b}'), "{xml}");
}

pub(crate) fn assert_valid_junit(file: &Path) {
    let out = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(junit_schema())
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("xmllint does not run ({e}): {INSTALL}"));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{} does not validate: {said}", file.display());
    assert!(said.contains("validates"), "{said}");
}

#[test]
fn junit_has_a_testcase_per_step_and_the_failure_with_its_code_message_and_remedy() {
    if !judges_present("junit_has_a_testcase_per_step_and_the_failure_with_its_code_message_and_remedy", false) {
        return;
    }
    let ws = Workspace::new();
    let run_id = failed_run(&ws);
    let xml = show(&ws, &run_id, "junit");
    let file = ws.root.join("junit.xml");
    std::fs::write(&file, &xml).unwrap();
    assert_valid_junit(&file);
    assert!(xml.contains("<testsuite name=\"ship ") && xml.contains("tests=\"1\" failures=\"1\""), "{xml}");
    assert!(xml.contains("<testcase name=\"build\" classname=\"rein.ship\" time=\""), "{xml}");
    assert!(xml.contains("<failure type=\"BUILD_FAILED\" message=\"the ArkTS compiler refused Index.ets\">"), "{xml}");
    assert!(xml.contains("where: entry/src/main/ets/pages/Index.ets:7"), "{xml}");
    assert!(xml.contains("what to do: declare REIN_X before using it"), "{xml}");

    let ok = two_step_run(&ws);
    let folder = format!(".rein/runs/{ok}");
    attach(&ws, &ok, 0, json!([{"kind": "screenshot", "path": format!("{folder}/screenshot.jpeg")}]));
    let xml = show(&ws, &ok, "junit");
    let file = ws.root.join("ok.xml");
    std::fs::write(&file, &xml).unwrap();
    assert_valid_junit(&file);
    assert!(xml.contains("failures=\"0\""), "{xml}");
    let out_start = xml.find("<system-out>").expect("the evidence is in system-out");
    let system_out = &xml[out_start..];
    assert!(system_out.contains("evidence: pid 4242 in the foreground"), "{xml}");
    assert!(system_out.contains(&format!("screenshot: {folder}/screenshot.jpeg")), "{xml}");
}

#[test]
fn runs_show_prints_each_format_and_refuses_an_unknown_one() {
    let ws = Workspace::new();
    let run_id = two_step_run(&ws);
    assert!(show(&ws, "last", "md").starts_with(&format!("# rein run {run_id}")));
    let json: Value = serde_json::from_str(&show(&ws, "last", "json")).unwrap();
    assert_eq!(json["run_id"], json!(run_id));
    assert!(show(&ws, "last", "html").starts_with("<!DOCTYPE html>"));
    assert!(show(&ws, "last", "junit").starts_with("<?xml"));
    let (status, _, err) = human(&mut ws.human_command(&["runs", "show", "last", "--format", "pdf"]));
    assert_ne!(status, 0);
    assert!(err.contains("md") && err.contains("junit"), "the error names the formats: {err}");
}
