//! A run's report (report.json, report.md, and what `rein runs show` prints) says exactly what
//! happened, never more: a program's exit status as it was, a killed program as killed, a
//! refusal as a refusal naming who refused, and a step that declares no verify as done without
//! a verify — never as verified.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use serde_json::{json, Value};

use crate::common::{human, rein_json, Workspace};

/// A workspace whose `hvigorw` is `script` (a shell script named in home config.toml).
fn with_hvigorw(script: &str) -> Workspace {
    let ws = Workspace::new();
    let program = ws.root.join("clt/bin/hvigorw");
    std::fs::create_dir_all(program.parent().unwrap()).unwrap();
    std::fs::write(&program, format!("#!/bin/sh\n{script}\n")).unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(ws.home.join("config.toml"), format!("[toolchain]\nhvigorw = \"{}\"\n", program.display())).unwrap();
    ws
}

/// A recipe: `clean` runs `hvigorw clean` and declares no verify (it does not look at the exit
/// status, as a careless author might); `check` has a verify that passes.
const CLEAN: &str = r#"return {
  name = "clean",
  description = "cleans",
  steps = {
    { name = "clean", run = function() return rein.proc.run("hvigorw", { "clean" }) end },
    { name = "check", run = function() return {} end, verify = function() return true, "looked" end },
  },
}"#;

/// The run's report.json and report.md, and what `rein runs show last` prints.
fn reports(ws: &Workspace, out: &Value) -> (Value, String, String) {
    let run_id = out["result"]["run_id"].as_str().or(out["error"]["details"]["run_id"].as_str()).expect("a run id");
    let dir: PathBuf = ws.path(&format!(".rein/runs/{run_id}"));
    let json: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    let (status, shown, err) = human(&mut ws.human_command(&["runs", "show", "last"]));
    assert_eq!(status, 0, "{err}");
    let (_, shown_json) = rein_json(ws, &["runs", "show", "last"]);
    assert_eq!(shown_json["result"], json, "`runs show --json` prints report.json");
    (json, md, shown)
}

#[test]
fn a_program_that_exits_255_is_reported_as_exiting_255_not_ok() {
    let ws = with_hvigorw("exit 255");
    ws.file("recipes/clean.lua", CLEAN);
    let (status, out) = rein_json(&ws, &["recipe", "clean"]);
    assert_eq!(status, 0, "the recipe did not look at the status, so the run went on: {out}");
    let (report, md, shown) = reports(&ws, &out);
    let command = &report["steps"][0]["commands"][0];
    assert_eq!(command["command"], "hvigorw clean");
    assert_eq!((command["result"].clone(), command["exit_code"].clone()), (json!("exited"), json!(255)), "{command}");
    assert_ne!(command["result"], "ok", "{command}");
    let line = "- ran `hvigorw clean` — allowed by rein's policy (no one was asked); **exited 255**\n";
    assert!(md.contains(line), "report.md:\n{md}");
    assert!(!md.contains(", ok\n"), "nothing is called ok: {md}");
    assert_eq!(shown, md, "`rein runs show last` prints report.md");
}

#[test]
fn a_step_without_verify_is_done_without_verify_and_distinct_from_verified() {
    let ws = with_hvigorw("exit 0");
    ws.file("recipes/clean.lua", CLEAN);
    let (status, out) = rein_json(&ws, &["recipe", "clean"]);
    assert_eq!(status, 0, "{out}");
    let steps = out["result"]["steps"].as_array().unwrap();
    let statuses: Vec<&str> = steps.iter().map(|s| s["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, ["done", "claimed"], "a project recipe's verify is project code: {out}");
    assert_eq!(steps[0]["attempts"][0]["status"], "done");
    let (report, md, _) = reports(&ws, &out);
    assert_eq!(report["steps"][0]["status"], "done");
    assert_eq!(report["status"], "succeeded");
    assert!(md.contains("| 1 | clean | done (no verify) |"), "{md}");
    assert!(md.contains("| 2 | check | claimed by project code (not proven) |"), "{md}");
    assert!(
        md.contains("Step `clean` declares no verify: it ran to its end, but nothing proved it worked."),
        "the report says what was not proved: {md}"
    );
    assert!(md.contains("- ran `hvigorw clean` — allowed by rein's policy (no one was asked); exited 0\n"), "{md}");

    // The live lines say the same.
    let (status, _, err) = human(&mut ws.human_command(&["recipe", "clean"]));
    assert_eq!(status, 0, "{err}");
    assert!(err.contains("[1/2] clean done (no verify) in "), "{err}");
    assert!(err.contains("[2/2] check claimed by project code (not proven) in "), "{err}");
}

#[test]
fn a_killed_program_is_reported_as_killed() {
    let ws = with_hvigorw("kill -9 $$");
    ws.file("recipes/clean.lua", CLEAN);
    let (_, out) = rein_json(&ws, &["recipe", "clean"]);
    let (report, md, _) = reports(&ws, &out);
    let command = &report["steps"][0]["commands"][0];
    assert_eq!((command["result"].clone(), command["signal"].clone()), (json!("killed"), json!(9)), "{command}");
    assert!(md.contains("**killed by signal 9**"), "{md}");
}

#[test]
fn a_refused_command_is_a_refusal_naming_who_refused() {
    let ws = with_hvigorw("exit 0");
    ws.file("rein.toml", "[[deny]]\nprogram = \"hvigorw\"\nargs = [\"clean\"]\n");
    ws.file("recipes/clean.lua", CLEAN);
    let (status, out) = rein_json(&ws, &["recipe", "clean"]);
    assert_eq!(status, 1, "{out}");
    let (report, md, _) = reports(&ws, &out);
    let command = &report["steps"][0]["commands"][0];
    assert_eq!(command["result"], "refused", "{command}");
    assert_eq!(command["code"], "APPROVAL_DENIED", "{command}");
    assert_eq!(command["decided_by"], json!({"project": "hvigorw clean"}), "{command}");
    assert!(command.get("exit_code").is_none(), "it never ran: {command}");
    let line = "- did not run `hvigorw clean` — refused by the project's deny rule `hvigorw clean` (APPROVAL_DENIED)\n";
    assert!(md.contains(line), "{md}");
    assert!(!md.contains("approved by"), "a refusal is never an approval: {md}");
}

#[test]
fn a_command_nobody_could_approve_says_so() {
    let ws = with_hvigorw("exit 0");
    let hdc = ws.root.join("clt/bin/hdc");
    std::fs::write(&hdc, "#!/bin/sh\necho '[Success]'\n").unwrap();
    std::fs::set_permissions(&hdc, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = std::fs::read_to_string(ws.home.join("config.toml")).unwrap();
    std::fs::write(ws.home.join("config.toml"), format!("{config}hdc = \"{}\"\n", hdc.display())).unwrap();
    ws.file("app.hap", "hap");
    ws.file(
        "recipes/ship.lua",
        r#"return { name = "ship", description = "installs", steps = {
             { name = "install", run = function() return rein.proc.run("hdc", { "install", "app.hap" }) end },
           } }"#,
    );
    let (status, out) = rein_json(&ws, &["recipe", "ship"]);
    assert_eq!(status, 1, "no terminal and no --yes: nobody could approve the install: {out}");
    let (report, md, _) = reports(&ws, &out);
    let command = &report["steps"][0]["commands"][0];
    assert_eq!((command["result"].clone(), command["code"].clone()), (json!("refused"), json!("APPROVAL_REQUIRED")));
    let line =
        "- did not run `hdc -p install app.hap` — it needed approval and nobody could be asked (APPROVAL_REQUIRED)\n";
    assert!(md.contains(line), "{md}");
}

/// Issue 40: the report's command lines lost their quoting (`-S 2026-12-06 07:59:24`, two
/// words where hdc got one); each is written as a shell reads it back.
#[test]
fn a_command_line_keeps_its_quoting_in_the_report() {
    let ws = with_hvigorw("exit 0");
    ws.file(
        "recipes/spaced.lua",
        r#"return { name = "spaced", description = "d", steps = { { name = "clean", run = function() return rein.proc.run("hvigorw", { "-p", "product=my app", "clean" }) end } } }"#,
    );
    // The policy refuses a product name with a space; the report and the error say which command.
    let (status, out) = rein_json(&ws, &["recipe", "spaced"]);
    assert_eq!(status, 1, "{out}");
    let (report, md, _) = reports(&ws, &out);
    let command = "hvigorw -p 'product=my app' clean";
    assert_eq!(report["steps"][0]["commands"][0]["command"], json!(command), "{report}");
    assert!(md.contains(&format!("`{command}`")), "{md}");
    assert_eq!(out["error"]["details"]["failure"]["command"], json!(command), "{out}");
}
