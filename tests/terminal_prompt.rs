//! rein's question to the person at the terminal, during a recipe run on a real pseudo-terminal:
//! the live step line is taken off the screen while the question waits, so the question stays
//! whole until it is answered, and the live line comes back after; what the person answered is
//! what the report says.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;
use std::time::Duration;

use crate::common::pty::Pty;
use crate::common::{Workspace, REIN};

/// How long the test gives rein to get somewhere (a bound for a failure, never a pace).
const WITHIN: Duration = Duration::from_secs(60);

/// The question's last line: the choices, then the cursor.
const CHOICES: &str = "Allow? [y]es once / [n]o / [a]lways this session / [p]ersist as a rule: ";

/// `install` asks to run `hdc install app.hap`, then keeps the step busy for a while (so its
/// live line shows again after the answer); `again` asks to install another.
const SHIP: &str = r#"return { name = "ship", description = "installs", steps = {
  {
    name = "install",
    run = function()
      local out = rein.proc.run("hdc", { "install", "app.hap" })
      rein.sleep(1500)
      return out
    end,
    verify = function(_, out) return out.code == 0, "installed" end,
  },
  { name = "again", run = function() return rein.proc.run("hdc", { "install", "other.hap" }) end },
} }"#;

/// A workspace whose `hdc` is a script that installs anything, and the ship recipe.
fn workspace() -> Workspace {
    let ws = Workspace::new();
    let hdc = ws.root.join("clt/hdc");
    std::fs::create_dir_all(hdc.parent().unwrap()).unwrap();
    std::fs::write(&hdc, "#!/bin/sh\necho 'install bundle successfully.'\n").unwrap();
    std::fs::set_permissions(&hdc, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(ws.home.join("config.toml"), format!("[toolchain]\nhdc = \"{}\"\n", hdc.display())).unwrap();
    ws.file("app.hap", "hap");
    ws.file("other.hap", "hap");
    ws.file("recipes/ship.lua", SHIP);
    ws
}

/// `rein recipe ship` on a terminal of its own, in colour.
fn run_on_a_terminal(ws: &Workspace) -> Pty {
    let mut cmd = Command::new(REIN);
    cmd.arg("--workspace").arg(&ws.ws).arg("--home").arg(&ws.home).args(["recipe", "ship"]);
    cmd.env("TERM", "xterm-256color").env_remove("NO_COLOR").env_remove("REIN_LOG").env_remove("REIN_HOME");
    Pty::spawn(cmd)
}

#[test]
fn the_question_stays_whole_on_screen_until_answered_and_progress_resumes() {
    let ws = workspace();
    let mut pty = run_on_a_terminal(&ws);
    let asked = pty.wait_for(CHOICES, 0, WITHIN);
    let screen = pty.screen();
    let question = &screen[screen[..asked].rfind("rein wants to").expect("the question's first line")..];
    assert!(question.contains("hdc install app.hap"), "the question names the command: {question:?}");
    // The live line redrew every 200 ms before: a second later it would have written over the
    // question. Nothing may be drawn while the person reads.
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(pty.written(), asked, "nothing drawn after the question: {:?}", &pty.screen()[asked..]);
    assert!(pty.screen().ends_with(CHOICES), "the choices are the last thing on screen");

    pty.type_in("y\n");
    let resumed = pty.wait_for("[1/2] install … ", asked, WITHIN);
    pty.wait_for("verified", resumed, WITHIN);
    let again = pty.wait_for(CHOICES, resumed, WITHIN);
    pty.type_in("y\n");
    let (status, screen) = pty.finish(WITHIN);
    assert_eq!(status, 0, "{screen:?}");
    assert!(screen[again..].contains("[2/2] again"), "{screen:?}");
}

#[test]
fn a_command_refused_at_the_prompt_is_reported_as_refused_by_the_person() {
    let ws = workspace();
    let mut pty = run_on_a_terminal(&ws);
    let first = pty.wait_for(CHOICES, 0, WITHIN);
    pty.type_in("y\n");
    pty.wait_for(CHOICES, first, WITHIN);
    pty.type_in("n\n");
    let (status, screen) = pty.finish(WITHIN);
    assert_eq!(status, 1, "the refusal failed the run: {screen:?}");
    let runs = std::fs::read_dir(ws.path(".rein/runs")).unwrap().flatten().next().expect("a run");
    let md = std::fs::read_to_string(runs.path().join("report.md")).unwrap();
    for line in [
        "- ran `hdc install app.hap` — allowed by a person at the terminal; exited 0\n",
        "- did not run `hdc install other.hap` — refused by a person at the terminal (APPROVAL_DENIED)\n",
    ] {
        assert!(md.contains(line), "{line}in:\n{md}");
    }
    let json = std::fs::read_to_string(runs.path().join("report.json")).unwrap();
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let refused = &report["steps"][1]["commands"][0];
    assert_eq!(refused["result"], "refused", "{refused}");
    assert_eq!(refused["decided_by"], serde_json::json!({"approver": "person"}), "{refused}");
}
