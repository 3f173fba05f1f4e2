//! Recipe progress as MCP progress notifications: one when each step starts and one when it
//! ends, sent in order by a forwarding task (the engine's `Progress` calls are synchronous).

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use tokio::sync::mpsc;

use crate::recipe::progress::Progress;
use crate::recipe::report::StepStatus;

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

/// Step n of m counts as 2n-1 of 2m when it starts and 2n when it ends.
impl Progress for PeerProgress {
    fn step_started(&self, number: usize, total: usize, name: &str) {
        self.send(2 * number - 1, 2 * total, format!("[{number}/{total}] {name} started"));
    }

    fn step_finished(&self, number: usize, total: usize, name: &str, status: StepStatus, duration_ms: u64) {
        let secs = duration_ms as f64 / 1000.0;
        self.send(2 * number, 2 * total, format!("[{number}/{total}] {name} {status} in {secs:.1} s"));
    }
}
