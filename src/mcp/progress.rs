//! Progress as MCP progress notifications, built on the request's events: a tool call's
//! programs, or a recipe's steps (one when each starts and one when it ends, and the programs
//! it runs in between), sent in order by a forwarding task (listeners are called
//! synchronously).

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::RequestContext;
use rmcp::RoleServer;
use tokio::sync::mpsc;

use std::sync::{Arc, Mutex};

use crate::kernel::{Event, EventKind, Listener};
use crate::recipe::progress::{program_line, step_line};

pub struct PeerProgress {
    /// Where progress stands (it must only grow).
    count: Mutex<Count>,
    sender: Option<(ProgressToken, mpsc::UnboundedSender<ProgressNotificationParam>)>,
    forwarder: Option<tokio::task::JoinHandle<()>>,
}

#[derive(Default)]
struct Count {
    last: f64,
    /// Where the running step ends (2n of 2m); a recipe's programs count up towards it.
    ceiling: f64,
    total: Option<f64>,
}

impl PeerProgress {
    /// Forwards to the client when its request carries a progressToken; otherwise only logs.
    pub fn start(context: &RequestContext<RoleServer>) -> PeerProgress {
        let Some(token) = context.meta.get_progress_token() else {
            return PeerProgress { count: Default::default(), sender: None, forwarder: None };
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
        PeerProgress { count: Default::default(), sender: Some((token, tx)), forwarder: Some(forwarder) }
    }

    /// Waits until every notification is sent, so they all precede the call's result.
    pub async fn finish(mut self) {
        self.sender = None;
        if let Some(forwarder) = self.forwarder.take() {
            let _ = forwarder.await;
        }
    }

    /// A listener for the request's call. Only this request's call carries it, so no other
    /// request's events reach this client's progress.
    pub fn listener(self: &Arc<Self>, shows: Shows) -> Listener {
        let progress = self.clone();
        Arc::new(move |event: &Event| progress.hear(shows, event))
    }

    fn hear(&self, shows: Shows, event: &Event) {
        let mut count = self.count.lock().unwrap_or_else(|e| e.into_inner());
        let (at, message) = match (shows, &event.kind) {
            (Shows::Steps, EventKind::StepStarted { number, total, .. }) => {
                count.total = Some(2.0 * *total as f64);
                count.ceiling = 2.0 * *number as f64;
                (count.ceiling - 1.0, step_line(event))
            }
            (Shows::Steps, EventKind::StepEnded { number, .. }) => (2.0 * *number as f64, step_line(event)),
            // Halfway from where progress stands to the step's end: always more, never the end.
            (Shows::Steps, _) => (count.last + (count.ceiling - count.last) / 2.0, program_line(event)),
            (Shows::Programs, _) => (count.last + 1.0, program_line(event)),
        };
        let Some(message) = message else { return };
        tracing::info!("{message}");
        if at <= count.last {
            return; // a step that ran so many programs that halving no longer adds anything
        }
        count.last = at;
        if let Some((token, tx)) = &self.sender {
            let mut params = ProgressNotificationParam::new(token.clone(), at)
                .with_message(crate::visible::line(&message).into_owned());
            if let Some(total) = count.total {
                params = params.with_total(total);
            }
            let _ = tx.send(params);
        }
    }
}

/// What a request's progress notifications count.
#[derive(Debug, Clone, Copy)]
pub enum Shows {
    /// Each program a tool call starts or ends, without a total.
    Programs,
    /// A recipe's steps: step n of m is 2n-1 of 2m when it starts and 2n when it ends; the
    /// programs it runs in between count up towards 2n.
    Steps,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::events::StepStatus;

    fn event(kind: EventKind) -> Event {
        Event { call: None, actor: None, kind }
    }

    fn step(started: bool, number: usize) -> Event {
        let (recipe, step, total) = ("r".to_string(), format!("s{number}"), 2);
        event(if started {
            EventKind::StepStarted { recipe, step, number, total }
        } else {
            EventKind::StepEnded { recipe, step, number, total, status: StepStatus::Verified, duration_ms: 1 }
        })
    }

    #[test]
    fn a_recipe_s_programs_count_up_within_their_step_and_progress_only_grows() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let progress = PeerProgress {
            count: Default::default(),
            sender: Some((ProgressToken(rmcp::model::NumberOrString::Number(1)), tx)),
            forwarder: None,
        };
        let spawned = event(EventKind::ProgramSpawned { program: "hdc".into(), argv: vec![], command: "hdc".into() });
        let exited = event(EventKind::ProgramExited {
            program: "hdc".into(),
            code: Some(0),
            signal: None,
            timed_out: false,
            stopped: None,
            duration_ms: 1,
        });
        let written = event(EventKind::FileWritten { path: "a".into(), bytes: 1 });
        for e in [step(true, 1), spawned, written, exited, step(false, 1), step(true, 2), step(false, 2)] {
            progress.hear(Shows::Steps, &e);
        }
        let mut sent = Vec::new();
        while let Ok(params) = rx.try_recv() {
            assert_eq!(params.total, Some(4.0));
            sent.push((params.progress, params.message.unwrap_or_default()));
        }
        let values: Vec<f64> = sent.iter().map(|(p, _)| *p).collect();
        assert_eq!(values, [1.0, 1.5, 1.75, 2.0, 3.0, 4.0], "{sent:?}");
        assert_eq!(sent[1].1, "running hdc");
        assert_eq!(sent[2].1, "hdc ended: exit 0 in 0.0 s");
    }
}
