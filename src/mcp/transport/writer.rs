//! Writing to the client: messages are serialized by the writer (off the server's worker) and
//! whatever has queued up leaves in one `write`.

use rmcp::service::TxJsonRpcMessage;
use rmcp::RoleServer;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

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
        mut queued: mpsc::UnboundedReceiver<Outgoing>,
        mut output: W,
    ) -> Writer {
        let (finished, done) = oneshot::channel();
        tokio::spawn(async move {
            let mut batch = Vec::with_capacity(WRITE_BATCH);
            while let Some(first) = queued.recv().await {
                let end = gather(&mut batch, first, &mut queued);
                if let Err(e) = output.write_all(&batch).await.and(output.flush().await) {
                    tracing::debug!("cannot write to the client: {e}");
                    break;
                }
                keep_small(&mut batch);
                if end {
                    break;
                }
            }
            let _ = finished.send(());
        });
        Writer { done }
    }

    /// Writes to the process's stdout with blocking writes, on a thread of its own.
    pub(super) fn thread(mut queued: mpsc::UnboundedReceiver<Outgoing>) -> std::io::Result<Writer> {
        let (finished, done) = oneshot::channel();
        let mut stdout = Output::stdout()?;
        std::thread::Builder::new().name("rein-stdout".to_string()).spawn(move || {
            let mut batch = Vec::with_capacity(WRITE_BATCH);
            while let Some(first) = queued.blocking_recv() {
                let end = gather(&mut batch, first, &mut queued);
                if let Err(e) = stdout.write_all(&batch) {
                    tracing::debug!("cannot write to the client: {e}");
                    break;
                }
                keep_small(&mut batch);
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

/// Empties `batch` for the next write, letting go of the room one large message took (a
/// batch is kept for the whole session).
fn keep_small(batch: &mut Vec<u8>) {
    batch.clear();
    if batch.capacity() > 4 * WRITE_BATCH {
        *batch = Vec::with_capacity(WRITE_BATCH);
    }
}

/// `first` and whatever else is queued already, up to [`WRITE_BATCH`], as lines in `batch`.
/// True when the end was reached.
fn gather(batch: &mut Vec<u8>, first: Outgoing, queued: &mut mpsc::UnboundedReceiver<Outgoing>) -> bool {
    if append(batch, first) {
        return true;
    }
    while batch.len() < WRITE_BATCH {
        match queued.try_recv() {
            Ok(more) => {
                if append(batch, more) {
                    return true;
                }
            }
            Err(_) => break,
        }
    }
    false
}

/// Adds `item` to `batch`; true when it is the end.
fn append(batch: &mut Vec<u8>, item: Outgoing) -> bool {
    match item {
        Outgoing::End => return true,
        Outgoing::Bytes(bytes) => batch.extend_from_slice(&bytes),
        Outgoing::Message(message) => {
            if let Err(e) = crate::mcp::json_text::append_line(batch, &message) {
                tracing::error!("cannot serialize a message for the client: {e}");
            }
        }
    }
    false
}
