//! Watching what rein does: every tool call, program, approval (and who gave it), written
//! file and recipe step arrives as a typed event naming its call.
//!
//! `cargo run --example event_listener`

use std::sync::Arc;

use serde_json::json;

use rein::{AssumeYes, Event, EventKind, Failure, Host};

/// A recipe given as text: a note in the workspace, then one outside it (which asks).
const HANDOVER: &str = r#"return {
  name = "handover", description = "leaves notes for the next shift",
  params = { share = { type = "string" } },
  steps = {
    { name = "inside", run = function() return rein.fs.write("notes/shift.md", "all green\n") end },
    { name = "outside", run = function(ctx) return rein.fs.write(ctx.args.share .. "/shift.md", "all green\n") end },
  },
}"#;

fn main() -> Result<(), Failure> {
    let io = |e: std::io::Error| Failure::new(rein::Code::IoError, e.to_string());
    let root = tempfile::tempdir().map_err(io)?;
    let (workspace, share) = (root.path().join("app"), root.path().join("share"));
    std::fs::create_dir_all(&workspace).map_err(io)?;
    std::fs::create_dir_all(&share).map_err(io)?;
    let host = Host::builder()
        .workspace(&workspace)
        .home(root.path().join("home"))
        // `--yes`: allows what the policy asks about (never what only a person may allow).
        .approver(Arc::new(AssumeYes))
        .recipe_source("handover", HANDOVER)
        .build()?;

    // A channel: read it on another thread while the run goes on.
    let events = host.subscribe();
    let printer = std::thread::spawn(move || {
        for event in events {
            println!("{}", describe(&event));
        }
    });
    let report =
        host.run_recipe("handover", json!({"share": share.display().to_string()}), rein::RecipeOptions::default())?;
    println!("run {}: {}", report.run_id, report.status);
    drop(host); // ends the channel
    let _ = printer.join();
    Ok(())
}

/// One line per event; `serde_json::to_string(event)` gives the same as JSON.
fn describe(event: &Event) -> String {
    let call = event.call.map(|c| c.to_string()).unwrap_or_default();
    match &event.kind {
        EventKind::StepStarted { step, number, total, .. } => format!("{call} [{number}/{total}] {step}"),
        EventKind::ApprovalAnswered { what, allowed, by, .. } => {
            format!("{call}   {what}: {} by {by:?}", if *allowed { "allowed" } else { "refused" })
        }
        EventKind::FileWritten { path, bytes } => format!("{call}   wrote {path} ({bytes} bytes)"),
        other => format!("{call}   {}", serde_json::to_string(other).unwrap_or_default()),
    }
}
