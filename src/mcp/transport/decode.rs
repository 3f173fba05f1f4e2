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
            agree(line);
        }
    }

    /// `line` reads as rmcp reads it: the same message, or the same error.
    fn agree(line: &str) {
        match (decode(line.as_bytes()), general(line)) {
            (Ok(fast), Ok(slow)) => assert_eq!(same(&fast), same(&slow), "{line}"),
            (Err(fast), Err(slow)) => {
                assert_eq!((fast.to_string(), fast.classify()), (slow.to_string(), slow.classify()), "{line}")
            }
            (fast, slow) => panic!("{line}: {fast:?} against rmcp's {slow:?}"),
        }
    }

    /// What an attacker tries on the fast path: keys twice (the first or the second wins?),
    /// escapes that spell `tools/call` or a key, ids at every edge, a lone surrogate where only
    /// the presence of a key is checked, `_meta` and `arguments` of every wrong shape, a batch,
    /// a BOM, trailing bytes, nesting at serde_json's depth limit.
    #[test]
    fn every_spelling_an_attacker_tries_reads_as_rmcp_reads_it() {
        let call = |head: &str, params: &str, tail: &str| {
            format!(r#"{{{head}"method":"tools/call","params":{{{params}}}{tail}}}"#)
        };
        let v1 = r#""jsonrpc":"2.0","id":1,"#;
        let mut lines = Vec::new();
        for head in [
            r#""jsonrpc":"2.0","id":1,"id":2,"#,
            r#""jsonrpc":"2.0","jsonrpc":"2.0","id":1,"#,
            r#""jsonrpc":"2.0","\u0069d":1,"#,
            r#""jsonrpc":"2.0","method":"ping","id":1,"#,
            r#""jsonrpc":"2.0","method":"tools/call","id":1,"#,
            r#""jsonrpc":2.0,"id":1,"#,
            r#""jsonrpc":"2.0 ","id":1,"#,
            r#""id":1,"#,
            r#""jsonrpc":"2.0","#,
        ] {
            lines.push(call(head, r#""name":"n""#, ""));
        }
        for id in [
            "null",
            "1.0",
            "1.5",
            "-0",
            "-0.0",
            "1e2",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "18446744073709551616",
            "1e400",
            "9007199254740993.0",
            r#""a\"b\u0000\ud83e\udd80""#,
            r#""\ud800""#,
            "true",
            "{}",
            "[1]",
        ] {
            lines.push(call(&format!(r#""jsonrpc":"2.0","id":{id},"#), r#""name":"n""#, ""));
        }
        for params in [
            r#""name":"n","name":"m""#,
            r#""name":"n","arguments":[]"#,
            r#""name":"n","arguments":"x""#,
            r#""name":"n","arguments":null"#,
            r#""name":"n","arguments":{"a":1,"a":2}"#,
            r#""name":"n","arguments":{"a":"\ud800"}"#,
            r#""name":"n","_meta":{"progressToken":1},"_meta":{"progressToken":2}"#,
            r#""name":"n","_meta":null"#,
            r#""name":"n","_meta":[]"#,
            r#""name":"n","_meta":{"progressToken":null}"#,
            r#""name":"n","_meta":{"progressToken":1.5}"#,
            r#""name":"n","_meta":{"progressToken":{"a":1}}"#,
            r#""name":"n","inputResponses":[]"#,
            r#""name":"n","requestState":1"#,
            r#""name":"n","method":"ping","result":1,"error":2"#,
            r#""name":7"#,
        ] {
            lines.push(call(v1, params, ""));
        }
        for tail in [
            r#","params":{"name":"m"}"#,
            r#","re\u0073ult":1"#,
            r#","result":"\ud800""#,
            r#","x":"\ud800""#,
            r#","error":null"#,
            r#","result":null,"result":null"#,
            r#","_meta":{"progressToken":5}"#,
        ] {
            lines.push(call(v1, r#""name":"n""#, tail));
        }
        let deep =
            |depth: usize| format!(r#""name":"n","arguments":{{"d":{}{}}}"#, "[".repeat(depth), "]".repeat(depth));
        lines.push(call(v1, &deep(125), ""));
        lines.push(call(v1, &deep(126), ""));
        let plain = call(v1, r#""name":"n""#, "");
        lines.extend([
            format!("[{plain}]"),
            format!("\u{feff}{plain}"),
            format!("{plain}x"),
            format!("{plain}{{}}"),
            plain.replace("tools/call", "tools\\/call"),
            plain.replace("tools/call", "Tools/Call"),
            plain.replace(r#""method""#, r#""m\u0065thod""#),
            r#"["2.0",1,"tools/call",{"name":"n"}]"#.to_string(),
            r#"{"jsonrpc":"2.0","id":1,"params":{"name":"n","method":"tools/call"}}"#.to_string(),
        ]);
        for line in &lines {
            agree(line);
        }
    }

    /// Every object of up to six members drawn from the members a message can have, in every
    /// order and repeated: tens of thousands of lines, each read as rmcp reads it.
    #[test]
    fn generated_messages_read_as_rmcp_reads_them() {
        let members = [
            r#""jsonrpc":"2.0""#,
            r#""jsonrpc":"1.0""#,
            r#""id":1"#,
            r#""id":"s""#,
            r#""id":null"#,
            r#""id":2.0"#,
            r#""method":"tools/call""#,
            r#""method":"ping""#,
            r#""method":"tools\/call""#,
            r#""params":{"name":"n"}"#,
            r#""params":{"name":"n","arguments":{"k":1}}"#,
            r#""params":{}"#,
            r#""params":{"name":"n","_meta":{"progressToken":"t"}}"#,
            r#""params":{"_meta":{"progressToken":1}}"#,
            r#""result":{}"#,
            r#""error":{"code":1,"message":"m"}"#,
            r#""result":null"#,
            r#""x":[1,"tools/call"]"#,
            r#""_meta":{}"#,
        ];
        let mut state: u64 = 0x2545_F491_4F6C_DD1D;
        for _ in 0..30_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut pick = state;
            let count = 1 + (pick % 6) as usize;
            pick /= 6;
            let chosen: Vec<&str> = (0..count)
                .map(|_| {
                    let member = members[(pick % members.len() as u64) as usize];
                    pick /= members.len() as u64;
                    member
                })
                .collect();
            agree(&format!("{{{}}}", chosen.join(",")));
        }
    }
}
