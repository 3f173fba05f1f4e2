//! MCP over stdio as JSON-RPC lines, answering what rmcp's own stdio transport drops: a line
//! that is not JSON gets a parse error (-32700) and a line over the size limit an error that
//! names the limit (-32600), so a client never waits forever for an answer that will not come
//! (JSON-RPC 2.0, section 5.1). Well-formed JSON that is not a message gets -32600 with its
//! id; an unknown notification is ignored, as notifications are never answered.
//!
//! Outgoing messages go to one writer task, which writes whatever has queued up in a single
//! `write` (pipelined responses leave in batches instead of one syscall each).

use std::future::Future;

use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The largest message rein reads (16 MiB, as rmcp's own limit).
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// How much the writer gathers into one write.
const WRITE_BATCH: usize = 256 * 1024;
/// JSON-RPC 2.0 error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

pub struct LineTransport<R> {
    input: BufReader<R>,
    line: Vec<u8>,
    /// Dropping the rest of an oversized line, up to its newline.
    discarding: bool,
    limit: usize,
    output: Option<mpsc::UnboundedSender<Vec<u8>>>,
}

/// What one line turned out to be.
enum Line {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Answered by the transport itself (or ignored): read the next line.
    Handled,
}

impl<R: AsyncRead + Unpin + Send> LineTransport<R> {
    /// Reads `input` and writes to `output` (through a writer task of its own).
    pub fn new<W: AsyncWrite + Unpin + Send + 'static>(input: R, output: W) -> LineTransport<R> {
        LineTransport::with_limit(input, output, MAX_MESSAGE_BYTES)
    }

    pub fn with_limit<W: AsyncWrite + Unpin + Send + 'static>(input: R, output: W, limit: usize) -> LineTransport<R> {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(write_batches(rx, output));
        LineTransport {
            input: BufReader::with_capacity(64 * 1024, input),
            line: Vec::new(),
            discarding: false,
            limit,
            output: Some(tx),
        }
    }

    fn queue(&self, bytes: Vec<u8>) {
        if let Some(output) = &self.output {
            let _ = output.send(bytes);
        }
    }

    fn answer_error(&self, id: Value, code: i64, message: String, data: Option<Value>) {
        let mut error = json!({"code": code, "message": message});
        if let Some(data) = data {
            error["data"] = data;
        }
        let mut bytes = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "error": error})).unwrap_or_default();
        bytes.push(b'\n');
        self.queue(bytes);
    }

    /// Reads one line into `self.line`, never holding more than the limit. Some(false): the
    /// line was over the limit (its start is in `self.line`, the rest is skipped). None: EOF.
    async fn read_line(&mut self) -> Option<bool> {
        loop {
            let available = match self.input.fill_buf().await {
                Ok(available) if !available.is_empty() => available,
                Ok(_) => return None,
                Err(e) => {
                    tracing::error!("cannot read from the client: {e}");
                    return None;
                }
            };
            let newline = memchr::memchr(b'\n', available);
            let take = newline.map_or(available.len(), |i| i + 1);
            if self.discarding {
                self.input.consume(take);
                if newline.is_some() {
                    self.discarding = false;
                }
                continue;
            }
            let oversized = self.line.len() + take > self.limit + 1;
            let room = (self.limit + 1).saturating_sub(self.line.len()).min(take);
            self.line.extend_from_slice(&available[..room]);
            self.input.consume(take);
            if oversized {
                self.discarding = newline.is_none();
                return Some(false);
            }
            if newline.is_some() {
                return Some(true);
            }
        }
    }

    fn interpret(&mut self, within_limit: bool) -> Line {
        let line = std::mem::take(&mut self.line);
        if !within_limit {
            let id = sniff_id(&line);
            let message = format!(
                "message too large: over the limit of {} bytes{} per message; it was not read",
                self.limit,
                if self.limit >= 1024 * 1024 {
                    format!(" ({} MiB)", self.limit / (1024 * 1024))
                } else {
                    String::new()
                }
            );
            tracing::warn!("{message}");
            self.answer_error(id, INVALID_REQUEST, message, Some(json!({"limit_bytes": self.limit})));
            self.line = line;
            self.line.clear();
            return Line::Handled;
        }
        let text = trim_line(&line);
        if text.is_empty() {
            return Line::Handled;
        }
        let parsed = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text);
        let outcome = match parsed {
            Ok(message) => Line::Message(Box::new(message)),
            Err(e)
                if matches!(e.classify(), serde_json::error::Category::Syntax | serde_json::error::Category::Eof) =>
            {
                self.answer_error(
                    Value::Null,
                    PARSE_ERROR,
                    format!("Parse error: the message is not valid JSON ({e})"),
                    None,
                );
                Line::Handled
            }
            Err(e) => {
                match serde_json::from_slice::<Value>(text).ok().and_then(|v| v.get("id").cloned()) {
                    Some(id) if id.is_string() || id.is_number() => self.answer_error(
                        id,
                        INVALID_REQUEST,
                        format!("Invalid Request: not a JSON-RPC 2.0 request rein understands ({e})"),
                        None,
                    ),
                    // A notification rein does not know: notifications are never answered.
                    _ => tracing::debug!("ignored a message that is not a known notification: {e}"),
                }
                Line::Handled
            }
        };
        self.line = line;
        self.line.clear();
        outcome
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> Transport<RoleServer> for LineTransport<R> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let sent = match (&self.output, serde_json::to_vec(&item)) {
            (Some(output), Ok(mut bytes)) => {
                bytes.push(b'\n');
                output
                    .send(bytes)
                    .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the client is gone"))
            }
            (None, _) => Err(std::io::Error::new(std::io::ErrorKind::NotConnected, "the transport is closed")),
            (_, Err(e)) => Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
        };
        std::future::ready(sent)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let within_limit = self.read_line().await?;
            if let Line::Message(message) = self.interpret(within_limit) {
                return Some(*message);
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.output = None;
        Ok(())
    }
}

/// Writes queued messages, as many as are waiting in one write.
async fn write_batches<W: AsyncWrite + Unpin>(mut rx: mpsc::UnboundedReceiver<Vec<u8>>, mut output: W) {
    let mut batch = Vec::with_capacity(WRITE_BATCH);
    while let Some(first) = rx.recv().await {
        batch.extend_from_slice(&first);
        while batch.len() < WRITE_BATCH {
            match rx.try_recv() {
                Ok(more) => batch.extend_from_slice(&more),
                Err(_) => break,
            }
        }
        if let Err(e) = output.write_all(&batch).await.and(output.flush().await) {
            tracing::debug!("cannot write to the client: {e}");
            return;
        }
        batch.clear();
    }
}

fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

/// The `"id"` of a message too large to parse, when it appears near its start (clients write
/// `jsonrpc`, `id`, `method` first), so the client can tell which request failed.
fn sniff_id(head: &[u8]) -> Value {
    let head = &head[..head.len().min(256)];
    let Some(at) = memchr::memmem::find(head, b"\"id\"") else { return Value::Null };
    let rest = &head[at + 4..];
    let rest = rest.trim_ascii_start();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_id_of_an_oversized_message_is_found_near_its_start() {
        assert_eq!(sniff_id(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"#), json!(7));
        assert_eq!(sniff_id(br#"{"jsonrpc":"2.0", "id" : "a-1","method""#), json!("a-1"));
        assert_eq!(sniff_id(br#"{"jsonrpc":"2.0","method":"x","params":{"#), Value::Null);
        assert_eq!(sniff_id(br#"{"id":{"#), Value::Null);
    }

    async fn exchange(input: Vec<u8>, limit: usize) -> (Vec<String>, Vec<Value>) {
        let (client, server_out) = tokio::io::duplex(1 << 20);
        let mut transport = LineTransport::with_limit(std::io::Cursor::new(input), server_out, limit);
        let mut methods = Vec::new();
        while let Some(message) = transport.receive().await {
            let value = serde_json::to_value(&message).unwrap();
            methods.push(value["method"].as_str().unwrap_or_default().to_string());
        }
        transport.close().await.unwrap();
        drop(transport);
        let mut replies = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut { client }, &mut replies).await.unwrap();
        (methods, replies.lines().map(|l| serde_json::from_str(l).unwrap()).collect())
    }

    #[tokio::test]
    async fn bad_lines_get_an_error_and_good_lines_still_pass() {
        let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        let mut input = Vec::new();
        input.extend_from_slice(b"{not json\n");
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":\"");
        input.extend_from_slice(&[b'x'; 300]);
        input.extend_from_slice(b"\"}\n");
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":5,\"error\":{}}\n");
        input.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/unknown\",\"params\":7}\n");
        input.extend_from_slice(ping);
        input.push(b'\n');
        let (methods, replies) = exchange(input, 200).await;
        assert_eq!(methods, ["ping"], "the good line after the bad ones is read");
        assert_eq!(replies.len(), 3, "{replies:?}");
        assert_eq!((replies[0]["id"].clone(), replies[0]["error"]["code"].clone()), (Value::Null, json!(PARSE_ERROR)));
        assert_eq!((replies[1]["id"].clone(), replies[1]["error"]["code"].clone()), (json!(2), json!(INVALID_REQUEST)));
        let message = replies[1]["error"]["message"].as_str().unwrap();
        assert!(message.contains("200 bytes"), "the limit is named: {message}");
        assert_eq!(replies[2]["id"], json!(3));
    }
}
