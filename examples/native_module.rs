//! A program embedding rein gives its Lua tools a module of its own: `rein.ide`, whose
//! functions act through the kernel for the call they serve, so the workspace scope, the
//! approvals and the journal apply to them as to any script.
//!
//! `cargo run --example native_module`

use serde_json::json;

use rein::{Failure, Host, NativeFunction, NativeModule};

/// A Lua tool given as text: it saves a note and has the IDE show it.
const JOT: &str = r#"return {
  name = "jot", description = "saves a note and shows it in the IDE",
  params = { path = { type = "string" }, text = { type = "string" } },
  run = function(args)
    local saved = rein.ide.save_note(args.path, args.text)
    rein.ide.show(saved.path, 1)
    return saved
  end,
}"#;

fn ide() -> NativeModule {
    let save = NativeFunction::new("save_note", "Writes a note (through the kernel).", |call, args| {
        let path = args[0].as_str().unwrap_or_default();
        let written = call.write(path, args[1].as_str().unwrap_or_default().as_bytes(), None)?;
        Ok(json!({"path": written.path, "bytes": written.bytes}))
    })
    .param("path", "string", "relative to the workspace")
    .param("text", "string", "")
    .returns("{path: string, bytes: integer}", "");
    let show = NativeFunction::new("show", "Shows a file in the editor at a line.", |call, args| {
        let file = call.read_text(args[0].as_str().unwrap_or_default())?;
        let line = args[1].as_i64().unwrap_or(1);
        // A real IDE would open its editor here; this one says what it would show.
        println!("[ide] {}:{line} ({} bytes), asked by {}", file.path, file.text.len(), call.caller().unwrap_or("?"));
        Ok(json!(true))
    })
    .param("path", "string", "")
    .param("line", "integer?", "1-based (default 1)")
    .returns("boolean", "");
    NativeModule::new("ide", "The IDE rein runs in.").function(save).function(show)
}

fn main() -> Result<(), Failure> {
    let root = tempfile::tempdir().map_err(|e| Failure::new(rein::Code::IoError, e.to_string()))?;
    let workspace = root.path().join("app");
    std::fs::create_dir_all(&workspace).map_err(|e| Failure::new(rein::Code::IoError, e.to_string()))?;
    let host = Host::builder()
        .workspace(&workspace)
        .home(root.path().join("home"))
        .module(ide())
        .tool_source("jot", JOT)
        .build()?;

    let saved = host.call("jot", json!({"path": "notes/todo.md", "text": "- sign the hap\n"}))?;
    println!("saved: {saved}");

    // The same function, asked to write outside the workspace: the kernel refuses it (nobody
    // here may approve), and the tool fails with the code any script would see.
    let outside = root.path().join("elsewhere.md").display().to_string();
    let refused = host.call("jot", json!({"path": outside, "text": "x"})).unwrap_err();
    println!("outside the workspace: {} ({})", refused.code, refused.message);
    Ok(())
}
