//! Past recipe runs, for embedders as for `rein runs` and `rein undo`: the list, one run's
//! report, collecting the saved copies no undo needs any more, and undoing a run.

use serde::Serialize;
use serde_json::Value;

use super::Host;
use crate::error::{Code, Failure};
use crate::kernel::journal::restore::Restored;
use crate::kernel::journal::Collected;
use crate::recipe::report::Report;
use crate::recipe::retention::{self, Retention};
use crate::recipe::runs::{self, RunSummary};

/// What [`Host::undo`] did: each file the run changed, put back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Undone {
    /// The run undone.
    pub run_id: String,
    /// Each file, latest change first.
    pub restored: Vec<Restored>,
}

impl Host {
    /// Every recorded recipe run of this workspace, oldest first.
    pub fn runs(&self) -> Vec<RunSummary> {
        runs::summaries(&self.kernel)
    }

    /// The report of run `run_id` (as [`Host::runs`] lists it), or of the latest run for
    /// `"last"`. An unknown id is `INVALID_ARGS`.
    pub fn run_report(&self, run_id: &str) -> Result<Report, Failure> {
        runs::load(&self.kernel, run_id)
    }

    /// A run's report as the page report.html holds, rendered again from report.json and the
    /// screenshot and UI tree in the run's folder.
    pub fn run_report_page(&self, report: &Report) -> String {
        report.to_html(&crate::recipe::runs::embedded(&self.kernel, report))
    }

    /// Removes the saved copies (pre-images) that no run inside `retention` needs for its
    /// undo. Runs outside it keep their reports but can no longer be undone. Every recipe run
    /// does this with [`Retention::default`] when it ends.
    pub fn prune_runs(&self, retention: Retention) -> Result<Collected, Failure> {
        retention::collect(&self.kernel, retention)
    }

    /// Puts back every file run `run_id` (or `"last"`) changed, as it was before the run.
    /// Without `force`, a file changed since the run refuses the whole undo with `STALE_FILE`
    /// before anything is touched; with it, those later changes are lost.
    ///
    /// The run's record lies in the workspace's `.rein/`, where an agent may write: each file
    /// is allowed as a write of it would be (your approver is asked about a file outside the
    /// workspace, a protected one or one in rein's home; one refusal and nothing is touched).
    /// Call it for a person, never for an agent.
    pub fn undo(&self, run_id: &str, force: bool) -> Result<Undone, Failure> {
        let report = self.run_report(run_id)?;
        match self.kernel.undo(&self.new_call(), &report.file_changes(), force) {
            Ok(restored) => Ok(Undone { run_id: report.run_id, restored }),
            Err(err) => {
                let mut failure = Failure::from(err);
                // A saved copy that no longer holds the old bytes says so itself (details.preimage);
                // --force would not help there.
                if failure.code == Code::StaleFile && failure.details.get("preimage").is_none() {
                    failure.message = changed_since(&report.run_id, &failure.details);
                }
                Err(failure)
            }
        }
    }
}

/// Why undo refused a file changed after the run, and what to do about it.
fn changed_since(run_id: &str, details: &Value) -> String {
    let path = details["path"].as_str().unwrap_or("a file");
    let now = match details["actual_sha256"].as_str() {
        Some(sha) => {
            format!(
                "its sha256 is now {}…, the run left {}…",
                short(sha),
                short(details["expected_sha256"].as_str().unwrap_or(""))
            )
        }
        None => "it was deleted".to_string(),
    };
    format!(
        "{path} changed after run {run_id} ({now}), so nothing was restored. Look at it first (`rein runs show {run_id}` \
         shows what the run did): to keep the later change, revert by hand only what the run did; to throw the later \
         change away and put back every file as it was before the run, run `rein undo {run_id} --force`."
    )
}

fn short(sha: &str) -> String {
    sha.chars().take(12).collect()
}
