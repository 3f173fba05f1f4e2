//! `rein recipe`, `rein runs`, `rein undo`.

use serde_json::json;

use rein::recipe::report::Report;
use rein::recipe::retention::{self, Retention};
use rein::recipe::runs;
use rein::{Code, Failure, Host};

use super::args::RunsAction;
use super::output::Output;
use crate::kernel::files::names::shown;

pub fn run(host: &Host, out: &Output, name: &str, args: Option<&str>, explain: bool, from: Option<String>) -> u8 {
    if explain {
        return match host.explain_recipe(name) {
            Ok(plan) if out.json => out.success(&plan),
            Ok(plan) => {
                super::render::recipe::explain(&plan);
                0
            }
            Err(failure) => out.failure(&failure),
        };
    }
    let args = match super::parse_args(args) {
        Ok(args) => args,
        Err(failure) => return out.failure(&failure),
    };
    match host.run_recipe_showing(name, args, from, true, super::progress::terminal_progress()) {
        Ok(report) => finished(host, out, &report),
        Err(failure) => out.failure(&failure),
    }
}

fn finished(host: &Host, out: &Output, report: &Report) -> u8 {
    let workspace = host.workspace();
    match report.as_failure(workspace) {
        None if out.json => out.success(&report.summary(workspace)),
        None => {
            print!("{}", report.to_markdown());
            eprintln!("report: {}", shown(report.path(workspace).with_extension("md")));
            0
        }
        Some(failure) => {
            if !out.json {
                print!("{}", report.to_markdown());
            }
            out.failure(&failure)
        }
    }
}

pub fn runs(host: &Host, out: &Output, action: &RunsAction) -> u8 {
    match action {
        RunsAction::List => {
            let list = runs::summaries(host.workspace());
            if out.json {
                return out.success(&json!({"runs": list}));
            }
            super::render::recipe::runs(&list);
            0
        }
        RunsAction::Show { run_id } => {
            match run_named(host, run_id).and_then(|id| Ok(Report::load(host.workspace(), &id)?)) {
                Ok(report) if out.json => out.success(&report),
                Ok(report) => {
                    print!("{}", report.to_markdown());
                    0
                }
                Err(err) => out.failure(&err),
            }
        }
        RunsAction::Prune { keep_runs, keep_days } => {
            let retention = Retention { runs: *keep_runs, days: *keep_days };
            match retention::collect(host.kernel(), retention) {
                Ok(collected) if out.json => out.success(&json!({"retention": retention, "collected": collected})),
                Ok(collected) => {
                    println!(
                        "removed {} saved copies ({} bytes), kept {}",
                        collected.removed.len(),
                        collected.bytes_freed,
                        collected.kept
                    );
                    0
                }
                Err(failure) => out.failure(&failure),
            }
        }
    }
}

/// A run id as given, or the latest run's for `last`.
fn run_named(host: &Host, run_id: &str) -> Result<String, Failure> {
    if run_id != "last" {
        return Ok(run_id.to_string());
    }
    match runs::summaries(host.workspace()).pop() {
        Some(latest) => Ok(latest.run_id),
        None => Err(Failure::new(
            Code::InvalidArgs,
            "there are no runs yet in this workspace; `rein recipe NAME` starts one",
        )),
    }
}

pub fn undo(host: &Host, out: &Output, run_id: &str, force: bool) -> u8 {
    let run_id = match run_named(host, run_id) {
        Ok(id) => id,
        Err(failure) => return out.failure(&failure),
    };
    let run_id = run_id.as_str();
    let report = match Report::load(host.workspace(), run_id) {
        Ok(report) => report,
        Err(err) => return out.failure(&Failure::from(err)),
    };
    match host.kernel().restore(&host.new_call(), &report.file_changes(), force) {
        Ok(restored) if out.json => out.success(&json!({"run_id": run_id, "restored": restored})),
        Ok(restored) => {
            for r in restored {
                println!("{} {}", r.action, r.path);
            }
            0
        }
        Err(err) => {
            let mut failure = Failure::from(err);
            if failure.code == Code::StaleFile {
                failure.message = changed_since(run_id, &failure.details);
            }
            out.failure(&failure)
        }
    }
}

/// Why `undo` refused a file changed after the run, and what to do about it.
fn changed_since(run_id: &str, details: &serde_json::Value) -> String {
    let path = details["path"].as_str().unwrap_or("a file");
    let now = match details["actual_sha256"].as_str() {
        Some(sha) => format!(
            "its sha256 is now {}…, the run left {}…",
            &sha[..sha.len().min(12)],
            short(&details["expected_sha256"])
        ),
        None => "it was deleted".to_string(),
    };
    format!(
        "{path} changed after run {run_id} ({now}), so nothing was restored. Look at it first (`rein runs show {run_id}` \
         shows what the run did): to keep the later change, revert by hand only what the run did; to throw the later \
         change away and put back every file as it was before the run, run `rein undo {run_id} --force`."
    )
}

fn short(sha: &serde_json::Value) -> String {
    sha.as_str().map(|s| s.chars().take(12).collect()).unwrap_or_default()
}
