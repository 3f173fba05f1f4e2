//! `rein recipe`, `rein runs`, `rein undo`.

use serde_json::json;

use rein::recipe::report::Report;
use rein::recipe::retention::{self, Retention};
use rein::recipe::runs;
use rein::{Code, Failure, Host};

use super::args::RunsAction;
use super::output::Output;

pub fn run(host: &Host, out: &Output, name: &str, args: Option<&str>, explain: bool, from: Option<String>) -> u8 {
    if explain {
        return match host.explain_recipe(name) {
            Ok(plan) if out.json => out.success(&plan),
            Ok(plan) => {
                println!("{}", serde_json::to_string_pretty(&plan).unwrap_or_default());
                0
            }
            Err(failure) => out.failure(&failure),
        };
    }
    let args = match super::parse_args(args) {
        Ok(args) => args,
        Err(failure) => return out.failure(&failure),
    };
    match host.run_recipe(name, args, from, true) {
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
            eprintln!("report: {}", report.path(workspace).with_extension("md").display());
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
            for r in list {
                println!("{}  {:<24} {:<10} {:.1} s", r.run_id, r.recipe, r.status, r.duration_ms as f64 / 1000.0);
            }
            0
        }
        RunsAction::Show { run_id } => match Report::load(host.workspace(), run_id) {
            Ok(report) if out.json => out.success(&report),
            Ok(report) => {
                print!("{}", report.to_markdown());
                0
            }
            Err(err) => out.failure(&Failure::from(err)),
        },
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

pub fn undo(host: &Host, out: &Output, run_id: &str, force: bool) -> u8 {
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
                failure.message = format!("{} Nothing was restored; pass --force to restore anyway.", failure.message);
            }
            out.failure(&failure)
        }
    }
}
