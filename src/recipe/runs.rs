//! Past runs: listing them, and finding the latest run of a recipe (for `--from`).

use std::path::Path;

use serde::Serialize;

use super::report::{runs_dir, Report, RunStatus};

#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    pub run_id: String,
    pub recipe: String,
    pub status: RunStatus,
    pub started: String,
    pub duration_ms: u64,
}

/// Every recorded run, oldest first (run ids sort by time).
pub fn list(workspace: &Path) -> Vec<Report> {
    let Ok(entries) = std::fs::read_dir(runs_dir(workspace)) else { return Vec::new() };
    let mut ids: Vec<String> = entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    ids.sort();
    ids.iter().filter_map(|id| Report::load(workspace, id).ok()).collect()
}

pub fn summaries(workspace: &Path) -> Vec<RunSummary> {
    list(workspace)
        .into_iter()
        .map(|r| RunSummary {
            run_id: r.run_id,
            recipe: r.recipe,
            status: r.status,
            started: r.started,
            duration_ms: r.duration_ms,
        })
        .collect()
}

pub fn latest(workspace: &Path, recipe: &str) -> Option<Report> {
    list(workspace).into_iter().rev().find(|r| r.recipe == recipe)
}
