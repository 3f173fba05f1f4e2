//! Recipe progress on stderr: on a terminal a live line per step with its elapsed time
//! (indicatif), replaced by the step's outcome when it ends; elsewhere plain lines.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use rein::recipe::progress::Progress;
use rein::recipe::report::StepStatus;

use super::render::style::status;

pub struct TerminalProgress {
    live: bool,
    current: Mutex<Option<ProgressBar>>,
}

impl TerminalProgress {
    pub fn new() -> TerminalProgress {
        TerminalProgress { live: std::io::stderr().is_terminal(), current: Mutex::new(None) }
    }
}

impl Progress for TerminalProgress {
    fn step_started(&self, number: usize, total: usize, name: &str) {
        if !self.live {
            eprintln!("[{number}/{total}] {name} started");
            return;
        }
        let bar = ProgressBar::new_spinner().with_message(format!("[{number}/{total}] {name}"));
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} … {elapsed}") {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(200));
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = Some(bar);
    }

    fn step_finished(&self, number: usize, total: usize, name: &str, outcome: StepStatus, duration_ms: u64) {
        if let Some(bar) = self.current.lock().unwrap_or_else(|e| e.into_inner()).take() {
            bar.finish_and_clear();
        }
        let secs = duration_ms as f64 / 1000.0;
        anstream::eprintln!("[{number}/{total}] {name} {} in {secs:.1} s", status(&outcome.to_string()));
    }
}
