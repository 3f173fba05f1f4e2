//! Recipe progress on stderr, from the run's events: on a terminal a live line per step with
//! its elapsed time (indicatif), replaced by the step's outcome when it ends; elsewhere plain
//! lines. While rein asks the person something the live line is taken off the screen, so its
//! redraws never overwrite the question; it comes back, with the step's full time, once the
//! question is answered.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use rein::{Event, EventKind, Listener};

use super::render::style::status;
use super::screen::tell;

/// The step on the live line.
struct Live {
    /// `[2/5] install`.
    message: String,
    started: Instant,
    /// None while a question is on the screen.
    bar: Option<ProgressBar>,
    /// Questions asked and not answered yet (steps may run programs at once).
    asking: usize,
}

/// A listener for `rein recipe`: the steps of the run as they start and end.
pub fn terminal_progress() -> Listener {
    let live = std::io::stderr().is_terminal();
    let current: Mutex<Option<Live>> = Mutex::new(None);
    Arc::new(move |event: &Event| {
        let mut current = current.lock().unwrap_or_else(|e| e.into_inner());
        match &event.kind {
            EventKind::StepStarted { step, number, total, .. } => {
                if !live {
                    tell!("{}", event.step_line().unwrap_or_default());
                    return;
                }
                let message = rein::visible::line(&format!("[{number}/{total}] {step}")).into_owned();
                let started = Instant::now();
                *current = Some(Live { bar: Some(spinner(&message, started)), message, started, asking: 0 });
            }
            EventKind::StepEnded { step, number, total, status: outcome, duration_ms, .. } => {
                if let Some(bar) = current.take().and_then(|live| live.bar) {
                    bar.finish_and_clear();
                }
                let secs = *duration_ms as f64 / 1000.0;
                // The step's name is the recipe's text: kept on this line, so it draws none of its own.
                let step = rein::visible::line(step);
                tell!("[{number}/{total}] {step} {} in {secs:.1} s", status(&outcome.to_string()));
            }
            EventKind::ApprovalAsked { .. } => {
                if let Some(live) = current.as_mut() {
                    live.asking += 1;
                    // Cleared before the question is written: the approver runs after this
                    // listener returns, on the same thread.
                    if let Some(bar) = live.bar.take() {
                        bar.finish_and_clear();
                    }
                }
            }
            EventKind::ApprovalAnswered { .. } => {
                if let Some(live) = current.as_mut().filter(|live| live.asking > 0) {
                    live.asking -= 1;
                    if live.asking == 0 && live.bar.is_none() {
                        live.bar = Some(spinner(&live.message, live.started));
                    }
                }
            }
            _ => {}
        }
    })
}

/// A live line `⠋ [2/5] install … 3s`, counting from `started`.
fn spinner(message: &str, started: Instant) -> ProgressBar {
    let bar = ProgressBar::new_spinner().with_message(message.to_string()).with_elapsed(started.elapsed());
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} … {elapsed}") {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}
