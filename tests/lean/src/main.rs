//! rein built with `default-features = false` (no CLI, no MCP server, no terminal UI): a host
//! on a scratch workspace calls the built-in file tools and runs a project recipe. `.ci/run`
//! runs it (`cargo run -p rein-lean`); it exits non-zero, saying why, when something is off.

use std::process::ExitCode;

use serde_json::{json, Value};

const RECIPE: &str = r#"return {
  name = "greet",
  description = "writes a greeting, then checks it",
  steps = {
    { name = "write", run = function() rein.fs.write("greeting.txt", "Hello rein\n") end },
    { name = "check", run = function()
        local text = rein.fs.read_text("greeting.txt").text
        if text ~= "Hello rein\n" then rein.error("WRONG_GREETING", text) end
      end },
  },
}
"#;

fn main() -> ExitCode {
    match run() {
        Ok(()) => {
            println!("rein without default features: tools and recipes work");
            ExitCode::SUCCESS
        }
        Err(problem) => {
            eprintln!("rein-lean: {problem}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let workspace = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    std::fs::create_dir(workspace.path().join("recipes"))?;
    std::fs::write(workspace.path().join("recipes/greet.lua"), RECIPE)?;
    std::fs::write(workspace.path().join("hello.txt"), "Hello World\n")?;

    let host = rein::Host::builder().workspace(workspace.path()).home(home.path()).build()?;
    if !host.problems().is_empty() {
        return Err(format!("load problems: {:?}", host.problems()).into());
    }

    let edited = host.call("edit_file", json!({"path": "hello.txt", "old_string": "World", "new_string": "rein"}))?;
    expect(&edited["replacements"], &json!(1), "edit_file replacements")?;
    let on_disk = std::fs::read_to_string(workspace.path().join("hello.txt"))?;
    expect(&json!(on_disk), &json!("Hello rein\n"), "hello.txt after the edit")?;

    let refused = host.call("edit_file", json!({"path": "hello.txt", "old_string": "absent", "new_string": "x"}));
    match refused {
        Err(failure) if failure.code == rein::Code::OldStringNotFound => {}
        other => return Err(format!("edit of a missing string: expected OLD_STRING_NOT_FOUND, got {other:?}").into()),
    }

    let heard = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = heard.clone();
    let listener: rein::Listener = std::sync::Arc::new(move |_: &rein::Event| {
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    });
    let _listening = host.listen(listener);
    let report = host.run_recipe("greet", json!({}), rein::RecipeOptions::default())?;
    if report.status != rein::RunStatus::Succeeded {
        return Err(format!("recipe greet did not succeed: {}", report.to_markdown()).into());
    }
    if heard.load(std::sync::atomic::Ordering::Relaxed) == 0 {
        return Err("the recipe run's listener heard no events".into());
    }
    names_what_it_receives(&host, &report)?;
    Ok(())
}

/// What an embedder receives it can name, as the types the crate root exports: a tool's
/// annotations, a step's attachments.
fn names_what_it_receives(host: &rein::Host, report: &rein::Report) -> Result<(), String> {
    let write_file = host.tools().into_iter().find(|t| t.name == "write_file").ok_or("no write_file tool")?;
    let annotations: rein::Annotations = write_file.annotations;
    if annotations.read_only != Some(false) {
        return Err(format!("write_file's annotations: {annotations:?}"));
    }
    let attachments: Vec<&rein::Attachment> = report.steps.iter().flat_map(|s| &s.attachments).collect();
    let screenshots = attachments.iter().filter(|a| a.kind == rein::AttachmentKind::Screenshot).count();
    if screenshots != 0 {
        return Err(format!("a recipe without a device attached a screenshot: {attachments:?}"));
    }
    Ok(())
}

fn expect(actual: &Value, expected: &Value, what: &str) -> Result<(), String> {
    if actual == expected {
        Ok(())
    } else {
        Err(format!("{what}: expected {expected}, got {actual}"))
    }
}
