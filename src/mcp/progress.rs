//! Progress as MCP progress notifications, built on the request's events: a tool call's
//! programs, or a recipe's steps (one when each starts and one when it ends), sent in order
//! by a forwarding task (listeners are called synchronously).

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use tokio::sync::mpsc;

use std::sync::Arc;

use crate::kernel::{Event, EventKind, Listener};
use crate::recipe::progress::{program_line, step_line};

pub struct PeerProgress {
    /// Notifications sent so far by `note` (progress must only grow).
    notes: std::sync::atomic::AtomicUsize,
    sender: Option<(ProgressToken, mpsc::UnboundedSender<ProgressNotificationParam>)>,
    forwarder: Option<tokio::task::JoinHandle<()>>,
}

impl PeerProgress {
    /// Forwards to the client when its request carries a progressToken; otherwise only logs.
    pub fn start(context: &RequestContext<RoleServer>) -> PeerProgress {
        let Some(token) = context.meta.get_progress_token() else {
            return PeerProgress { notes: Default::default(), sender: None, forwarder: None };
        };
        let (tx, mut rx) = mpsc::unbounded_channel::<ProgressNotificationParam>();
        let peer = context.peer.clone();
        let forwarder = tokio::spawn(async move {
            while let Some(params) = rx.recv().await {
                if let Err(e) = peer.notify_progress(params).await {
                    tracing::debug!("progress notification not sent: {e}");
                }
            }
        });
        PeerProgress { notes: Default::default(), sender: Some((token, tx)), forwarder: Some(forwarder) }
    }

    /// Waits until every notification is sent, so they all precede the call's result.
    pub async fn finish(mut self) {
        self.sender = None;
        if let Some(forwarder) = self.forwarder.take() {
            let _ = forwarder.await;
        }
    }

    /// Progress without a known total: each program a tool call starts or ends.
    pub fn note(&self, message: &str) {
        let n = self.notes.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        tracing::info!("{message}");
        if let Some((token, tx)) = &self.sender {
            let _ = tx.send(ProgressNotificationParam::new(token.clone(), n as f64).with_message(message.to_string()));
        }
    }

    fn send(&self, progress: usize, total: usize, message: String) {
        tracing::info!("{message}");
        if let Some((token, tx)) = &self.sender {
            let params = ProgressNotificationParam::new(token.clone(), progress as f64)
                .with_total(total as f64)
                .with_message(message);
            let _ = tx.send(params);
        }
    }
}

impl PeerProgress {
    /// A listener for the request's call: a tool call's programs as notes, a recipe's steps
    /// with their number. Only this request's call carries it, so no other request's events
    /// reach this client's progress.
    pub fn listener(self: &Arc<Self>, shows: Shows) -> Listener {
        let progress = self.clone();
        Arc::new(move |event: &Event| match (shows, &event.kind) {
            (Shows::Programs, _) => {
                if let Some(line) = program_line(event) {
                    progress.note(&line);
                }
            }
            (Shows::Steps, EventKind::StepStarted { number, total, .. }) => {
                progress.send(2 * number - 1, 2 * total, step_line(event).unwrap_or_default())
            }
            (Shows::Steps, EventKind::StepEnded { number, total, .. }) => {
                progress.send(2 * number, 2 * total, step_line(event).unwrap_or_default())
            }
            (Shows::Steps, _) => {}
        })
    }
}

/// What a request's progress notifications count.
#[derive(Debug, Clone, Copy)]
pub enum Shows {
    /// Each program a tool call starts or ends, without a total.
    Programs,
    /// Step n of m counts as 2n-1 of 2m when it starts and 2n when it ends (progress must
    /// only grow, so a recipe's programs are not counted).
    Steps,
}
