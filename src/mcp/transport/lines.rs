//! Reading what the client writes: split into lines (never holding more than the limit of one),
//! each parsed into a message, batches of them passed to the server. `rein serve` reads on a
//! thread of its own, which also spots cancel notifications as they arrive.

use rmcp::model::RequestId;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::mpsc;

use super::messages::{trim_line, Parser};
use super::Incoming;
use crate::mcp::cancels::Cancels;

/// How much one read takes from the client.
const READ_CHUNK: usize = 64 * 1024;
/// How much of an oversized line is kept (to find its id).
pub(super) const SNIFFED: usize = 256;

/// One line from the client.
pub(super) enum Line {
    Whole(Vec<u8>),
    /// Over the limit: its first bytes (for its id); the rest was skipped.
    Oversized(Vec<u8>),
}

pub(super) struct Splitter {
    line: Vec<u8>,
    /// Dropping the rest of an oversized line, up to its newline.
    discarding: bool,
    limit: usize,
}

impl Splitter {
    pub(super) fn new(limit: usize) -> Splitter {
        Splitter { line: Vec::new(), discarding: false, limit }
    }

    /// Adds `chunk`; every line it completes goes to `out`.
    fn feed(&mut self, mut chunk: &[u8], out: &mut Vec<Line>) {
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
                out.push(Line::Oversized(head));
                self.discarding = newline.is_none();
                continue;
            }
            if newline.is_none() {
                self.line.extend_from_slice(piece);
            } else if self.line.is_empty() {
                out.push(Line::Whole(piece.to_vec()));
            } else {
                self.line.extend_from_slice(piece);
                out.push(Line::Whole(std::mem::take(&mut self.line)));
            }
        }
    }

    /// At the end of input: a last line without its newline.
    fn finish(&mut self, out: &mut Vec<Line>) {
        if !self.discarding && !self.line.is_empty() {
            out.push(Line::Whole(std::mem::take(&mut self.line)));
        }
    }
}

/// What one read gave: the lines it completed, and whether input ended.
fn split(read: std::io::Result<usize>, buffer: &[u8], splitter: &mut Splitter) -> Option<(Vec<Line>, bool)> {
    let mut lines = Vec::new();
    let done = match read {
        Ok(0) => {
            splitter.finish(&mut lines);
            true
        }
        Ok(n) => {
            splitter.feed(&buffer[..n], &mut lines);
            false
        }
        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => return None,
        Err(e) => {
            tracing::error!("cannot read from the client: {e}");
            true
        }
    };
    Some((lines, done))
}

/// Reads an async source on a task ([`super::LineTransport::with_limit`]).
pub(super) async fn read_async<R: AsyncRead + Unpin>(
    mut input: R,
    mut splitter: Splitter,
    parser: Parser,
    messages: mpsc::Sender<Vec<Incoming>>,
) {
    let mut buffer = vec![0; READ_CHUNK];
    loop {
        let read = input.read(&mut buffer).await;
        let Some((lines, done)) = split(read, &buffer, &mut splitter) else { continue };
        let batch = parser.parse_all(lines);
        if !batch.is_empty() && messages.send(batch).await.is_err() {
            return;
        }
        if done {
            return;
        }
    }
}

/// Reads with blocking reads on a thread of its own ([`super::LineTransport::stdio`]). A
/// cancel notification cancels its request here, before the server's worker sees the line.
pub(super) fn read_blocking(
    mut input: impl std::io::Read,
    mut splitter: Splitter,
    parser: Parser,
    cancels: &Cancels,
    messages: mpsc::Sender<Vec<Incoming>>,
) {
    let spot = memchr::memmem::Finder::new(b"notifications/cancelled");
    let mut buffer = vec![0; READ_CHUNK];
    loop {
        let read = input.read(&mut buffer);
        let Some((lines, done)) = split(read, &buffer, &mut splitter) else { continue };
        for line in &lines {
            if let Line::Whole(line) = line {
                if spot.find(line).is_some() {
                    if let Some(id) = cancelled_request(line) {
                        tracing::info!(%id, "the client cancelled request {id}");
                        cancels.cancel(&id);
                    }
                }
            }
        }
        let batch = parser.parse_all(lines);
        if !batch.is_empty() && messages.blocking_send(batch).is_err() {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|l| match l {
                Line::Whole(bytes) => String::from_utf8_lossy(bytes).into_owned(),
                Line::Oversized(head) => format!("OVERSIZED {}", String::from_utf8_lossy(head)),
            })
            .collect()
    }

    #[test]
    fn lines_split_across_reads_are_joined_and_oversized_ones_skipped() {
        let mut splitter = Splitter::new(10);
        let mut out = Vec::new();
        splitter.feed(b"ab", &mut out);
        splitter.feed(b"c\nd", &mut out);
        splitter.feed(b"0123456789abc", &mut out);
        splitter.feed(b"def\nok\nlast", &mut out);
        splitter.finish(&mut out);
        assert_eq!(whole(&out), ["abc\n", "OVERSIZED d0123456789abc", "ok\n", "last"]);
    }

    #[test]
    fn only_a_cancel_notification_names_a_request() {
        let cancel = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r-7"}}"#;
        assert_eq!(cancelled_request(cancel), Some(RequestId::String("r-7".into())));
        let numeric = b"{\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":12,\"reason\":\"x\"}}\r\n";
        assert_eq!(cancelled_request(numeric), Some(RequestId::Number(12)));
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"notifications/cancelled"}}"#;
        assert_eq!(cancelled_request(call), None);
    }
}
