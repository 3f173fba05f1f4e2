//! What a recipe run leaves for a reviewer: `.rein/runs/<run-id>/report.json` and a
//! `report.md` that shows in thirty seconds what ran, what was approved by whom, which files
//! changed, and the evidence that each step really worked.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Code, Failure};
use crate::kernel::journal::{Action, Outcome};
use crate::kernel::policy::DecidedBy;
use crate::kernel::secrets::Secrets;
use crate::kernel::{FileChange, Kernel, KernelError};

/// How a run and a step ended: the same words the event stream uses.
pub use crate::kernel::events::{RunStatus, StepStatus};

/// How one attempt of a step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttemptStatus {
    /// It ran and its verify passed.
    Verified,
    /// It failed (see the attempt's `failure`); its changes were rolled back.
    Failed,
}

/// What a recipe run did, step by step: saved as `.rein/runs/<run-id>/report.json` and
/// `report.md` in the workspace.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let workspace = tempfile::tempdir()?;
/// # let home = tempfile::tempdir()?;
/// std::fs::create_dir(workspace.path().join("recipes"))?;
/// std::fs::write(
///     workspace.path().join("recipes/greet.lua"),
///     r#"return { name = "greet", description = "writes a greeting", steps = {
///          { name = "write", run = function() rein.fs.write("hello.txt", "hi\n") end },
///        } }"#,
/// )?;
/// let host = rein::Host::builder().workspace(workspace.path())
/// #   .home(home.path())
///     .build()?;
/// let report = host.run_recipe("greet", serde_json::json!({}), rein::RecipeOptions::default())?;
/// assert_eq!(report.status, rein::RunStatus::Succeeded);
/// assert_eq!(report.steps[0].status, rein::StepStatus::Verified);
/// assert_eq!(report.steps[0].files[0].path, "hello.txt");
/// assert!(report.to_markdown().contains("greet"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// The run's id (`rein runs show ID`, `rein undo ID`).
    pub run_id: String,
    /// The recipe's name.
    pub recipe: String,
    /// The arguments it ran with (secret values replaced).
    pub args: Value,
    /// How it ended.
    pub status: RunStatus,
    /// When it started (RFC 3339, UTC).
    pub started: String,
    /// How long it took.
    pub duration_ms: u64,
    /// Every step of the recipe, in order, those that did not run too.
    pub steps: Vec<StepReport>,
    /// The failure that ended the run, when one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureSummary>,
}

/// One step of a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StepReport {
    /// The step's name in the recipe.
    pub name: String,
    /// How it ended.
    pub status: StepStatus,
    /// How long it took, all attempts.
    pub duration_ms: u64,
    /// Each attempt (more than one when the step retries).
    pub attempts: Vec<Attempt>,
    /// What the step returned (the next steps' `ctx.outputs`).
    #[serde(default)]
    pub output: Value,
    /// What shows that the step worked, as its verify and tools reported it.
    pub evidence: Vec<String>,
    /// Every program the step ran, and who allowed it.
    pub commands: Vec<CommandRecord>,
    /// Everything a person, a rule, a session grant or --yes allowed (not the policy alone).
    #[serde(default)]
    pub approvals: Vec<ApprovalRecord>,
    /// The files the step changed (what `rein undo` restores).
    pub files: Vec<FileChange>,
    /// Files put back because the step failed.
    pub rolled_back: Vec<String>,
}

/// One attempt of a step.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Attempt {
    /// 1 for the first.
    pub number: u32,
    /// How it ended.
    pub status: AttemptStatus,
    /// How long it took.
    pub duration_ms: u64,
    /// Why it failed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureSummary>,
}

/// A failure summarised for people: never a raw log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureSummary {
    /// The step that failed.
    pub step: String,
    /// The failure's code.
    pub code: Code,
    /// The failure's message.
    pub message: String,
    /// Where in the project the problem is, when the tool said (`entry/src/main/ets/x.ets:3`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// What to do about it, when the tool said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remedy: Option<String>,
    /// The command line that failed, when a program did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The failing tool's structured details (ArkTS errors, the install's code and remedy, the
    /// crash evidence, a row per device …), without raw output.
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub details: Value,
}

/// A program a step ran (or tried to).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CommandRecord {
    /// The command line (secret values replaced).
    pub command: String,
    /// Who allowed or refused it (`"policy"`, `{"rule": …}`, `{"approver": …}` … in JSON);
    /// None when nobody was asked because it was refused before (a bad argument, say).
    #[serde(default)]
    pub decided_by: Option<DecidedBy>,
    /// Whether it ran: `"ok"` or the code that stopped it.
    pub result: Outcome,
    /// Its exit status, when it ran to its end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
}

/// Something a step did that someone other than the policy allowed.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ApprovalRecord {
    /// What was done.
    pub action: Action,
    /// To what: a path, or a command line.
    pub target: String,
    /// Who allowed it (a rule, a session grant, the approver that answered).
    #[serde(default)]
    pub decided_by: Option<DecidedBy>,
}

/// Where run reports are kept, relative to the workspace: `<RUNS_DIR>/<run-id>/report.json`.
pub const RUNS_DIR: &str = ".rein/runs";

impl Report {
    /// The report with every secret value of the run replaced (arguments, outputs, evidence,
    /// failures, commands).
    pub(crate) fn scrubbed(self, secrets: &Secrets) -> Report {
        if secrets.is_empty() {
            return self;
        }
        let Ok(mut value) = serde_json::to_value(&self) else { return self };
        secrets.scrub_json(&mut value);
        serde_json::from_value(value).unwrap_or(self)
    }

    /// Writes report.json and report.md under `.rein/runs/<run-id>/`, through the kernel's
    /// folder handles (never through a link an agent put in `.rein/`).
    pub(crate) fn save(&self, kernel: &Kernel) -> Result<PathBuf, KernelError> {
        let dir = Path::new(RUNS_DIR).join(&self.run_id);
        let json = serde_json::to_string_pretty(self).unwrap_or_default() + "\n";
        kernel.write_rein_file(&dir.join("report.json"), json.as_bytes())?;
        kernel.write_rein_file(&dir.join("report.md"), self.to_markdown().as_bytes())?;
        Ok(kernel.scope().workspace().join(dir))
    }

    /// Where `report.json` of this run is.
    pub fn path(&self, workspace: &Path) -> PathBuf {
        workspace.join(RUNS_DIR).join(&self.run_id).join("report.json")
    }

    /// What a succeeded run answers: the same for the CLI's --json and for MCP.
    pub fn summary(&self, workspace: &Path) -> serde_json::Value {
        serde_json::json!({"run_id": self.run_id, "status": self.status, "report": self.path(workspace), "steps": self.steps})
    }

    /// A run that did not succeed, as a failure: CANCELLED, VERIFY_FAILED or STEP_FAILED, with
    /// the failed step summarised and the report's path.
    pub fn as_failure(&self, workspace: &Path) -> Option<Failure> {
        if self.status == RunStatus::Succeeded {
            return None;
        }
        let code = match (self.status, &self.failure) {
            (RunStatus::Cancelled, _) => Code::Cancelled,
            (_, Some(f)) if f.code == Code::VerifyFailed => Code::VerifyFailed,
            _ => Code::StepFailed,
        };
        let message = match &self.failure {
            Some(f) => format!("recipe {} {} at step {}: {} {}", self.recipe, self.status, f.step, f.code, f.message),
            None => format!("recipe {} {}", self.recipe, self.status),
        };
        let details = serde_json::json!({"run_id": self.run_id, "status": self.status, "failure": self.failure, "report": self.path(workspace)});
        Some(Failure::new(code, message).with_details(details))
    }

    /// Every file the run changed, with its first "before" and last "after".
    pub fn file_changes(&self) -> Vec<FileChange> {
        let mut all: Vec<FileChange> = Vec::new();
        for change in self.steps.iter().flat_map(|s| s.files.iter()) {
            match all.iter_mut().find(|c| c.path == change.path) {
                Some(existing) => existing.sha256_after = change.sha256_after.clone(),
                None => all.push(change.clone()),
            }
        }
        all
    }

    /// The report as `report.md` shows it to a reviewer.
    pub fn to_markdown(&self) -> String {
        let mut md = format!("# rein run {} — `{}`: **{}**\n\n", self.run_id, self.recipe, self.status);
        md.push_str(&format!(
            "Started {}, took {:.1} s. Arguments: {}\n\n",
            self.started,
            self.duration_ms as f64 / 1000.0,
            super::wording::arguments(&self.args)
        ));
        if let Some(f) = &self.failure {
            md.push_str(&format!("**Failed at step `{}`**: {} — {}\n", f.step, f.code, f.message));
            if let Some(location) = &f.location {
                md.push_str(&format!("- where: {location}\n"));
            }
            if let Some(remedy) = &f.remedy {
                md.push_str(&format!("- what to do: {remedy}\n"));
            }
            md.push_str(&super::details_md::render(&f.details));
            md.push('\n');
        }
        md.push_str("| # | step | status | time | attempts |\n|---|---|---|---|---|\n");
        for (i, s) in self.steps.iter().enumerate() {
            md.push_str(&format!(
                "| {} | {} | {} | {:.1} s | {} |\n",
                i + 1,
                s.name,
                s.status,
                s.duration_ms as f64 / 1000.0,
                s.attempts.len()
            ));
        }
        for s in self.steps.iter().filter(|s| !s.commands.is_empty() || !s.files.is_empty() || !s.evidence.is_empty()) {
            md.push_str(&format!("\n## {}\n", s.name));
            for e in &s.evidence {
                md.push_str(&format!("- evidence: `{e}`\n"));
            }
            for a in &s.approvals {
                let by = super::wording::decider(&a.decided_by);
                md.push_str(&format!("- approval: {} `{}` allowed by {by}\n", a.action, a.target));
            }
            for c in &s.commands {
                let by = super::wording::decider(&c.decided_by);
                md.push_str(&format!("- ran `{}` — approved by {by}, {}\n", c.command, c.result));
            }
            for f in &s.files {
                let before = f.sha256_before.as_deref().map_or("new".to_string(), |h| h[..12.min(h.len())].to_string());
                md.push_str(&format!(
                    "- changed `{}`: {before} → {}\n",
                    f.path,
                    &f.sha256_after[..12.min(f.sha256_after.len())]
                ));
            }
            for r in &s.rolled_back {
                md.push_str(&format!("- rolled back `{r}`\n"));
            }
        }
        if self.steps.iter().any(|s| !s.files.is_empty()) {
            md.push_str(&format!("\nUndo every file this run changed: `rein undo {}`\n", self.run_id));
        }
        md
    }
}
