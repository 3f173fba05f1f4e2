//! `rein recipe`, `rein runs`, `rein undo`.

use serde_json::json;

use rein::{CancellationToken, Failure, Host, RecipeOptions, Report, Retention};

use super::args::{ReportFormat, RunsAction};
use super::output::Output;
use super::screen::{say, tell};

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
    match run_at_terminal(host, name, args, RecipeOptions { from }) {
        Ok(report) => finished(host, out, &report),
        Err(failure) => out.failure(&failure),
    }
}

/// Runs the recipe showing its steps on stderr; Ctrl-C (or SIGTERM, SIGHUP) cancels it
/// cleanly: its programs stopped, the step rolled back, the report still written.
fn run_at_terminal(host: &Host, name: &str, args: serde_json::Value, opts: RecipeOptions) -> Result<Report, Failure> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::new(rein::Code::IoError, format!("cannot start the async runtime: {e}")))?;
    runtime.block_on(async {
        let cancel = CancellationToken::new();
        // Installed before the recipe starts, not when the task first runs (after it may have).
        let signals = rein::StopSignals::install();
        if let Err(e) = &signals {
            tell!("warning: Ctrl-C will not stop the recipe cleanly: its handlers could not be installed ({e})");
        }
        let stop = {
            let cancel = cancel.clone();
            tokio::spawn(async move {
                if let Ok(mut signals) = signals {
                    signals.recv().await;
                    cancel.cancel();
                }
            })
        };
        let call = host.new_call().with_listener(super::progress::terminal_progress()).with_cancel(cancel);
        let report = host.run_recipe_with(call, name, args, opts).await;
        stop.abort();
        report
    })
}

fn finished(host: &Host, out: &Output, report: &Report) -> u8 {
    let workspace = host.workspace();
    match report.as_failure(workspace) {
        None if out.json => out.success(&report.summary(workspace)),
        None => {
            // A run that went well needs no reading: its steps and where the report is; the
            // whole report (each command, what allowed it) with -v or `rein runs show`.
            let saved = rein::visible::path(report.path(workspace).with_extension("md"));
            if out.verbose {
                super::screen::print(&report.to_markdown());
                tell!("report: {saved}");
            } else {
                super::render::recipe::summary(report, &saved);
            }
            0
        }
        Some(failure) if out.json => out.failure(&failure),
        Some(failure) => {
            // The report on stdout says what failed and what to do; stderr only points at it.
            super::screen::print(&report.to_markdown());
            let code = report.failure.as_ref().map_or(String::new(), |f| format!(" {}", f.code));
            let saved = report.path(workspace).with_extension("md");
            // Pointing at the report's advice only where it has some ("what to do"); else the
            // failure's own words (a person's no: which command, refused by whom).
            let line = match &report.failure {
                Some(f) if f.remedy.is_none() => format!("{}{code}: {}", report.failed_at(), f.message),
                _ => format!("{}{code}; the report above says what to do.", report.failed_at()),
            };
            let line =
                super::output::with_yes_hint(Failure::new(failure.code.clone(), line).with_details(failure.details));
            super::render::failure_line(&line.code, &line.message);
            super::render::traceback(&line.details, out.verbose);
            tell!("report: {}", rein::visible::path(&saved));
            1
        }
    }
}

pub fn runs(host: &Host, out: &Output, action: &RunsAction) -> u8 {
    match action {
        RunsAction::List => {
            let list = host.runs();
            if out.json {
                return out.success(&json!({"runs": list}));
            }
            super::render::recipe::runs(&list);
            0
        }
        RunsAction::Show { run_id, format } => match host.run_report(run_id) {
            // Without --format: report.md for people, the report itself for --json.
            Ok(report) if format.is_none() && out.json => out.success(&report),
            // `--json` prints one JSON object, whatever the form asked for: the report itself,
            // or the form's text inside it (a CI step reads `.result.text` for the JUnit).
            Ok(report) if out.json => match text_form(host, &report, &format.unwrap_or(ReportFormat::Md)) {
                None => out.success(&report),
                Some(text) => {
                    let name =
                        format.as_ref().and_then(clap::ValueEnum::to_possible_value).map(|v| v.get_name().to_string());
                    out.success(&json!({"run_id": report.run_id, "format": name, "text": text}))
                }
            },
            Ok(report) => {
                // Every form escapes what the run recorded for where it goes (markup::escape
                // for the page and the XML), and the screen what a terminal would act on.
                match text_form(host, &report, &format.unwrap_or(ReportFormat::Md)) {
                    Some(text) => super::screen::print(&text),
                    None => say!("{}", super::screen::json_pretty(&report)),
                }
                0
            }
            Err(failure) => out.failure(&failure),
        },
        RunsAction::Prune { keep_runs, keep_days } => {
            let retention = Retention { runs: *keep_runs, days: *keep_days };
            match host.prune_runs(retention) {
                Ok(collected) if out.json => out.success(&json!({"retention": retention, "collected": collected})),
                Ok(collected) => {
                    say!(
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

/// The report in `format` when that form is text (Markdown, the page, JUnit XML); `None` for
/// JSON, which is the report itself.
fn text_form(host: &Host, report: &Report, format: &ReportFormat) -> Option<String> {
    match format {
        ReportFormat::Md => Some(report.to_markdown()),
        ReportFormat::Json => None,
        ReportFormat::Html => Some(host.run_report_page(report)),
        ReportFormat::Junit => Some(report.to_junit()),
    }
}

pub fn undo(host: &Host, out: &Output, run_id: &str, force: bool) -> u8 {
    match host.undo(run_id, force) {
        Ok(undone) if out.json => out.success(&undone),
        Ok(undone) => {
            if undone.restored.is_empty() {
                say!("run {} changed no file of the workspace: nothing to undo", undone.run_id);
                return 0;
            }
            say!("undid run {}, latest change first:", undone.run_id);
            for r in undone.restored {
                say!("  {} {}", r.action, r.path);
            }
            0
        }
        Err(failure) => out.failure(&failure),
    }
}
