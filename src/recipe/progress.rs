//! Progress on stderr: `[n/m] step` as each step starts and ends, with its time.

use std::io::{IsTerminal, Write};

use super::report::StepStatus;

/// Who hears as a recipe's steps start and end (numbered from 1 of `total`).
pub trait Progress: Send + Sync {
    /// Step `number` of `total`, called `name`, starts.
    fn step_started(&self, number: usize, total: usize, name: &str);
    /// Step `number` of `total` ended with `status` after `duration_ms`.
    fn step_finished(&self, number: usize, total: usize, name: &str, status: StepStatus, duration_ms: u64);
}

/// Plain lines, or a line that is rewritten in place on a terminal.
pub struct StderrProgress {
    live: bool,
}

impl StderrProgress {
    pub fn new() -> StderrProgress {
        StderrProgress { live: std::io::stderr().is_terminal() }
    }
}

impl Default for StderrProgress {
    fn default() -> Self {
        Self::new()
    }
}

impl Progress for StderrProgress {
    fn step_started(&self, number: usize, total: usize, name: &str) {
        let mut err = std::io::stderr().lock();
        if self.live {
            let _ = write!(err, "\r\x1b[2K[{number}/{total}] {name} …");
        } else {
            let _ = writeln!(err, "[{number}/{total}] {name} started");
        }
        let _ = err.flush();
    }

    fn step_finished(&self, number: usize, total: usize, name: &str, status: StepStatus, duration_ms: u64) {
        let mut err = std::io::stderr().lock();
        let secs = duration_ms as f64 / 1000.0;
        let prefix = if self.live { "\r\x1b[2K" } else { "" };
        let _ = writeln!(err, "{prefix}[{number}/{total}] {name} {status} in {secs:.1} s");
    }
}

/// No progress output (embedders, tests).
pub struct Silent;

impl Progress for Silent {
    fn step_started(&self, _: usize, _: usize, _: &str) {}
    fn step_finished(&self, _: usize, _: usize, _: &str, _: StepStatus, _: u64) {}
}
