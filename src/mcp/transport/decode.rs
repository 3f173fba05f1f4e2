//! A line as rmcp's message, with `tools/call` requests read straight into their type.
//!
//! rmcp reads a request as an untagged enum of every request it knows, trying each in turn,
//! and each one that does not match builds an error message: `tools/call` comes after ten of
//! them, so reading one cost more than answering much of it. A line that says `tools/call` is
//! read as that request first, through rmcp's own types (the same `_meta`, the same checks);
//! anything that does not read that way, or carries a `result` or `error` beside its
//! `method` (which rmcp refuses), goes the general way, so what rein accepts is unchanged.

use rmcp::model::{CallToolRequest, ClientRequest, JsonRpcMessage, JsonRpcRequest, JsonRpcVersion2_0, RequestId};
use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};

use super::Incoming;

/// `text` (one line, without its newline) as a message.
pub(super) fn decode(text: &[u8]) -> serde_json::Result<Incoming> {
    if memchr::memmem::find(text, b"tools/call").is_some() {
        if let Ok(call) = serde_json::from_slice::<ToolCallLine>(text) {
            if !call.result.0 && !call.error.0 {
                let request = ClientRequest::CallToolRequest(call.request);
                return Ok(JsonRpcMessage::Request(JsonRpcRequest { jsonrpc: call.jsonrpc, id: call.id, request }));
            }
        }
    }
    serde_json::from_slice::<Incoming>(text)
}

#[derive(Deserialize)]
struct ToolCallLine {
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    #[serde(flatten)]
    request: CallToolRequest,
    #[serde(default)]
    result: Present,
    #[serde(default)]
    error: Present,
}

/// Whether a key was there at all (`"result": null` counts, as it does for rmcp).
#[derive(Default)]
struct Present(bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(deserializer)?;
        Ok(Present(true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn general(text: &str) -> serde_json::Result<Incoming> {
        serde_json::from_str::<Incoming>(text)
    }

    /// What a message holds, `_meta` included (rmcp writes it back from the extensions).
    fn same(message: &Incoming) -> (String, serde_json::Value) {
        (format!("{message:?}"), serde_json::to_value(message).unwrap())
    }

    fn tool_call(message: &Incoming) -> bool {
        matches!(message, JsonRpcMessage::Request(JsonRpcRequest { request: ClientRequest::CallToolRequest(_), .. }))
    }

    #[test]
    fn a_tool_call_reads_as_rmcp_reads_it() {
        let lines = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}"#,
            r#"{"jsonrpc":"2.0","id":"x-2","method":"tools/call","params":{"name":"edit","arguments":{"path":"a","old_string":"tools/call"},"_meta":{"progressToken":7}}}"#,
            r#"{"method":"tools/call","params":{"name":"n"},"id":3,"jsonrpc":"2.0","extra":{"k":[1,2]}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"n","arguments":{},"_meta":{"progressToken":"t","other":1}}}"#,
        ];
        for line in lines {
            let fast = decode(line.as_bytes()).unwrap();
            assert!(tool_call(&fast), "{line}");
            assert_eq!(same(&fast), same(&general(line).unwrap()), "{line}");
            let progress = same(&fast).1.to_string().contains("progressToken");
            assert_eq!(progress, line.contains("progressToken"), "the progress token is kept: {line}");
        }
    }

    #[test]
    fn what_rmcp_refuses_or_reads_otherwise_is_left_to_it() {
        let lines = [
            // A stray result or error beside the method: not a request (rmcp #1283).
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"n"},"result":null}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"n"},"error":{"code":1,"message":"m"}}"#,
            // No name, a wrong version, no id, an id that is not one.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"n"}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"n"}}"#,
            r#"{"jsonrpc":"2.0","id":[1],"method":"tools/call","params":{"name":"n"}}"#,
            // Another method that mentions tools/call, and a response that does.
            r#"{"jsonrpc":"2.0","id":5,"method":"ping","params":{"_meta":{"note":"tools/call"}}}"#,
            r#"{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"tools/call"}]}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"n"}"#,
        ];
        for line in lines {
            match (decode(line.as_bytes()), general(line)) {
                (Ok(fast), Ok(slow)) => assert_eq!(same(&fast), same(&slow), "{line}"),
                (Err(fast), Err(slow)) => assert_eq!(fast.to_string(), slow.to_string(), "{line}"),
                (fast, slow) => panic!("{line}: {fast:?} against rmcp's {slow:?}"),
            }
        }
    }
}
