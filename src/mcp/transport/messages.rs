//! Each line as a JSON-RPC message, or the error answer the transport sends itself.

use serde_json::{json, Value};

use super::lines::{Line, SNIFFED};
use super::Incoming;

/// JSON-RPC 2.0 error codes.
pub(super) const PARSE_ERROR: i64 = -32700;
pub(super) const INVALID_REQUEST: i64 = -32600;

pub(super) struct Parser {
    limit: usize,
}

/// What a read's lines hold: the messages for the server, and the lines the transport answers
/// itself (each a JSON-RPC error line), which the reader queues for the writer.
#[derive(Default)]
pub(super) struct Parsed {
    pub(super) messages: Vec<Incoming>,
    pub(super) answers: Vec<Vec<u8>>,
}

impl Parser {
    pub(super) fn new(limit: usize) -> Parser {
        Parser { limit }
    }

    /// The messages among `lines`, and the answers to the others (some are ignored).
    pub(super) fn parse_all(&self, lines: Vec<Line>) -> Parsed {
        let mut parsed = Parsed::default();
        for line in lines {
            if let Some(message) = self.parse(line, &mut parsed.answers) {
                parsed.messages.push(message);
            }
        }
        parsed
    }

    fn parse(&self, line: Line, answers: &mut Vec<Vec<u8>>) -> Option<Incoming> {
        let line = match line {
            Line::Whole(line) => line,
            Line::Oversized(head) => {
                answers.push(self.refuse_oversized(&head));
                return None;
            }
        };
        let text = trim_line(&line);
        if text.is_empty() {
            return None;
        }
        match super::decode::decode(text) {
            Ok(message) => Some(message),
            Err(e)
                if matches!(e.classify(), serde_json::error::Category::Syntax | serde_json::error::Category::Eof) =>
            {
                answers.push(error_line(
                    Value::Null,
                    PARSE_ERROR,
                    format!("Parse error: the message is not valid JSON ({e})"),
                    None,
                ));
                None
            }
            Err(e) => {
                let value = serde_json::from_slice::<Value>(text).ok();
                if value.as_ref().is_some_and(Value::is_array) {
                    // JSON-RPC batches left MCP in 2025-06-18; its requests must not wait for ever.
                    let message = "Invalid Request: batches are not supported; send each message on a line of its own";
                    answers.push(error_line(Value::Null, INVALID_REQUEST, message.to_string(), None));
                    return None;
                }
                match value.and_then(|v| v.get("id").cloned()) {
                    Some(id) if id.is_string() || id.is_number() => answers.push(error_line(
                        id,
                        INVALID_REQUEST,
                        format!("Invalid Request: not a JSON-RPC 2.0 request rein understands ({e})"),
                        None,
                    )),
                    // A notification rein does not know: notifications are never answered.
                    _ => tracing::debug!("ignored a message that is not a known notification: {e}"),
                }
                None
            }
        }
    }

    fn refuse_oversized(&self, head: &[u8]) -> Vec<u8> {
        let message = format!(
            "message too large: over the limit of {} bytes{} per message; it was not read",
            self.limit,
            if self.limit >= 1024 * 1024 { format!(" ({} MiB)", self.limit / (1024 * 1024)) } else { String::new() }
        );
        tracing::warn!("{message}");
        error_line(sniff_id(head), INVALID_REQUEST, message, Some(json!({"limit_bytes": self.limit})))
    }
}

/// A JSON-RPC error answer as a line.
pub(super) fn error_line(id: Value, code: i64, message: String, data: Option<Value>) -> Vec<u8> {
    let mut error = json!({"code": code, "message": message});
    if let Some(data) = data {
        error["data"] = data;
    }
    let mut bytes = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "error": error})).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

/// The `"id"` of a message too large to parse, when it appears near its start (clients write
/// `jsonrpc`, `id`, `method` first), so the client can tell which request failed. Only the
/// message's own key counts: an `"id"` inside its params may be another request's, which
/// must not be failed in its place.
fn sniff_id(head: &[u8]) -> Value {
    let head = &head[..head.len().min(SNIFFED)];
    let Some(after) = top_level_id_key(head) else { return Value::Null };
    let rest = head[after..].trim_ascii_start();
    let Some(rest) = rest.strip_prefix(b":") else { return Value::Null };
    let rest = rest.trim_ascii_start();
    let end = match rest.first() {
        Some(b'"') => rest[1..].iter().position(|b| *b == b'"').map(|i| i + 2),
        Some(b) if b.is_ascii_digit() || *b == b'-' => {
            Some(rest.iter().position(|b| !(b.is_ascii_digit() || *b == b'-')).unwrap_or(rest.len()))
        }
        _ => None,
    };
    end.and_then(|end| serde_json::from_slice::<Value>(&rest[..end]).ok())
        .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
        .unwrap_or(Value::Null)
}

/// Where the `"id"` key of the outermost object ends, if `head` has one: strings (with their
/// escapes) and nested objects and arrays are stepped over.
fn top_level_id_key(head: &[u8]) -> Option<usize> {
    let (mut depth, mut i) = (0usize, 0usize);
    while i < head.len() {
        match head[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let start = i + 1;
                i = start;
                while i < head.len() && head[i] != b'"' {
                    i += if head[i] == b'\\' { 2 } else { 1 };
                }
                let is_key = head[i.min(head.len())..].get(1..).is_some_and(|r| r.trim_ascii_start().starts_with(b":"));
                if depth == 1 && is_key && head.get(start..i) == Some(b"id".as_slice()) {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_of_an_oversized_message_is_found_near_its_start() {
        assert_eq!(sniff_id(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"#), json!(7));
        assert_eq!(sniff_id(br#"{"jsonrpc":"2.0", "id" : "a-1","method""#), json!("a-1"));
        assert_eq!(sniff_id(br#"{"jsonrpc":"2.0","method":"x","params":{"#), Value::Null);
        assert_eq!(sniff_id(br#"{"id":{"#), Value::Null);
        // Only the message's own id: not one inside its params (another request's, maybe),
        // nor a string that reads "id".
        let nested = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":{"id":5,"text":"#;
        assert_eq!(sniff_id(nested), Value::Null);
        assert_eq!(sniff_id(br#"{"method":"x","params":{"id":5},"id":8,"#), json!(8));
        assert_eq!(sniff_id(br#"{"method":"\"id\":5","id":"#), Value::Null);
        assert_eq!(sniff_id(br#"{"method":"id","id":6,"#), json!(6));
    }
}
