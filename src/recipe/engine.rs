//! The recipe engine. The engine, not the recipe author, guarantees: a step counts only when
//! its verify passes; a failed attempt's file changes are rolled back byte for byte; retries
//! stop when the same failure repeats; budgets and cancellation stop everything cleanly; and
//! the report is written whatever happened.

use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};

use super::activity::{record_activity, summarise};
use mlua::Table;

use super::attach::attachments_of;
use super::context::{evidence_of, make_ctx};
use super::report::{Attachment, Attempt, AttemptStatus, RecipeSource, Report, RunStatus, StepReport, StepStatus};
use super::spec::{read_verdict, RecipeCode, RecipeSpec, StepCode, StepSpec};
use crate::error::{Code, Failure};
use crate::kernel::journal::restore::net_changes;
use crate::kernel::journal::Entry;
use crate::kernel::{Call, EventKind, Kernel, Origin};
use crate::lua::{convert, Runtime};

/// The Lua wall clock of a step whose recipe declares neither a step timeout nor a time
/// budget: long enough for a large build, which runs while the step waits.
const STEP_WALL_TIME: Duration = Duration::from_secs(30 * 60);

/// How to run a recipe ([`Host::run_recipe_async`](crate::Host::run_recipe_async)); the
/// default runs it from its first step, with no way to cancel.
#[derive(Default)]
pub struct RecipeOptions {
    /// Start at this step, reusing the outputs the last run of this recipe recorded.
    pub from: Option<String>,
}

pub struct Engine<'a> {
    /// The Lua state the run holds for all its steps.
    pub runtime: &'a mut Runtime,
    pub kernel: &'a Kernel,
    pub spec: &'a RecipeSpec,
    /// The recipe's functions in that state.
    pub code: RecipeCode,
    /// The call the run is part of, with the recipe acting (and its pack, if any); its
    /// listeners hear the run, its steps and everything they do.
    pub call: Call,
    /// Where the recipe came from, for the report.
    pub source: RecipeSource,
}

/// What every step of one run shares.
struct Run<'a> {
    /// The run's call: the recipe acting, with the recipe's spawn budget.
    call: Call,
    args: &'a Value,
    run_id: &'a str,
    /// When the recipe's time budget is spent.
    deadline: Option<Instant>,
}

/// One attempt of one step: the step, its functions in the run's Lua state, which attempt.
struct Try<'s> {
    spec: &'s StepSpec,
    code: &'s StepCode,
    number: u32,
}

/// How one attempt ended.
enum Outcome {
    /// It ran to its end: its verify passed (`verified`), or it declares none.
    Ended {
        output: Value,
        evidence: Vec<String>,
        verified: bool,
    },
    Failed(Failure),
    /// Stops the whole run: cancelled, or the run's time budget is spent.
    Stopped(Failure),
}

impl Engine<'_> {
    pub async fn run(&mut self, args: Value, opts: RecipeOptions) -> Result<Report, Failure> {
        let args = self.spec.params.validate(&args)?;
        for secret in self.spec.params.secret_values(&args) {
            self.call.secrets().add(&secret);
        }
        let started = Instant::now();
        let run_id = new_run_id();
        let mut report = Report {
            run_id: run_id.clone(),
            recipe: self.spec.name.clone(),
            args: args.clone(),
            status: RunStatus::Running,
            started: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
            duration_ms: 0,
            steps: Vec::new(),
            failure: None,
            source: Some(self.source.clone()),
            tests: Vec::new(),
        };
        let first = self.first_step(opts.from.as_deref(), &mut report)?;
        let deadline = self.spec.budget.time_s.map(|s| started + Duration::from_secs(s));
        let run = Run {
            call: self.call.clone().with_spawn_budget(self.spec.budget.spawns),
            args: &args,
            run_id: &run_id,
            deadline,
        };
        let total = self.spec.steps.len();
        let recipe = self.spec.name.clone();
        self.call.emit(|| EventKind::RecipeStarted { recipe: recipe.clone(), run_id: run_id.clone(), steps: total });
        for (index, step) in self.spec.steps.iter().enumerate().skip(first) {
            let (number, name) = (index + 1, step.name.clone());
            self.call.emit(|| EventKind::StepStarted { recipe: recipe.clone(), step: name.clone(), number, total });
            let outputs = outputs_of(&report);
            let code = self.code.steps[index].clone();
            let step_report = self.run_step(&run, step, &code, &outputs).await;
            let (status, duration_ms) = (step_report.status, step_report.duration_ms);
            self.call.emit(|| EventKind::StepEnded {
                recipe: recipe.clone(),
                step: name,
                number,
                total,
                status,
                duration_ms,
            });
            let failed = !step_report.status.ended_well();
            let failure = step_report.attempts.last().and_then(|a| a.failure.clone());
            report.steps.push(step_report);
            if failed {
                report.status = if failure.as_ref().is_some_and(|f| f.code == Code::Cancelled) {
                    RunStatus::Cancelled
                } else {
                    RunStatus::Failed
                };
                report.failure = failure;
                for skipped in &self.spec.steps[index + 1..] {
                    report.steps.push(skipped_step(&skipped.name, StepStatus::Skipped));
                }
                break;
            }
        }
        if report.status == RunStatus::Running {
            report.status = RunStatus::Succeeded;
        }
        report.duration_ms = started.elapsed().as_millis() as u64;
        report.tests = super::tests_collect::collect(&report.steps);
        let (status, duration_ms) = (report.status, report.duration_ms);
        self.call.emit(|| EventKind::RecipeEnded { recipe, run_id: run_id.clone(), status, duration_ms });
        let report = report.scrubbed(self.call.secrets());
        super::runs::save(&report, self.kernel)
            .map_err(|e| Failure::new(Code::IoError, format!("cannot write the run report: {e}")))?;
        // The run is over, so older runs' saved copies may go; failing to collect them costs
        // disk, not this run's result.
        if let Err(failure) = super::retention::collect(self.kernel, super::retention::Retention::default()) {
            tracing::warn!("{}", failure.message);
        }
        Ok(report)
    }

    /// With `--from`, the steps before it are taken from the last run of this recipe.
    fn first_step(&self, from: Option<&str>, report: &mut Report) -> Result<usize, Failure> {
        let Some(from) = from else { return Ok(0) };
        let index = self.spec.steps.iter().position(|s| s.name == from).ok_or_else(|| {
            let names: Vec<&str> = self.spec.steps.iter().map(|s| s.name.as_str()).collect();
            Failure::new(
                Code::InvalidArgs,
                format!("recipe {} has no step {from:?}; its steps: {}", self.spec.name, names.join(", ")),
            )
        })?;
        let last = super::runs::latest(self.kernel, &self.spec.name).ok_or_else(|| {
            Failure::new(
                Code::InvalidArgs,
                format!("--from needs an earlier run of {}; run it once without --from", self.spec.name),
            )
        })?;
        for step in &self.spec.steps[..index] {
            let earlier = last.steps.iter().find(|s| s.name == step.name && s.status.ended_well());
            let Some(earlier) = earlier else {
                return Err(Failure::new(
                    Code::InvalidArgs,
                    format!("step {} did not succeed in run {}; start from it or earlier", step.name, last.run_id),
                ));
            };
            let mut reused = earlier.clone();
            reused.status = StepStatus::Reused;
            reused.attempts.clear();
            reused.commands.clear();
            reused.approvals.clear();
            reused.files.clear();
            report.steps.push(reused);
        }
        Ok(index)
    }

    async fn run_step(&mut self, run: &Run<'_>, step: &StepSpec, code: &StepCode, outputs: &Value) -> StepReport {
        let started = Instant::now();
        let mut report = skipped_step(&step.name, StepStatus::Failed);
        let mut last_signature: Option<String> = None;
        for number in 1..=step.retry_max + 1 {
            let attempt_started = Instant::now();
            // Everything this attempt journals (and nothing any other call does) is kept for
            // its report and its rollback.
            let (attempt_call, captured) = run.call.capturing();
            let served = super::served::Served::default();
            let attempt_call = attempt_call.with_listener(served.listener());
            let attempt = Try { spec: step, code, number };
            let (outcome, attachments) = self.attempt(run, attempt_call, &attempt, outputs).await;
            // What a step kept as evidence stays, a failed attempt's too (the screen when the
            // expected text was not on it).
            for attachment in attachments {
                report.attachments.retain(|a| a.path != attachment.path);
                report.attachments.push(attachment);
            }
            let entries = captured.take();
            record_activity(&mut report, &entries);
            let tools = served.take();
            // The step's run and verify are the recipe's code: a project recipe (one may take a
            // built-in recipe's name) judges its own steps, which rein does not vouch for.
            let recipe_is_project = run.call.actor().is_some_and(|recipe| recipe.origin() == Origin::Project);
            let by_project = recipe_is_project || tools.iter().any(|t| t.is_project_code());
            for tool in tools {
                if !report.tools.contains(&tool) {
                    report.tools.push(tool);
                }
            }
            let duration_ms = attempt_started.elapsed().as_millis() as u64;
            let failure = match outcome {
                Outcome::Ended { output, evidence, verified } => {
                    // A verify passing on what project code returned proves nothing rein can vouch for.
                    let (attempt, step) = match (verified, by_project) {
                        (true, false) => (AttemptStatus::Verified, StepStatus::Verified),
                        (true, true) => (AttemptStatus::Claimed, StepStatus::Claimed),
                        (false, _) => (AttemptStatus::Done, StepStatus::Done),
                    };
                    report.attempts.push(Attempt { number, status: attempt, duration_ms, failure: None });
                    report.status = step;
                    report.output = output;
                    report.evidence = evidence;
                    report.duration_ms = started.elapsed().as_millis() as u64;
                    return report;
                }
                Outcome::Failed(failure) | Outcome::Stopped(failure) => failure,
            };
            if let Some(output) = failure.details.get("output").filter(|_| failure.code == Code::VerifyFailed) {
                // What a step produced stays visible even when its verify refused it.
                report.output = output.clone();
            }
            let stopped = matches!(failure.code, Code::Cancelled | Code::BudgetExceeded);
            let summary = summarise(&step.name, &failure, &entries);
            self.roll_back(&run.call, &entries, &mut report);
            report.attempts.push(Attempt {
                number,
                status: AttemptStatus::Failed,
                duration_ms,
                failure: Some(summary.clone()),
            });
            if stopped {
                report.status =
                    if failure.code == Code::Cancelled { StepStatus::Cancelled } else { StepStatus::Failed };
                break;
            }
            let signature = format!("{}@{}", summary.code, summary.location.clone().unwrap_or_default());
            if last_signature.as_deref() == Some(signature.as_str()) {
                // Stop-loss: the same failure twice in a row will not fix itself.
                break;
            }
            last_signature = Some(signature);
        }
        report.duration_ms = started.elapsed().as_millis() as u64;
        report
    }

    async fn attempt(
        &mut self,
        run: &Run<'_>,
        call: Call,
        step: &Try<'_>,
        outputs: &Value,
    ) -> (Outcome, Vec<Attachment>) {
        let lua = self.runtime.lua().clone();
        let ctx = match make_ctx(&lua, run.args, outputs, &step.spec.name, run.run_id, step.number) {
            Ok(ctx) => ctx,
            Err(e) => {
                let failure = Failure::new(Code::LuaError, format!("cannot build the step context: {e}"));
                return (Outcome::Failed(failure), Vec::new());
            }
        };
        let outcome = self.attempt_with(run, call, step, ctx.clone()).await;
        (outcome, attachments_of(&ctx))
    }

    async fn attempt_with(&mut self, run: &Run<'_>, call: Call, step: &Try<'_>, ctx: Table) -> Outcome {
        let step_limit = step.spec.timeout_s.map(Duration::from_secs);
        let budget_left = run.deadline.map(|d| d.saturating_duration_since(Instant::now()));
        let (limit, is_budget) = match (step_limit, budget_left) {
            (Some(s), Some(b)) if b < s => (Some(b), true),
            (Some(s), _) => (Some(s), false),
            (None, Some(b)) => (Some(b), true),
            (None, None) => (None, false),
        };
        let wall_time = limit.unwrap_or(STEP_WALL_TIME);
        // The run's caller cancels through the call's token (Ctrl-C, an MCP cancel, an
        // embedder's own); a script in the VM sees it at its next budget check, a step waiting
        // on a program is dropped here.
        let cancel = call.cancel_token().cloned();
        let time_budget = self.spec.budget.time_s.unwrap_or_default();
        let work = self.execute(call, step, ctx, wall_time);
        let timer = async {
            match limit {
                Some(limit) => tokio::time::sleep(limit).await,
                None => std::future::pending().await,
            }
        };
        let cancelled = async {
            match &cancel {
                Some(token) => token.cancelled().await,
                None => std::future::pending().await,
            }
        };
        let outcome = tokio::select! {
            // A run cancelled between steps starts no more of them.
            biased;
            _ = cancelled => Outcome::Stopped(Failure::new(Code::Cancelled, "the run was cancelled; the step's processes were stopped and its changes rolled back")),
            outcome = work => return outcome,
            _ = timer => if is_budget {
                Outcome::Stopped(Failure::new(Code::BudgetExceeded, format!("the recipe's time budget of {time_budget} s is spent")).with_details(json!({"limit": "time"})))
            } else {
                Outcome::Failed(Failure::new(Code::Timeout, format!("step {} ran longer than its timeout_s", step.spec.name)))
            },
        };
        // The step's future was dropped mid-way: its processes were killed by their guards,
        // and the runtime put the Lua state back as its work was dropped (lua::runtime).
        outcome
    }

    async fn execute(&mut self, call: Call, step: &Try<'_>, ctx: Table, wall_time: Duration) -> Outcome {
        let lua = self.runtime.lua().clone();
        let output = match self.runtime.call_function(call.clone(), &step.code.run, ctx.clone(), wall_time).await {
            Ok(values) => values.into_iter().next().unwrap_or(Value::Null),
            Err(failure) => return outcome_of(failure),
        };
        let mut evidence = evidence_of(&ctx);
        let Some(verify) = &step.code.verify else {
            return Outcome::Ended { output, evidence, verified: false };
        };
        let out = convert::json_to_lua(&lua, &output).unwrap_or(mlua::Value::Nil);
        let verdict = match self.runtime.call_function(call, verify, (ctx.clone(), out), wall_time).await {
            Ok(values) => read_verdict(&step.spec.name, values),
            Err(failure) => return outcome_of(failure),
        };
        match verdict {
            Ok(said) => evidence.extend(said),
            Err(failure) => {
                let mut details = failure.details.clone();
                details["output"] = output;
                return Outcome::Failed(failure.with_details(details));
            }
        }
        evidence = merge(evidence, evidence_of(&ctx));
        Outcome::Ended { output, evidence, verified: true }
    }

    /// Puts back what the attempt changed (the restore is journaled as part of the run, not of
    /// the attempt).
    fn roll_back(&self, call: &Call, entries: &[Entry], report: &mut StepReport) {
        let changes = net_changes(entries);
        if changes.is_empty() {
            return;
        }
        // rein's own act, not the recipe's: a recipe that only adds may still have its additions
        // taken back.
        match self.kernel.restore(&call.reins_own(), &changes, false) {
            Ok(restored) => {
                report.rolled_back.extend(restored.into_iter().map(|r| format!("{} ({})", r.path, r.action)))
            }
            Err(err) => report.rolled_back.push(format!("rollback refused: {err}")),
        }
        report.files.retain(|f| !changes.iter().any(|c| c.path == f.path));
    }
}

fn outcome_of(failure: Failure) -> Outcome {
    if failure.code == Code::Cancelled {
        Outcome::Stopped(failure)
    } else {
        Outcome::Failed(failure)
    }
}

fn merge(mut a: Vec<String>, b: Vec<String>) -> Vec<String> {
    for item in b {
        if !a.contains(&item) {
            a.push(item);
        }
    }
    a
}

fn skipped_step(name: &str, status: StepStatus) -> StepReport {
    StepReport {
        name: name.to_string(),
        status,
        duration_ms: 0,
        attempts: Vec::new(),
        output: Value::Null,
        evidence: Vec::new(),
        commands: Vec::new(),
        approvals: Vec::new(),
        files: Vec::new(),
        rolled_back: Vec::new(),
        tools: Vec::new(),
        attachments: Vec::new(),
    }
}

/// The outputs of the steps so far, by name.
fn outputs_of(report: &Report) -> Value {
    Value::Object(report.steps.iter().map(|s| (s.name.clone(), s.output.clone())).collect())
}

fn new_run_id() -> String {
    let now = humantime::format_rfc3339_millis(SystemTime::now()).to_string();
    format!("{}-{}", now.replace([':', '-', '.'], "").trim_end_matches('Z'), std::process::id() % 100_000)
}
