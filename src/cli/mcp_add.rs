//! `rein mcp add CLIENT [--print]`: rein's MCP entry for this workspace in the client's project
//! file (the forms and their sources: `rein::authoring::McpClient`).

use std::path::Path;

use serde_json::json;

use rein::authoring::{self, McpAdded};
use rein::{Code, Failure};

use super::args::McpAction;
use super::output::Output;
use super::screen::{say, tell};

pub fn run(workspace: &Path, action: &McpAction, out: &Output) -> u8 {
    let McpAction::Add { client, print } = action;
    let client = client.client();
    // The entry starts this very rein: the one the person just ran, wherever it is installed.
    let program = match std::env::current_exe() {
        Ok(program) => program,
        Err(e) => return out.failure(&Failure::new(Code::IoError, format!("cannot tell where rein is: {e}"))),
    };
    let entry = authoring::mcp_entry(client, workspace, &program);
    let shown = rein::visible::path(&entry.file);
    if *print {
        if out.json {
            return out.success(&entry);
        }
        tell!("rein's entry for {}, to merge into {shown}:", client.name());
        say!("{}", entry.text.trim_end());
        return 0;
    }
    let added = match authoring::add_mcp_entry(&entry) {
        Ok(added) => added,
        Err(refused) => return out.failure(&Failure::from(refused)),
    };
    if out.json {
        return out
            .success(&json!({"client": entry.client, "file": entry.file, "entry": entry.entry, "outcome": added}));
    }
    let kept = match &added {
        McpAdded::Added { kept } => {
            say!("added the MCP server rein to {shown}");
            kept
        }
        McpAdded::Unchanged { kept } => {
            say!("{shown} already has this entry for rein; nothing changed");
            kept
        }
    };
    if !kept.is_empty() {
        let names: Vec<String> = kept.iter().map(|name| rein::visible::line(name).into_owned()).collect();
        say!("other servers in it, left as they were: {}", names.join(", "));
    }
    say!("next: {}", client.next_step());
    0
}
