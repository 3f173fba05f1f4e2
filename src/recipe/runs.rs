//! Past runs: listing them, reading one's report, and finding the latest run of a recipe (for
//! `--from`). Reports are read through the kernel's folder handles: `.rein/` is in the
//! workspace, where an agent may have put a link or a run id that walks out of it.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::html::Embedded;
use super::report::{AttachmentKind, Report, RunStatus, RUNS_DIR};
use crate::error::{Code, Failure};
use crate::kernel::{Kernel, KernelError};

/// One recorded run, as `rein runs list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RunSummary {
    /// The run's id (`rein runs show ID`, `rein undo ID`).
    pub run_id: String,
    /// The recipe that ran.
    pub recipe: String,
    /// How it ended.
    pub status: RunStatus,
    /// When it started (RFC 3339, UTC).
    pub started: String,
    /// How long it took.
    pub duration_ms: u64,
}

impl RunSummary {
    fn of(report: Report) -> RunSummary {
        RunSummary {
            run_id: report.run_id,
            recipe: report.recipe,
            status: report.status,
            started: report.started,
            duration_ms: report.duration_ms,
        }
    }
}

/// Every recorded run, oldest first (run ids sort by time). A folder that holds no readable
/// report is left out.
pub fn list(kernel: &Kernel) -> Vec<Report> {
    let mut ids = kernel.rein_dir_names(Path::new(RUNS_DIR)).unwrap_or_default();
    ids.retain(|id| is_run_id(id));
    ids.sort();
    ids.iter().filter_map(|id| read(kernel, id).ok()).collect()
}

pub fn summaries(kernel: &Kernel) -> Vec<RunSummary> {
    list(kernel).into_iter().map(RunSummary::of).collect()
}

pub fn latest(kernel: &Kernel, recipe: &str) -> Option<Report> {
    list(kernel).into_iter().rev().find(|r| r.recipe == recipe)
}

/// The report of run `run_id`, or of the latest run for `last`.
pub fn load(kernel: &Kernel, run_id: &str) -> Result<Report, Failure> {
    if run_id == "last" {
        return list(kernel).pop().ok_or_else(|| {
            Failure::new(Code::InvalidArgs, "there are no runs yet in this workspace; `rein recipe NAME` starts one")
        });
    }
    if !is_run_id(run_id) {
        return Err(no_run(run_id));
    }
    read(kernel, run_id)
}

fn read(kernel: &Kernel, run_id: &str) -> Result<Report, Failure> {
    let rel = Path::new(RUNS_DIR).join(run_id).join("report.json");
    let bytes = kernel.read_rein_file(&rel)?.ok_or_else(|| no_run(run_id))?;
    // The parser's message could quote what the file holds; it is enough to say it is not a report.
    serde_json::from_slice(&bytes).map_err(|_| {
        Failure::new(
            Code::InvalidArgs,
            format!(
                "{RUNS_DIR}/{run_id}/report.json is not a rein report (it does not read as one); `rein runs list` shows the runs"
            ),
        )
    })
}

/// The largest screenshot a page embeds (a phone's JPEG is a few hundred KB).
const EMBED_MAX: usize = 8 << 20;

/// The screenshot and UI tree a run saved, for its page. Only files in the run's own folder
/// are read, through the kernel's handles: report.json is in the workspace, and an attachment
/// path an agent wrote there must not bring another file into a page a person opens.
pub fn embedded(kernel: &Kernel, report: &Report) -> Embedded {
    let mut embedded = Embedded::default();
    let folder = format!("{RUNS_DIR}/{}/", report.run_id);
    for attachment in report.steps.iter().flat_map(|s| s.attachments.iter()) {
        let Some(name) = attachment.path.strip_prefix(&folder).filter(|name| is_plain_file_name(name)) else {
            continue;
        };
        let Ok(Some(bytes)) = kernel.read_rein_file(&Path::new(&folder).join(name)) else { continue };
        if bytes.len() > EMBED_MAX {
            continue;
        }
        let screen = embedded.screen_of(attachment.label.as_deref());
        match attachment.kind {
            AttachmentKind::Screenshot => screen.screenshot = Some((attachment.path.clone(), bytes)),
            AttachmentKind::UiText => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                screen.ui_tree = Some((attachment.path.clone(), text));
            }
            AttachmentKind::UiTree => {}
        }
    }
    embedded
}

fn no_run(run_id: &str) -> Failure {
    Failure::new(Code::InvalidArgs, format!("no run {run_id:?}; `rein runs list` shows the runs"))
}

/// A file name of the run's folder as rein writes them (`screenshot.jpeg`): never a path.
fn is_plain_file_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && !name.starts_with('.')
}

/// What a run id looks like (`20261201T101502123-4242`): never a path.
pub fn is_run_id(text: &str) -> bool {
    (1..=64).contains(&text.len())
        && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && !text.starts_with('-')
}

/// Writes report.json, report.md and report.html under `.rein/runs/<run-id>/`, through the kernel's
/// folder handles (never through a link an agent put in `.rein/`).
pub(crate) fn save(report: &Report, kernel: &Kernel) -> Result<PathBuf, KernelError> {
    let dir = Path::new(RUNS_DIR).join(&report.run_id);
    let json = serde_json::to_string_pretty(report).unwrap_or_default() + "\n";
    kernel.write_rein_file(&dir.join("report.json"), json.as_bytes())?;
    kernel.write_rein_file(&dir.join("report.md"), report.to_markdown().as_bytes())?;
    let page = report.to_html(&embedded(kernel, report));
    kernel.write_rein_file(&dir.join("report.html"), page.as_bytes())?;
    Ok(kernel.scope().workspace().join(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_are_never_paths() {
        assert!(is_run_id("20261201T101502123-4242"));
        for bad in ["", "..", "../x", "a/b", "a\\b", ".hidden", "-rf", &"1".repeat(65)] {
            assert!(!is_run_id(bad), "{bad:?}");
        }
        assert!(is_plain_file_name("screenshot.jpeg"));
        for bad in ["", ".", "..", "../report.json", "a/b", ".hidden"] {
            assert!(!is_plain_file_name(bad), "{bad:?}");
        }
    }
}
