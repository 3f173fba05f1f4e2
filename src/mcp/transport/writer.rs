//! Writing to the client: messages are serialized by the writer (off the server's worker) and
//! whatever has queued up leaves in one `write`. An answer is settled ([`Owed`]) once its
//! write returned: until the client reads, it is still owed.

use std::sync::Arc;

use rmcp::model::{JsonRpcMessage, RequestId};
use rmcp::service::TxJsonRpcMessage;
use rmcp::RoleServer;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

use super::owed::Owed;
use super::ready::Output;

/// How much the writer gathers into one write.
const WRITE_BATCH: usize = 256 * 1024;

pub(super) enum Outgoing {
    /// A message rmcp sends.
    Message(Box<TxJsonRpcMessage<RoleServer>>),
    /// A line the transport wrote itself (an error answer).
    Bytes(Vec<u8>),
    /// The transport closed: write what came before, then stop (the reader may still hold a
    /// sender, blocked on a client that keeps stdin open).
    End,
}

/// A running writer; it ends at [`Outgoing::End`] (or once every sender is gone) with all that
/// was queued before it written.
pub(super) struct Writer {
    done: oneshot::Receiver<()>,
}

impl Writer {
    /// Writes to an async sink, on a task.
    pub(super) fn task<W: AsyncWrite + Unpin + Send + 'static>(
        mut queued: mpsc::Receiver<Outgoing>,
        mut output: W,
        owed: Arc<Owed>,
    ) -> Writer {
        let (finished, done) = oneshot::channel();
        tokio::spawn(async move {
            let mut batch = Batch::default();
            while let Some(first) = queued.recv().await {
                let end = batch.gather(first, &mut queued);
                if let Err(e) = output.write_all(&batch.bytes).await.and(output.flush().await) {
                    tracing::debug!("cannot write to the client: {e}");
                    break;
                }
                batch.written(&owed);
                if end {
                    break;
                }
            }
            let _ = finished.send(());
        });
        Writer { done }
    }

    /// Writes to the process's stdout with blocking writes, on a thread of its own.
    pub(super) fn thread(mut queued: mpsc::Receiver<Outgoing>, owed: Arc<Owed>) -> std::io::Result<Writer> {
        let (finished, done) = oneshot::channel();
        let mut stdout = Output::stdout()?;
        std::thread::Builder::new().name("rein-stdout".to_string()).spawn(move || {
            let mut batch = Batch::default();
            while let Some(first) = queued.blocking_recv() {
                let end = batch.gather(first, &mut queued);
                if let Err(e) = stdout.write_all(&batch.bytes) {
                    tracing::debug!("cannot write to the client: {e}");
                    break;
                }
                batch.written(&owed);
                if end {
                    break;
                }
            }
            let _ = finished.send(());
        })?;
        Ok(Writer { done })
    }

    /// Waits until everything queued is written (or the writer could not go on).
    pub(super) async fn finished(self) {
        let _ = self.done.await;
    }
}

/// What one write takes: lines, and the requests they answer.
struct Batch {
    bytes: Vec<u8>,
    answers: Vec<RequestId>,
}

impl Default for Batch {
    fn default() -> Batch {
        Batch { bytes: Vec::with_capacity(WRITE_BATCH), answers: Vec::new() }
    }
}

impl Batch {
    /// `first` and whatever else is queued already, up to [`WRITE_BATCH`], as lines. True when
    /// the end was reached.
    fn gather(&mut self, first: Outgoing, queued: &mut mpsc::Receiver<Outgoing>) -> bool {
        if self.append(first) {
            return true;
        }
        while self.bytes.len() < WRITE_BATCH {
            match queued.try_recv() {
                Ok(more) => {
                    if self.append(more) {
                        return true;
                    }
                }
                Err(_) => break,
            }
        }
        false
    }

    /// Adds `item`; true when it is the end.
    fn append(&mut self, item: Outgoing) -> bool {
        match item {
            Outgoing::End => return true,
            Outgoing::Bytes(bytes) => self.bytes.extend_from_slice(&bytes),
            Outgoing::Message(message) => {
                if let Some(id) = answered(&message) {
                    self.answers.push(id.clone());
                }
                if let Err(e) = crate::mcp::json_text::append_line(&mut self.bytes, &message) {
                    tracing::error!("cannot serialize a message for the client: {e}");
                }
            }
        }
        false
    }

    /// The batch reached the client's pipe: its answers are no longer owed, and the batch is
    /// emptied for the next write, letting go of the room one large message took (a batch is
    /// kept for the whole session).
    fn written(&mut self, owed: &Owed) {
        for id in self.answers.drain(..) {
            owed.settle(&id);
        }
        self.bytes.clear();
        if self.bytes.capacity() > 4 * WRITE_BATCH {
            self.bytes = Vec::with_capacity(WRITE_BATCH);
        }
    }
}

/// The request `message` answers, if it is an answer.
pub(super) fn answered(message: &TxJsonRpcMessage<RoleServer>) -> Option<&RequestId> {
    match message {
        JsonRpcMessage::Response(response) => Some(&response.id),
        JsonRpcMessage::Error(error) => error.id.as_ref(),
        _ => None,
    }
}
