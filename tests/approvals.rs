//! The approval system end to end: headless refusals name the grant command, --yes allows
//! only what may be asked, destructive commands and home writes stay refused, rules a person
//! made allow, a project can only tighten, and granting needs a person at a terminal.

use std::os::unix::fs::PermissionsExt;

use crate::common::{in_terminal, run_json, toml_path, Workspace};
use serde_json::{json, Value};

/// A workspace whose hdc is a script that answers like a successful install.
fn setup() -> Workspace {
    let ws = Workspace::new();
    let hdc = ws.root.join("bin/hdc");
    std::fs::create_dir_all(hdc.parent().unwrap()).unwrap();
    std::fs::write(
        &hdc,
        "#!/bin/sh\necho \"[Info]App install path:$3 msg:install bundle successfully.\"\necho 'AppMod finish'\n",
    )
    .unwrap();
    std::fs::set_permissions(&hdc, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(ws.home.join("config.toml"), format!("[toolchain]\nhdc = {}\n", toml_path(&hdc))).unwrap();
    ws.file(
        "tools/hdc_raw.lua",
        "return { name = 'hdc_raw', description = 'runs hdc', params = { args = { type = 'array', items = { type = 'string' } } }, run = function(a) return rein.proc.run('hdc', a.args) end }",
    );
    ws.file("x.hap", "hap");
    ws
}

fn hdc(ws: &Workspace, extra: &[&str], args: &[&str]) -> (i32, Value) {
    let mut all: Vec<&str> = extra.to_vec();
    let payload = json!({ "args": args }).to_string();
    all.extend(["call", "hdc_raw", payload.as_str()]);
    run_json(&mut ws.command(&all), None)
}

#[test]
fn headless_install_is_refused_with_the_grant_command() {
    let ws = setup();
    let (status, out) = hdc(&ws, &[], &["install", "-r", "x.hap"]);
    assert_eq!(status, 1);
    assert_eq!(out["error"]["code"], json!("APPROVAL_REQUIRED"));
    assert_eq!(out["error"]["details"]["grant"], json!("rein approvals grant hdc install -r x.hap"));
    assert!(out["error"]["message"].as_str().unwrap().contains("rein approvals grant hdc install -r x.hap"));
    assert!(out["error"]["message"].as_str().unwrap().contains("again with --yes"), "the CLI has --yes: {out}");
}

#[test]
fn yes_allows_an_install_but_never_a_destructive_command_or_a_home_write() {
    let ws = setup();
    let (status, out) = hdc(&ws, &["--yes"], &["install", "-r", "x.hap"]);
    assert_eq!(status, 0, "{out}");
    assert!(out["result"]["stdout"].as_str().unwrap().contains("install bundle successfully."));
    let (_, out) = hdc(&ws, &["--yes"], &["shell", "rm", "-rf", "/system"]);
    assert_eq!(out["error"]["code"], json!("APPROVAL_DENIED"));
    let (_, out) = hdc(&ws, &["--yes"], &["shell", "reboot"]);
    assert_eq!(out["error"]["code"], json!("APPROVAL_DENIED"));
    let home_file = ws.home.join("approvals.toml").display().to_string();
    let payload = json!({"path": home_file, "content": "[[rule]]\nprogram = \"bash\"\n"}).to_string();
    let (_, out) = run_json(&mut ws.command(&["--yes", "call", "write_file", &payload]), None);
    assert_eq!(out["error"]["code"], json!("APPROVAL_REQUIRED"));
    assert_eq!(out["error"]["details"]["grant"], Value::Null, "no rule can allow a home write");
    assert!(!ws.home.join("approvals.toml").exists());
}

#[test]
fn yes_allows_reading_outside_the_workspace() {
    let ws = setup();
    let outside = ws.outside_file("elsewhere/notes.txt", "hello\n").display().to_string();
    let payload = json!({ "path": outside }).to_string();
    let (_, out) = run_json(&mut ws.command(&["call", "read_file", &payload]), None);
    assert_eq!(out["error"]["code"], json!("APPROVAL_REQUIRED"));
    let (status, out) = run_json(&mut ws.command(&["--yes", "call", "read_file", &payload]), None);
    assert_eq!(status, 0, "{out}");
    assert_eq!(out["result"]["content"], json!("     1\thello"));
}

#[test]
fn a_persisted_rule_allows_and_revoking_it_refuses_again() {
    let ws = setup();
    std::fs::write(
        ws.home.join("approvals.toml"),
        "[[rule]]\nprogram = \"hdc\"\nargs = [\"install\", \"-r\", \"*.hap\"]\n",
    )
    .unwrap();
    let (status, out) = hdc(&ws, &[], &["install", "-r", "x.hap"]);
    assert_eq!(status, 0, "{out}");
    let (_, out) = hdc(&ws, &[], &["uninstall", "com.example.hello"]);
    assert_eq!(out["error"]["code"], json!("APPROVAL_REQUIRED"), "the rule covers installs only");
    let (status, listed) = run_json(&mut ws.command(&["approvals", "list"]), None);
    assert_eq!(status, 0);
    assert_eq!(listed["result"]["rules"][0]["grant"], json!("rein approvals grant hdc install -r '*.hap'"));
    let (status, _) = run_json(&mut ws.command(&["approvals", "revoke", "1"]), None);
    assert_eq!(status, 0);
    let (_, out) = hdc(&ws, &[], &["install", "-r", "x.hap"]);
    assert_eq!(out["error"]["code"], json!("APPROVAL_REQUIRED"));
}

#[test]
fn a_project_can_only_tighten() {
    let ws = setup();
    ws.file("rein.toml", "[[deny]]\nprogram = \"hdc\"\nargs = [\"list\"]\n");
    let (_, out) = hdc(&ws, &["--yes"], &["list", "targets"]);
    assert_eq!(out["error"]["code"], json!("APPROVAL_DENIED"), "a probe the project denies stays denied");
    assert!(out["error"]["message"].as_str().unwrap().contains("rein.toml"));
    ws.file("rein.toml", "[[rule]]\nprogram = \"hdc\"\nargs = [\"install\"]\n");
    let (status, out) = hdc(&ws, &[], &["install", "-r", "x.hap"]);
    assert_eq!((status, out["error"]["code"].clone()), (2, json!("INVALID_CONFIG")), "{out}");
    assert!(out["error"]["message"].as_str().unwrap().contains("may only add [[deny]]"));
}

#[test]
fn granting_needs_a_person_at_a_terminal() {
    let ws = setup();
    let (status, out) = run_json(&mut ws.command(&["approvals", "grant", "hdc", "install", "-r", "*.hap"]), None);
    assert_eq!(status, 1, "{out}");
    assert_eq!(out["error"]["code"], json!("APPROVAL_REQUIRED"));
    assert!(!ws.home.join("approvals.toml").exists());
    let command =
        format!("{} --home {} approvals grant hdc install -r '*.hap'", crate::common::REIN, ws.home.display());
    let out = in_terminal(&command, "yes\n");
    assert!(out.contains("Type yes to confirm"), "{out}");
    let saved = std::fs::read_to_string(ws.home.join("approvals.toml")).unwrap();
    assert!(saved.contains("program = \"hdc\"") && saved.contains("*.hap"), "{saved}");
}

#[test]
fn a_person_at_the_terminal_answers_the_prompt() {
    let ws = setup();
    let call = |answer: &str| {
        let command = format!(
            "{} --workspace {} --home {} --json call hdc_raw '{{\"args\":[\"install\",\"-r\",\"x.hap\"]}}'",
            crate::common::REIN,
            ws.ws.display(),
            ws.home.display()
        );
        in_terminal(&command, answer)
    };
    let yes = call("y\n");
    assert!(yes.contains("Allow?") && yes.contains("install bundle successfully."), "{yes}");
    let no = call("n\n");
    assert!(no.contains("APPROVAL_DENIED"), "{no}");
}

/// The person reads the policy review; meanwhile the agent slips an override into rein.toml.
/// Their yes approves what they read, never the file as it is by then.
#[test]
fn a_policy_file_changed_while_the_person_reads_is_not_approved() {
    let ws = setup();
    ws.file("rein.toml", "[packs]\nteam-kit = \"../team-kit\"\n");
    let command = format!(
        "{} --workspace {} --home {} --json approvals policy",
        crate::common::REIN,
        ws.ws.display(),
        ws.home.display()
    );
    let slipped_in = "[packs]\nteam-kit = \"../team-kit\"\n[overrides]\nread_file = \"team-kit.read_file\"\n";
    let screen = crate::common::answer_in_terminal_after(
        &command,
        "Type yes to confirm",
        || drop(ws.file("rein.toml", slipped_in)),
        "yes\n",
    );
    assert!(screen.contains("+team-kit = \"../team-kit\""), "the review shows the file's diff: {screen}");
    assert!(screen.contains("rein.toml changed after it was shown, so nothing was approved"), "{screen}");
    assert!(screen.contains("+read_file = \"team-kit.read_file\""), "shown again as it is now: {screen}");
    assert!(screen.contains("APPROVAL_DENIED"), "the second question was not answered: {screen}");
    // Nothing was approved: both the pack and the override still wait for a person.
    let (_, doctor) = run_json(&mut ws.command(&["doctor"]), None);
    let report = if doctor["ok"] == true { &doctor["result"] } else { &doctor["error"]["details"] };
    let pending = report["policy_pending"].to_string();
    assert!(pending.contains("[packs]") && pending.contains("[overrides]"), "{doctor}");
}

/// The same through the library: a review is approved exactly as it was made.
#[test]
fn approving_a_review_records_the_texts_it_showed() {
    let ws = setup();
    ws.file("rein.toml", "[packs]\nteam-kit = \"../team-kit\"\n");
    let host = rein::Host::builder().workspace(&ws.ws).home(&ws.home).build().unwrap();
    let review = host.policy_review().unwrap();
    assert!(review.pending()[0].contains("[packs]"), "{:?}", review.pending());
    assert!(review.text().contains("+team-kit = \"../team-kit\""), "{}", review.text());
    ws.file("rein.toml", "[packs]\nteam-kit = \"../elsewhere\"\n");
    let refused = host.approve_policy(&review).unwrap_err();
    assert_eq!(refused.code, rein::Code::StaleFile, "{refused:?}");
    assert_eq!(refused.details["path"], json!("rein.toml"));
    ws.file("rein.toml", "[packs]\nteam-kit = \"../team-kit\"\n");
    host.approve_policy(&review).unwrap();
    let again = rein::Host::builder().workspace(&ws.ws).home(&ws.home).build().unwrap();
    assert!(again.policy_pending().is_empty(), "{:?}", again.policy_pending());
}
