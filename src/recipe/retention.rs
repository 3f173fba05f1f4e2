//! How long the journal keeps the saved copies (pre-images) a run's undo needs: those of the
//! last [`Retention::runs`] runs and of every run started in the last [`Retention::days`] days.
//! Older ones are collected after each run and by `rein runs prune`; such a run can no longer
//! be undone (its report stays).

use std::collections::BTreeSet;
use std::time::{Duration, SystemTime};

use serde::Serialize;

use super::report::Report;
use super::runs;
use crate::error::{Code, Failure};
use crate::kernel::journal::{preimage_name, Collected};
use crate::kernel::Kernel;

/// How long the saved copies a run's undo needs are kept: those of the last `runs` runs and
/// of every run started in the last `days` days (default: 20 runs, 14 days).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Retention {
    /// Keep what the last this many runs need.
    pub runs: usize,
    /// Keep what runs started in the last this many days need (and every copy made in them).
    pub days: u64,
}

impl Default for Retention {
    fn default() -> Retention {
        Retention { runs: 20, days: 14 }
    }
}

impl Retention {
    fn window(&self) -> Duration {
        Duration::from_secs(self.days * 24 * 3600)
    }

    /// Whether `report` (the `index`th of `count` runs, oldest first) is still inside the
    /// undo window at `now`.
    fn keeps(&self, report: &Report, index: usize, count: usize, now: SystemTime) -> bool {
        if index + self.runs >= count {
            return true;
        }
        // A start time that cannot be read keeps its run: collecting is the one thing that
        // cannot be undone.
        match humantime::parse_rfc3339_weak(&report.started) {
            Ok(started) => now.duration_since(started).map(|age| age <= self.window()).unwrap_or(true),
            Err(_) => true,
        }
    }
}

/// Removes the saved copies no run inside `retention` needs.
pub fn collect(kernel: &Kernel, retention: Retention) -> Result<Collected, Failure> {
    let now = SystemTime::now();
    let reports = runs::list(kernel);
    let count = reports.len();
    let keep: BTreeSet<String> = reports
        .iter()
        .enumerate()
        .filter(|(index, report)| retention.keeps(report, *index, count, now))
        .flat_map(|(_, report)| report.steps.iter().flat_map(|s| s.files.iter()))
        .filter_map(|change| change.preimage.as_deref().and_then(preimage_name))
        .map(str::to_string)
        .collect();
    let cutoff = now.checked_sub(retention.window()).unwrap_or(SystemTime::UNIX_EPOCH);
    kernel
        .journal()
        .collect_preimages(&keep, cutoff)
        .map_err(|e| Failure::new(Code::IoError, format!("cannot collect the journal's saved copies: {e}")))
}
