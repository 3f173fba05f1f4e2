//! What every agent pays in tokens at the start of every session: `tools/list` with every
//! built-in tool and recipe stays at most 24 KB (issue 41: it had grown to 23 KB for 24 tools,
//! and each round adds tools). A description says what the tool does and what it returns; the
//! detail is in the book and `rein man`.

use serde_json::json;

use crate::common::raw_server::Server;
use crate::common::Workspace;

/// The whole `tools/list` response, as compact JSON bytes.
const TOOLS_LIST_MAX_BYTES: usize = 24_000;

#[test]
fn tools_list_with_every_built_in_tool_stays_at_most_24_kb() {
    let ws = Workspace::new();
    let mut server = Server::start(&ws);
    server.send(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    let reply = server.reply_to(1, std::time::Duration::from_secs(60));
    server.finish();
    let tools = reply["result"]["tools"].as_array().expect("tools/list answers a list of tools");
    assert!(tools.len() >= 24, "every built-in tool and recipe is listed: {}", tools.len());
    assert!(reply["result"].get("nextCursor").is_none(), "one page holds every tool: {reply}");
    let total = reply.to_string().len();
    let mut sizes: Vec<(usize, &str)> =
        tools.iter().map(|tool| (tool.to_string().len(), tool["name"].as_str().unwrap_or("?"))).collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    // Printed so a run shows each tool's share (cargo test -- --nocapture).
    println!("tools/list: {total} bytes for {} tools; largest: {sizes:?}", tools.len());
    assert!(
        total <= TOOLS_LIST_MAX_BYTES,
        "tools/list is {total} bytes, over {TOOLS_LIST_MAX_BYTES}: shorten descriptions (what the tool does and \
         returns, in a sentence or two; the detail goes in the book). Largest: {:?}",
        &sizes[..sizes.len().min(8)]
    );
}
