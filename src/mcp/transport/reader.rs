//! Reading what the client writes: each read split into lines (`lines`), each line parsed
//! into a message (`messages`), batches of them passed to the server. `rein serve` reads on a
//! thread of its own, which also spots cancel notifications as they arrive.

use rmcp::model::{ClientNotification, JsonRpcMessage, RequestId};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::mpsc;

use super::lines::{split, Splitter};
use super::messages::Parser;
use super::writer::Outgoing;
use super::Incoming;
use crate::mcp::cancels::Cancels;

/// How much one read takes from the client.
const READ_CHUNK: usize = 64 * 1024;

/// Reads an async source on a task ([`super::LineTransport::with_limit`]).
pub(super) async fn read_async<R: AsyncRead + Unpin>(
    mut input: R,
    mut splitter: Splitter,
    parser: Parser,
    messages: mpsc::Sender<Vec<Incoming>>,
    answers: mpsc::Sender<Outgoing>,
) {
    let mut buffer = vec![0; READ_CHUNK];
    loop {
        let read = input.read(&mut buffer).await;
        let Some((lines, done)) = split(read, &buffer, &mut splitter) else { continue };
        let parsed = parser.parse_all(lines);
        for answer in parsed.answers {
            // The writer's queue is bounded: a client that reads none of these answers stops
            // being read here.
            if answers.send(Outgoing::Bytes(answer)).await.is_err() {
                return;
            }
        }
        if !parsed.messages.is_empty() && messages.send(parsed.messages).await.is_err() {
            return;
        }
        if done {
            return;
        }
    }
}

/// Reads with blocking reads on a thread of its own ([`super::LineTransport::stdio`]). A
/// cancel notification cancels its request here, before the server's worker sees the line.
/// The cancel is read from the message as rmcp parsed it (not from the line's bytes), so the
/// two never disagree on what a line cancels, however it is spelled.
pub(super) fn read_blocking(
    mut input: impl std::io::Read,
    mut splitter: Splitter,
    parser: Parser,
    cancels: &Cancels,
    messages: mpsc::Sender<Vec<Incoming>>,
    answers: mpsc::Sender<Outgoing>,
) {
    let mut buffer = vec![0; READ_CHUNK];
    loop {
        let read = input.read(&mut buffer);
        let Some((lines, done)) = split(read, &buffer, &mut splitter) else { continue };
        let parsed = parser.parse_all(lines);
        for message in &parsed.messages {
            if let Some(id) = cancelled_request(message) {
                tracing::info!(%id, "the client cancelled request {id}");
                cancels.cancel(id);
            }
        }
        for answer in parsed.answers {
            if answers.blocking_send(Outgoing::Bytes(answer)).is_err() {
                return;
            }
        }
        if !parsed.messages.is_empty() && messages.blocking_send(parsed.messages).is_err() {
            return;
        }
        if done {
            return;
        }
    }
}

/// The request a `notifications/cancelled` message names (None for any other message).
fn cancelled_request(message: &Incoming) -> Option<&RequestId> {
    match message {
        JsonRpcMessage::Notification(n) => match &n.notification {
            ClientNotification::CancelledNotification(cancel) => cancel.params.request_id.as_ref(),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::transport::lines::Splitter;
    use crate::mcp::transport::messages::Parser;

    /// The reader cancels exactly the requests rmcp reads a cancel notification for: however a
    /// line spells the method (escaped `/`), leaves out `jsonrpc`, or dresses a request as a
    /// cancel, the two never disagree on which response is not sent.
    #[test]
    fn the_reader_cancels_what_rmcp_reads_as_a_cancel_and_nothing_else() {
        let lines: [(&str, i64); 6] = [
            (r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#, 1),
            (r#"{"jsonrpc":"2.0","method":"notifications\/cancelled","params":{"requestId":2}}"#, 2),
            (r#"{"jsonrpc":"2.0","method":"notifications\u002fcancelled","params":{"requestId":3}}"#, 3),
            (r#"{"method":"notifications/cancelled","params":{"requestId":4}}"#, 4),
            (r#"{"jsonrpc":"1.0","method":"notifications/cancelled","params":{"requestId":5}}"#, 5),
            (r#"{"jsonrpc":"2.0","id":9,"method":"notifications/cancelled","params":{"requestId":6}}"#, 6),
        ];
        let mut input = Vec::new();
        for (line, _) in &lines {
            input.extend_from_slice(line.as_bytes());
            input.push(b'\n');
        }
        let cancels = Cancels::default();
        let (answers, _unanswered) = mpsc::channel(16);
        let (messages, mut received) = mpsc::channel(16);
        let limit = super::super::MAX_MESSAGE_BYTES;
        read_blocking(&input[..], Splitter::new(limit), Parser::new(limit), &cancels, messages, answers);
        while received.try_recv().is_ok() {}
        for (line, id) in lines {
            let id = RequestId::Number(id);
            let by_rmcp = match serde_json::from_str::<Incoming>(line) {
                Ok(JsonRpcMessage::Notification(n)) => match n.notification {
                    ClientNotification::CancelledNotification(c) => c.params.request_id,
                    _ => None,
                },
                _ => None,
            };
            assert_eq!(cancels.was_cancelled(&id), by_rmcp.as_ref() == Some(&id), "{line}");
        }
        assert!(cancels.was_cancelled(&RequestId::Number(2)), "an escaped / is still the cancel method");
    }

    #[test]
    fn only_a_cancel_notification_names_a_request() {
        let parse = |line: &[u8]| serde_json::from_slice::<Incoming>(line).unwrap();
        let cancel = parse(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"r-7"}}"#);
        assert_eq!(cancelled_request(&cancel), Some(&RequestId::String("r-7".into())));
        let numeric =
            parse(br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":12,"reason":"x"}}"#);
        assert_eq!(cancelled_request(&numeric), Some(&RequestId::Number(12)));
        let call = parse(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"notifications/cancelled","arguments":{}}}"#,
        );
        assert_eq!(cancelled_request(&call), None);
    }
}
