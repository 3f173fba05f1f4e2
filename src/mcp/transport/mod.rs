//! MCP over stdio as JSON-RPC lines, answering what rmcp's own stdio transport drops: a line
//! that is not JSON gets a parse error (-32700) and a line over the size limit an error that
//! names the limit (-32600), so a client never waits forever for an answer that will not come
//! (JSON-RPC 2.0, section 5.1). Well-formed JSON that is not a message gets -32600 with its
//! id; an unknown notification is ignored, as notifications are never answered.
//!
//! For `rein serve` the work around the calls runs off the server's one worker thread: a
//! reader thread splits and parses what the client writes (and hears cancels while a call
//! holds the worker, see `mcp/cancels.rs`), and a writer thread serializes the responses and
//! writes whatever has queued up in a single `write` (pipelined responses leave in batches).
//! The worker is left with the calls themselves.
//!
//! Back-pressure (`owed`): a request is taken only while fewer than [`MAX_OWED`] answers are
//! owed, an answer being owed until its write to the client returned. The queues between are
//! bounded: [`QUEUED_BATCHES`] reads for the server, [`QUEUED_OUTGOING`] messages for the
//! writer. A client that does not read its answers is, in the end, not read either.

mod decode;
mod lines;
mod messages;
mod owed;
mod reader;
mod ready;
mod writer;

use std::collections::VecDeque;
use std::future::Future;
use std::sync::Arc;

use rmcp::model::{ClientNotification, JsonRpcMessage, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

use super::cancels::Cancels;
use lines::Splitter;
use messages::Parser;
use owed::Owed;
pub use owed::MAX_OWED;
use tokio::sync::OwnedSemaphorePermit;
use writer::{Outgoing, Writer};

/// The largest message rein reads (16 MiB, as rmcp's own limit).
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;
/// How many batches of messages (one batch per read: at most 64 KiB of input, or one message
/// up to the size limit) may wait for the server before the reader stops reading: 4 MiB of
/// ordinary input (parsed, a few times that in memory); the client then waits on a full pipe,
/// and a cancel it writes after that much is heard only as the queue moves.
pub const QUEUED_BATCHES: usize = 64;
/// How many messages may wait for the writer: the answers owed ([`MAX_OWED`]) and what rein
/// sends besides (progress, logs, the transport's own error answers), each sender waiting
/// while the queue is full.
pub const QUEUED_OUTGOING: usize = 2 * MAX_OWED;

type Incoming = RxJsonRpcMessage<RoleServer>;

/// MCP as JSON-RPC lines on any async reader and writer, as `rein serve` speaks it on stdio: a
/// line that is not JSON gets a parse error, an oversized one an error naming the limit, and
/// queued responses leave in batches. Give it to [`crate::mcp::serve`].
pub struct LineTransport {
    /// Messages as the reader parsed them, a batch per read.
    input: mpsc::Receiver<Vec<Incoming>>,
    batch: VecDeque<Incoming>,
    output: Option<mpsc::Sender<Outgoing>>,
    /// The answers owed; a request is taken only with room for its answer.
    owed: Arc<Owed>,
    /// Room taken for the request at the front of `batch` (kept if `receive` is dropped).
    room: Option<OwnedSemaphorePermit>,
    /// Awaited at close, so every queued response is written before the session ends.
    writer: Option<Writer>,
    /// Requests the client cancelled: their responses are not sent.
    cancels: Option<Arc<Cancels>>,
}

impl LineTransport {
    /// Reads `input` and writes to `output`, each on a task of its own.
    pub fn new<R, W>(input: R, output: W) -> LineTransport
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        LineTransport::with_limit(input, output, MAX_MESSAGE_BYTES)
    }

    /// Like [`LineTransport::new`], reading messages of at most `limit` bytes.
    pub fn with_limit<R, W>(input: R, output: W, limit: usize) -> LineTransport
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let owed = Owed::new();
        let (queue, outgoing) = mpsc::channel(QUEUED_OUTGOING);
        let writer = Writer::task(outgoing, output, owed.clone());
        let (messages, received) = mpsc::channel(QUEUED_BATCHES);
        let parser = Parser::new(limit);
        tokio::spawn(reader::read_async(input, Splitter::new(limit), parser, messages, queue.clone()));
        LineTransport {
            input: received,
            batch: VecDeque::new(),
            output: Some(queue),
            owed,
            room: None,
            writer: Some(writer),
            cancels: None,
        }
    }

    /// The process's stdin and stdout, each served by a thread of its own: the client's
    /// messages are read even while a call holds the server's worker, and each request the
    /// client cancels is cancelled through `cancels` as soon as the notification arrives.
    pub(crate) fn stdio(cancels: Arc<Cancels>) -> std::io::Result<LineTransport> {
        let owed = Owed::new();
        let (queue, outgoing) = mpsc::channel(QUEUED_OUTGOING);
        let writer = Writer::thread(outgoing, owed.clone())?;
        let (messages, received) = mpsc::channel(QUEUED_BATCHES);
        let parser = Parser::new(MAX_MESSAGE_BYTES);
        let splitter = Splitter::new(MAX_MESSAGE_BYTES);
        let spotter = cancels.clone();
        let answers = queue.clone();
        std::thread::Builder::new().name("rein-stdin".to_string()).spawn(move || {
            reader::read_blocking(ready::Input::stdin(), splitter, parser, &spotter, messages, answers)
        })?;
        Ok(LineTransport {
            input: received,
            batch: VecDeque::new(),
            output: Some(queue),
            owed,
            room: None,
            writer: Some(writer),
            cancels: Some(cancels),
        })
    }

    /// Whether `item` answers a request the client cancelled (and is not to be sent).
    fn answers_cancelled(&self, item: &TxJsonRpcMessage<RoleServer>) -> bool {
        let Some(cancels) = &self.cancels else { return false };
        writer::answered(item).is_some_and(|id| cancels.was_cancelled(id))
    }

    /// Takes room for the request at the front of the batch, waiting while [`MAX_OWED`]
    /// answers are owed. Cancel-safe: room taken stays in `self.room`.
    async fn room_for_front(&mut self) {
        if matches!(self.batch.front(), Some(JsonRpcMessage::Request(_))) && self.room.is_none() {
            self.room = Some(self.owed.room().await);
        }
    }

    /// The id of the request at the front of the batch, when an answer to that id is owed
    /// already.
    fn front_repeats_an_owed_id(&self) -> Option<RequestId> {
        match self.batch.front() {
            Some(JsonRpcMessage::Request(request)) if self.owed.is_owed(&request.id) => Some(request.id.clone()),
            _ => None,
        }
    }

    /// Answers the request at the front, whose id is owed an answer already, with an error
    /// instead of passing it on: rmcp would handle it and drop its answer (it keeps one
    /// request per id), so it could take no room, and a client could have any number of them
    /// handled at once. Cancel-safe: the request is taken only once the answer has its place.
    async fn refuse_repeated_front(&mut self, id: RequestId) {
        let slot = match &self.output {
            Some(output) => output.reserve().await.ok(),
            None => None,
        };
        let Some(slot) = slot else {
            // Nobody writes answers any more: the request goes unanswered, as every other.
            self.batch.pop_front();
            return;
        };
        if self.front_repeats_an_owed_id().as_ref() != Some(&id) {
            return;
        }
        self.batch.pop_front();
        tracing::warn!(%id, "refused a request whose id is still being answered");
        let message = format!(
            "Invalid Request: request {id} is still being answered; a request's id must differ from those of \
             the client's requests in flight"
        );
        let id = serde_json::to_value(&id).unwrap_or_default();
        slot.send(Outgoing::Bytes(messages::error_line(id, messages::INVALID_REQUEST, message, None)));
    }

    /// Books what `message` means for the answers owed: a request owes one (with the room
    /// taken for it), a cancel settles its request's (rmcp drops the answer of a request it
    /// saw cancelled).
    fn book(&mut self, message: &Incoming) {
        match message {
            JsonRpcMessage::Request(request) => {
                if let Some(room) = self.room.take() {
                    self.owed.owe(request.id.clone(), room);
                }
            }
            JsonRpcMessage::Notification(n) => {
                if let ClientNotification::CancelledNotification(cancel) = &n.notification {
                    if let Some(id) = &cancel.params.request_id {
                        self.owed.settle(id);
                    }
                }
            }
            _ => {}
        }
    }
}

impl Transport<RoleServer> for LineTransport {
    type Error = std::io::Error;

    /// Queues `item` for the writer, which serializes it off the worker.
    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let cancelled = self.answers_cancelled(&item);
        if cancelled {
            tracing::debug!("not answering a request the client cancelled");
            if let Some(id) = writer::answered(&item) {
                self.owed.settle(id);
            }
        }
        let output = self.output.clone();
        async move {
            if cancelled {
                return Ok(());
            }
            match output {
                // rmcp sends each message from a task of its own: a full queue holds the task.
                Some(output) => output
                    .send(Outgoing::Message(Box::new(item)))
                    .await
                    .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the client is gone")),
                None => Err(std::io::Error::new(std::io::ErrorKind::NotConnected, "the transport is closed")),
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if !self.batch.is_empty() {
                if let Some(id) = self.front_repeats_an_owed_id() {
                    self.refuse_repeated_front(id).await;
                    continue;
                }
                self.room_for_front().await;
                let message = self.batch.pop_front()?;
                self.book(&message);
                return Some(message);
            }
            self.batch = self.input.recv().await?.into();
        }
    }

    /// Ends the output once everything queued is written (a client that closes its end of stdin
    /// first still gets every response).
    async fn close(&mut self) -> Result<(), Self::Error> {
        if let Some(output) = self.output.take() {
            let _ = output.send(Outgoing::End).await;
        }
        if let Some(writer) = self.writer.take() {
            writer.finished().await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

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
        input.extend_from_slice(b"[{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}]\n");
        input.extend_from_slice(ping);
        input.push(b'\n');
        let (methods, replies) = exchange(input, 200).await;
        assert_eq!(methods, ["ping"], "the good line after the bad ones is read");
        assert_eq!(replies.len(), 4, "{replies:?}");
        assert_eq!(
            (replies[0]["id"].clone(), replies[0]["error"]["code"].clone()),
            (Value::Null, json!(messages::PARSE_ERROR))
        );
        assert_eq!(
            (replies[1]["id"].clone(), replies[1]["error"]["code"].clone()),
            (json!(2), json!(messages::INVALID_REQUEST))
        );
        let message = replies[1]["error"]["message"].as_str().unwrap();
        assert!(message.contains("200 bytes"), "the limit is named: {message}");
        assert_eq!(replies[2]["id"], json!(3));
        // A batch (which MCP no longer has) is answered, not left waiting for ever.
        assert_eq!(
            (replies[3]["id"].clone(), replies[3]["error"]["code"].clone()),
            (Value::Null, json!(messages::INVALID_REQUEST))
        );
        assert!(replies[3]["error"]["message"].as_str().unwrap().contains("batch"), "{replies:?}");
    }

    #[tokio::test]
    async fn responses_queued_before_close_are_all_written() {
        let (client, server_out) = tokio::io::duplex(64);
        let mut transport = LineTransport::with_limit(std::io::Cursor::new(Vec::new()), server_out, 1024);
        let reading = tokio::spawn(async move {
            let mut replies = String::new();
            tokio::io::AsyncReadExt::read_to_string(&mut { client }, &mut replies).await.unwrap();
            replies
        });
        for id in 0..50 {
            let response = rmcp::model::ServerJsonRpcMessage::response(
                rmcp::model::ServerResult::empty(()),
                rmcp::model::RequestId::Number(id),
            );
            transport.send(response).await.unwrap();
        }
        transport.close().await.unwrap();
        drop(transport);
        let replies = reading.await.unwrap();
        assert_eq!(replies.lines().count(), 50, "a small pipe still gets every response: {replies}");
    }

    /// Back-pressure: with [`MAX_OWED`] answers unwritten (the client reads nothing), no
    /// request more is taken; once the client reads, every answer is written.
    #[tokio::test]
    async fn no_request_is_taken_while_the_answers_owed_wait_unread() {
        let requests = 3 * MAX_OWED;
        let mut input = String::new();
        for id in 0..requests {
            input.push_str(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n"));
        }
        let (client, server_out) = tokio::io::duplex(64);
        let mut transport = LineTransport::with_limit(std::io::Cursor::new(input.into_bytes()), server_out, 1024);
        let answer = |id: usize| {
            rmcp::model::ServerJsonRpcMessage::response(
                rmcp::model::ServerResult::empty(()),
                rmcp::model::RequestId::Number(id as i64),
            )
        };
        for id in 0..MAX_OWED {
            let request = transport.receive().await.expect("a request while there is room");
            assert_eq!(serde_json::to_value(&request).unwrap()["id"], json!(id));
            tokio::spawn(transport.send(answer(id)));
        }
        // A bounded wait that can only fail the test: with room, the next request is there at once.
        let waited = tokio::time::timeout(std::time::Duration::from_millis(300), transport.receive()).await;
        assert!(waited.is_err(), "a request was taken while {MAX_OWED} answers waited unread");
        let reading = tokio::spawn(async move {
            let mut replies = String::new();
            tokio::io::AsyncReadExt::read_to_string(&mut { client }, &mut replies).await.unwrap();
            replies
        });
        for id in MAX_OWED..requests {
            let request = transport.receive().await.expect("requests are taken again once the client reads");
            assert_eq!(serde_json::to_value(&request).unwrap()["id"], json!(id));
            transport.send(answer(id)).await.unwrap();
        }
        assert!(transport.receive().await.is_none());
        transport.close().await.unwrap();
        drop(transport);
        let replies = reading.await.unwrap();
        let ids: std::collections::BTreeSet<u64> =
            replies.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()["id"].as_u64().unwrap()).collect();
        assert_eq!(ids.len(), requests, "every answer is written: {replies}");
    }

    /// A request repeating the id of one still being answered is refused with an error (rmcp
    /// would drop its answer): it can take no room, so it must not be handled.
    #[tokio::test]
    async fn a_request_repeating_an_owed_id_is_refused() {
        let input = [1, 1, 2].map(|id| format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n")).concat();
        let (client, server_out) = tokio::io::duplex(1 << 16);
        let mut transport = LineTransport::with_limit(std::io::Cursor::new(input.into_bytes()), server_out, 1024);
        let mut ids = Vec::new();
        while let Some(request) = transport.receive().await {
            ids.push(serde_json::to_value(&request).unwrap()["id"].clone());
        }
        assert_eq!(ids, [json!(1), json!(2)], "the repeat is not passed on");
        for id in [1, 2] {
            let answer = rmcp::model::ServerJsonRpcMessage::response(
                rmcp::model::ServerResult::empty(()),
                rmcp::model::RequestId::Number(id),
            );
            transport.send(answer).await.unwrap();
        }
        transport.close().await.unwrap();
        drop(transport);
        let mut replies = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut { client }, &mut replies).await.unwrap();
        let replies: Vec<Value> = replies.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(replies.len(), 3, "{replies:?}");
        let refused = replies.iter().find(|r| r.get("error").is_some()).expect("an error answer");
        assert_eq!(
            (refused["id"].clone(), refused["error"]["code"].clone()),
            (json!(1), json!(messages::INVALID_REQUEST))
        );
        assert!(refused["error"]["message"].as_str().unwrap().contains("still being answered"), "{refused}");
    }
}
