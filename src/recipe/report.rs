//! What a recipe run leaves for a reviewer: `.rein/runs/<run-id>/report.json` and a
//! `report.md` that shows in thirty seconds what ran, what was approved by whom, which files
//! changed, and the evidence that each step really worked.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Code, Failure};
use crate::kernel::journal::{Action, Entry, Outcome, Verdict};
use crate::kernel::policy::DecidedBy;
use crate::kernel::secrets::Secrets;
use crate::kernel::FileChange;

/// How a run and a step ended: the same words the event stream uses.
pub use crate::kernel::events::{RunStatus, StepStatus};

/// How one attempt of a step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttemptStatus {
    /// It ran and its verify passed.
    Verified,
    /// Its verify passed on what project code returned (see [`StepStatus::Claimed`]).
    Claimed,
    /// It ran to its end; the step declares no verify, so nothing proved it worked.
    Done,
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
/// assert_eq!(report.steps[0].status, rein::StepStatus::Done); // no verify: done, not proven
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
    /// Where the recipe's code came from (absent in reports of older rein versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<RecipeSource>,
    /// The project's own tests the run ran, each test with how it ended (issue 36).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<super::tests_section::TestRun>,
}

/// Where a run's recipe came from: a reviewer must know whether rein's own recipe ran or the
/// project's (code an agent may have written) under the same name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecipeSource {
    /// `built-in`, `embedder`, `pack` or `project` (as `rein tools` says it).
    pub origin: String,
    /// The file that defines it: `recipes/x.lua` in the project, `<built-in>/recipes/x.lua`.
    pub file: String,
    /// The definition of a lower layer it replaces, if any: `{origin, file}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<Replaced>,
}

/// A definition a run's recipe replaced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Replaced {
    /// Its layer: `built-in`, `embedder` or `pack`.
    pub origin: String,
    /// Its file, as [`RecipeSource::file`] names files.
    pub file: String,
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
    /// Every tool the step ran (nested ones too), whose code it is and its file: a built-in
    /// recipe's step served by a project or pack tool (a person's `[overrides]`) says so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<super::served::ServedTool>,
    /// Files in the run's folder that show what the step did (the launched app's screenshot
    /// and UI tree), as report.html and the JUnit XML show them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
}

/// A file a step saved in the run's folder as evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachment {
    /// What it is.
    pub kind: AttachmentKind,
    /// Where it is, relative to the workspace (`.rein/runs/<run-id>/screenshot.jpeg`).
    pub path: String,
    /// Whose it is when a step keeps several of a kind: the device's label
    /// (`screen-<label>.jpeg`), as `ctx:attach` was given it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// What an attachment shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttachmentKind {
    /// The device's screen (`snapshot_display`), a JPEG.
    Screenshot,
    /// The UI tree (`uitest dumpLayout`), its JSON.
    UiTree,
    /// The UI tree in the compact text form agents read (`ui_dump`).
    UiText,
}

impl std::fmt::Display for AttachmentKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            AttachmentKind::Screenshot => "screenshot",
            AttachmentKind::UiTree => "ui tree",
            AttachmentKind::UiText => "ui tree (text)",
        })
    }
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

/// A program a step ran (or tried to), and how that ended — never more than happened: a
/// program that exited 255 is `exited` with `exit_code` 255, a refused one is `refused`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CommandRecord {
    /// The command line (secret values replaced).
    pub command: String,
    /// Who allowed or refused it (`"policy"`, `{"rule": …}`, `{"approver": …}` … in JSON);
    /// None when nobody was asked because it was refused before (a bad argument, say).
    #[serde(default)]
    pub decided_by: Option<DecidedBy>,
    /// How it ended.
    pub result: CommandEnd,
    /// The code that stopped it, when it was refused or did not run to its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<Code>,
    /// Its exit status, when it ran to its end (0 is success to the HarmonyOS tools; hdc
    /// exits 0 even when an install fails, which the tool reading its output judges).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
}

/// How a command of a step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CommandEnd {
    /// It ran to its end; `exit_code` says how.
    Exited,
    /// A signal ended it (`signal`).
    Killed,
    /// It never started: `decided_by` refused it (`code`: APPROVAL_DENIED, APPROVAL_REQUIRED,
    /// PROGRAM_NOT_ALLOWED …).
    Refused,
    /// It did not run to its end, or could not start: `code` says why (TIMEOUT, CANCELLED,
    /// TOOLCHAIN_NOT_FOUND, IO_ERROR …).
    Failed,
}

impl<'de> Deserialize<'de> for CommandEnd {
    /// Reports written before rein told these apart said `"ok"` (it ran) or a code.
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<CommandEnd, D::Error> {
        Ok(match String::deserialize(deserializer)?.as_str() {
            "exited" | "ok" => CommandEnd::Exited,
            "killed" => CommandEnd::Killed,
            "refused" => CommandEnd::Refused,
            _ => CommandEnd::Failed,
        })
    }
}

impl CommandRecord {
    /// The record of one journaled spawn.
    pub(crate) fn of(entry: &Entry) -> CommandRecord {
        let code = match &entry.result {
            Outcome::Ok => None,
            Outcome::Failed(code) => Some(code.clone()),
        };
        let result = match (&code, entry.decision) {
            (Some(_), Verdict::Refused) => CommandEnd::Refused,
            (Some(_), _) => CommandEnd::Failed,
            (None, _) if entry.exit_code.is_none() && entry.signal.is_some() => CommandEnd::Killed,
            (None, _) => CommandEnd::Exited,
        };
        CommandRecord {
            command: entry.target.clone(),
            decided_by: entry.decided_by.clone(),
            result,
            code,
            exit_code: entry.exit_code,
            signal: entry.signal,
        }
    }
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

    /// Where `report.json` of this run is.
    pub fn path(&self, workspace: &Path) -> PathBuf {
        workspace.join(RUNS_DIR).join(&self.run_id).join("report.json")
    }

    /// Where `report.json` of this run is, as people and agents read it (`C:\…` on Windows, never
    /// the verbatim `\\?\` form rein opens files by: docs/src/platforms.md).
    fn shown_path(&self, workspace: &Path) -> String {
        crate::visible::shown_path(self.path(workspace))
    }

    /// What a succeeded run answers: the same for the CLI's --json and for MCP.
    pub fn summary(&self, workspace: &Path) -> serde_json::Value {
        serde_json::json!({"run_id": self.run_id, "status": self.status, "report": self.shown_path(workspace), "steps": self.steps})
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
            Some(f) => {
                let what_to_do = f.remedy.as_ref().map(|r| format!(" What to do: {r}")).unwrap_or_default();
                format!("{} {} {}{what_to_do}", self.failed_at(), f.code, f.message)
            }
            None => format!("recipe {} {}", self.recipe, self.status),
        };
        let details = serde_json::json!({"run_id": self.run_id, "status": self.status, "failure": self.failure, "report": self.shown_path(workspace)});
        Some(Failure::new(code, message).with_details(details))
    }

    /// `recipe NAME failed at step STEP:` (or cancelled), the start of the failure's message.
    pub fn failed_at(&self) -> String {
        match &self.failure {
            Some(f) => format!("recipe {} {} at step {}:", self.recipe, self.status, f.step),
            None => format!("recipe {} {}:", self.recipe, self.status),
        }
    }

    /// Whether the report names each step's tools and whose code they are: when the recipe or
    /// any tool a step ran is not rein's own (a person's `[overrides]`, a project recipe).
    pub fn names_tools(&self) -> bool {
        let recipe_is_reins =
            self.source.as_ref().is_none_or(|s| s.origin == crate::kernel::Origin::BuiltIn.to_string());
        !recipe_is_reins || self.steps.iter().flat_map(|s| &s.tools).any(|t| t.origin != crate::kernel::Origin::BuiltIn)
    }

    /// The steps whose verify passed on what project code returned.
    pub fn claimed_steps(&self) -> Vec<&str> {
        self.steps.iter().filter(|s| s.status == StepStatus::Claimed).map(|s| s.name.as_str()).collect()
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
}
