//! Recipe progress on stderr, from the run's events: on a terminal a live line per step with
//! its elapsed time (indicatif), replaced by the step's outcome when it ends; elsewhere plain
//! lines.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use rein::{Event, EventKind, Listener};

use super::render::style::status;

/// A listener for `rein recipe`: the steps of the run as they start and end.
pub fn terminal_progress() -> Listener {
    let live = std::io::stderr().is_terminal();
    let current: Mutex<Option<ProgressBar>> = Mutex::new(None);
    Arc::new(move |event: &Event| match &event.kind {
        EventKind::StepStarted { step, number, total, .. } => {
            if !live {
                eprintln!("{}", event.step_line().unwrap_or_default());
                return;
            }
            let bar = ProgressBar::new_spinner().with_message(format!("[{number}/{total}] {step}"));
            if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} … {elapsed}") {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(200));
            *current.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar);
        }
        EventKind::StepEnded { step, number, total, status: outcome, duration_ms, .. } => {
            if let Some(bar) = current.lock().unwrap_or_else(|e| e.into_inner()).take() {
                bar.finish_and_clear();
            }
            let secs = *duration_ms as f64 / 1000.0;
            anstream::eprintln!("[{number}/{total}] {step} {} in {secs:.1} s", status(&outcome.to_string()));
        }
        _ => {}
    })
}
