//! MCP over stdio as JSON-RPC lines, answering what rmcp's own stdio transport drops: a line
//! that is not JSON gets a parse error (-32700) and a line over the size limit an error that
//! names the limit (-32600), so a client never waits forever for an answer that will not come
//! (JSON-RPC 2.0, section 5.1). Well-formed JSON that is not a message gets -32600 with its
//! id; an unknown notification is ignored, as notifications are never answered.
//!
//! Outgoing messages go to one writer task, which writes whatever has queued up in a single
//! `write` (pipelined responses leave in batches instead of one syscall each).

use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;

use rmcp::model::{JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Value};
#[cfg(test)]
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use super::cancels::Cancels;

/// The largest message rein reads (16 MiB, as rmcp's own limit).
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// How much the writer gathers into one write.
const WRITE_BATCH: usize = 256 * 1024;
/// How much one read takes from the client.
const READ_CHUNK: usize = 64 * 1024;
/// How many batches of lines may wait for the server before the reader stops reading (the
/// client then waits on a full pipe instead of rein buffering without bound).
const QUEUED_BATCHES: usize = 1024;
/// How much of an oversized message is looked at for its id.
const SNIFFED: usize = 256;
/// JSON-RPC 2.0 error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;

pub struct LineTransport {
    /// Lines as the reader split them, a batch per read.
    input: mpsc::Receiver<Vec<Incoming>>,
    batch: VecDeque<Incoming>,
    limit: usize,
    output: Option<mpsc::UnboundedSender<Vec<u8>>>,
    /// Requests the client cancelled: their responses are not sent.
    cancels: Option<Arc<Cancels>>,
}

/// One line from the client.
enum Incoming {
    Line(Vec<u8>),
    /// Over the limit: its first bytes (for its id); the rest was skipped.
    Oversized(Vec<u8>),
}

/// What one line turned out to be.
enum Line {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Answered by the transport itself (or ignored): read the next line.
    Handled,
}

impl LineTransport {
    /// Reads `input` (on a task of its own) and writes to `output` (through a writer task);
    /// the server reads stdin on a thread instead ([`LineTransport::stdin`]).
    #[cfg(test)]
    pub fn with_limit<R, W>(input: R, output: W, limit: usize) -> LineTransport
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let (lines, received) = mpsc::channel(QUEUED_BATCHES);
        tokio::spawn(read_async(input, Splitter::new(limit), lines));
        LineTransport::receiving(received, output, limit, None)
    }

    /// Reads the process's stdin on a thread of its own, so the client's messages are read
    /// even while a call holds the server's worker, and cancels each request the client
    /// cancels through `cancels` as soon as the notification arrives.
    pub(crate) fn stdin<W: AsyncWrite + Unpin + Send + 'static>(
        output: W,
        cancels: Arc<Cancels>,
    ) -> std::io::Result<LineTransport> {
        let (lines, received) = mpsc::channel(QUEUED_BATCHES);
        let splitter = Splitter::new(MAX_MESSAGE_BYTES);
        let spotter = cancels.clone();
        std::thread::Builder::new()
            .name("rein-stdin".to_string())
            .spawn(move || read_blocking(std::io::stdin().lock(), splitter, &spotter, lines))?;
        Ok(LineTransport::receiving(received, output, MAX_MESSAGE_BYTES, Some(cancels)))
    }

    fn receiving<W: AsyncWrite + Unpin + Send + 'static>(
        input: mpsc::Receiver<Vec<Incoming>>,
        output: W,
        limit: usize,
        cancels: Option<Arc<Cancels>>,
    ) -> LineTransport {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(write_batches(rx, output));
        LineTransport { input, batch: VecDeque::new(), limit, output: Some(tx), cancels }
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

    /// The next line, None at the end of input.
    async fn next_line(&mut self) -> Option<Incoming> {
        loop {
            if let Some(line) = self.batch.pop_front() {
                return Some(line);
            }
            self.batch = self.input.recv().await?.into();
        }
    }

    fn interpret(&mut self, incoming: Incoming) -> Line {
        let line = match incoming {
            Incoming::Line(line) => line,
            Incoming::Oversized(head) => {
                let id = sniff_id(&head);
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
                return Line::Handled;
            }
        };
        let text = trim_line(&line);
        if text.is_empty() {
            return Line::Handled;
        }
        let parsed = serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(text);
        match parsed {
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
        }
    }

    /// Whether `item` answers a request the client cancelled (and is not to be sent).
    fn answers_cancelled(&self, item: &TxJsonRpcMessage<RoleServer>) -> bool {
        let Some(cancels) = &self.cancels else { return false };
        let id = match item {
            JsonRpcMessage::Response(response) => Some(&response.id),
            JsonRpcMessage::Error(error) => error.id.as_ref(),
            _ => None,
        };
        id.is_some_and(|id| cancels.was_cancelled(id))
    }
}

/// Splits what the client writes into lines, never holding more than the limit of one.
struct Splitter {
    line: Vec<u8>,
    /// Dropping the rest of an oversized line, up to its newline.
    discarding: bool,
    limit: usize,
}

impl Splitter {
    fn new(limit: usize) -> Splitter {
        Splitter { line: Vec::new(), discarding: false, limit }
    }

    /// Adds `chunk`; every line it completes goes to `out`.
    fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<Incoming>) {
        while !chunk.is_empty() {
            let newline = memchr::memchr(b'\n', chunk);
            let take = newline.map_or(chunk.len(), |i| i + 1);
            let (piece, rest) = chunk.split_at(take);
            chunk = rest;
            if self.discarding {
                self.discarding = newline.is_none();
                continue;
            }
            if self.line.len() + take > self.limit + 1 {
                // Only the head is kept: it names the request's id.
                let mut head = std::mem::take(&mut self.line);
                let room = SNIFFED.saturating_sub(head.len()).min(piece.len());
                head.extend_from_slice(&piece[..room]);
                out.push(Incoming::Oversized(head));
                self.discarding = newline.is_none();
                continue;
            }
            if newline.is_none() {
                self.line.extend_from_slice(piece);
            } else if self.line.is_empty() {
                out.push(Incoming::Line(piece.to_vec()));
            } else {
                self.line.extend_from_slice(piece);
                out.push(Incoming::Line(std::mem::take(&mut self.line)));
            }
        }
    }

    /// At the end of input: a last line without its newline.
    fn finish(&mut self, out: &mut Vec<Incoming>) {
        if !self.discarding && !self.line.is_empty() {
            out.push(Incoming::Line(std::mem::take(&mut self.line)));
        }
    }
}

/// The reader of [`LineTransport::with_limit`]: an async source, on a task.
#[cfg(test)]
async fn read_async<R: AsyncRead + Unpin>(mut input: R, mut splitter: Splitter, lines: mpsc::Sender<Vec<Incoming>>) {
    let mut buffer = vec![0; READ_CHUNK];
    loop {
        let mut batch = Vec::new();
        let done = match input.read(&mut buffer).await {
            Ok(0) => {
                splitter.finish(&mut batch);
                true
            }
            Ok(n) => {
                splitter.feed(&buffer[..n], &mut batch);
                false
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                tracing::error!("cannot read from the client: {e}");
                true
            }
        };
        if !batch.is_empty() && lines.send(batch).await.is_err() {
            return;
        }
        if done {
            return;
        }
    }
}

/// The reader of [`LineTransport::stdin`]: blocking reads on a thread of its own. A cancel
/// notification cancels its request here, before the server's worker even sees the line.
fn read_blocking(
    mut input: impl std::io::Read,
    mut splitter: Splitter,
    cancels: &Cancels,
    lines: mpsc::Sender<Vec<Incoming>>,
) {
    let spot = memchr::memmem::Finder::new(b"notifications/cancelled");
    let mut buffer = vec![0; READ_CHUNK];
    loop {
        let mut batch = Vec::new();
        let read = input.read(&mut buffer);
        let done = match read {
            Ok(0) => {
                splitter.finish(&mut batch);
                true
            }
            Ok(n) => {
                splitter.feed(&buffer[..n], &mut batch);
                false
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                tracing::error!("cannot read from the client: {e}");
                true
            }
        };
        for line in &batch {
            if let Incoming::Line(line) = line {
                if spot.find(line).is_some() {
                    if let Some(id) = cancelled_request(line) {
                        tracing::info!(%id, "the client cancelled request {id}");
                        cancels.cancel(&id);
                    }
                }
            }
        }
        if !batch.is_empty() && lines.blocking_send(batch).is_err() {
            return;
        }
        if done {
            return;
        }
    }
}

/// The request a `notifications/cancelled` line names (None for any other line).
fn cancelled_request(line: &[u8]) -> Option<RequestId> {
    #[derive(serde::Deserialize)]
    struct Notification {
        method: String,
        params: Params,
    }
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(rename = "requestId")]
        request_id: RequestId,
    }
    let notification: Notification = serde_json::from_slice(trim_line(line)).ok()?;
    (notification.method == "notifications/cancelled").then_some(notification.params.request_id)
}

impl Transport<RoleServer> for LineTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if self.answers_cancelled(&item) {
            tracing::debug!("not answering a request the client cancelled");
            return std::future::ready(Ok(()));
        }
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
            let line = self.next_line().await?;
            if let Line::Message(message) = self.interpret(line) {
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
    let head = &head[..head.len().min(SNIFFED)];
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
