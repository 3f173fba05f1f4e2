//! Recipes for people: `--explain` as a plan (parameters, budget, each step and what it may
//! ask), and `rein runs list`. Names and descriptions come from recipe files an agent may
//! write: each is shown on its one line (`visible::line`), so none adds lines of its own.

use serde_json::Value;

use rein::visible::line;
use rein::{Report, RunSummary};

use super::style::{paint, status, DIM, HEAD};
use super::text::scalar_text;
use crate::cli::screen::say;

/// The plan `Host::explain_recipe` gives, as text.
pub fn explain(plan: &Value) {
    let name = line(plan["recipe"].as_str().unwrap_or_default());
    say!("{} — {}", paint(HEAD, format!("recipe {name}")), line(plan["description"].as_str().unwrap_or("")));
    params(&plan["params"]);
    let budget = &plan["budget"];
    let mut limits = Vec::new();
    if let Some(s) = budget["time_s"].as_u64() {
        limits.push(format!("{s} s"));
    }
    if let Some(n) = budget["spawns"].as_u64() {
        limits.push(format!("{n} programs"));
    }
    if !limits.is_empty() {
        say!("budget: {}", limits.join(", "));
    }
    say!("steps:");
    let steps = plan["steps"].as_array().cloned().unwrap_or_default();
    let width = steps.iter().filter_map(|s| s["name"].as_str()).map(str::len).max().unwrap_or(0);
    for (i, step) in steps.iter().enumerate() {
        let mut notes = Vec::new();
        // Whether a verify will check it, not that anything was verified: nothing ran yet.
        notes.push(
            if step["verified"] == Value::Bool(true) { "checked by its verify" } else { "no verify" }.to_string(),
        );
        match step["retry_max"].as_u64() {
            Some(0) | None => {}
            Some(1) => notes.push("1 retry".into()),
            Some(n) => notes.push(format!("{n} retries")),
        }
        if let Some(t) = step["timeout_s"].as_u64() {
            notes.push(format!("timeout {t} s"));
        }
        let asks: Vec<String> =
            step["approvals"].as_array().into_iter().flatten().map(|a| line(&scalar_text(a)).into_owned()).collect();
        if !asks.is_empty() {
            notes.push(format!("may ask a person: {}", asks.join(", ")));
        }
        let name = line(step["name"].as_str().unwrap_or_default());
        say!("  {}. {name:<width$}  {}", i + 1, paint(DIM, notes.join(" · ")));
    }
    let with_args = if plan["params"]["properties"].as_object().is_some_and(|p| !p.is_empty()) {
        " followed by its params as a JSON object"
    } else {
        ""
    };
    say!("nothing ran; run it with `rein recipe {name}`{with_args}");
}

/// The parameters of a JSON Schema object: name, type, required or default, description.
fn params(schema: &Value) {
    let Some(properties) = schema["properties"].as_object().filter(|p| !p.is_empty()) else {
        say!("params: none");
        return;
    };
    let required: Vec<&str> = schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
    say!("params:");
    let rows: Vec<(String, String, String)> = properties
        .iter()
        .map(|(name, param)| {
            let kind = param["type"].as_str().unwrap_or("any");
            let need = match param.get("default") {
                Some(default) => format!("default {}", line(&scalar_text(default))),
                None if required.contains(&name.as_str()) => "required".to_string(),
                None => "optional".to_string(),
            };
            let description = line(param["description"].as_str().unwrap_or("")).into_owned();
            (line(name).into_owned(), format!("{}, {need}", line(kind)), description)
        })
        .collect();
    let name_width = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
    let kind_width = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
    for (name, kind, description) in rows {
        say!("  {}", format!("{name:<name_width$}  {kind:<kind_width$}  {description}").trim_end());
    }
}

/// `rein runs list`: a line per run, oldest first.
pub fn runs(list: &[RunSummary]) {
    if list.is_empty() {
        say!("no runs yet in this workspace; `rein recipe NAME` starts one");
        return;
    }
    // Widths from what is listed: a run id's pid part and a recipe's name vary in length.
    let id_width = list.iter().map(|r| line(&r.run_id).chars().count()).max().unwrap_or(0);
    let recipe_width = list.iter().map(|r| line(&r.recipe).chars().count()).max().unwrap_or(0);
    let status_width = list.iter().map(|r| r.status.to_string().len()).max().unwrap_or(0);
    for r in list {
        let text = r.status.to_string();
        let pad = " ".repeat(status_width - text.len());
        let time = format!("{:.1} s", r.duration_ms as f64 / 1000.0);
        let (id, recipe) = (line(&r.run_id), line(&r.recipe));
        say!("{id:<id_width$}  {recipe:<recipe_width$}  {}{pad}  {time:>8}", status(&text));
    }
}

/// A run that succeeded, in short: the verdict, its steps one a line, where the report is.
pub fn summary(report: &Report, saved: &str) {
    say!(
        "{} {} in {:.1} s",
        paint(HEAD, format!("recipe {}", line(&report.recipe))),
        status(&report.status.to_string()),
        report.duration_ms as f64 / 1000.0
    );
    if let Some(source) = report.source_line() {
        say!("{}", line(&source));
    }
    let width = report.steps.iter().map(|s| line(&s.name).chars().count()).max().unwrap_or(0);
    let status_width = report.steps.iter().map(|s| s.status.to_string().len()).max().unwrap_or(0);
    for (i, step) in report.steps.iter().enumerate() {
        let text = step.status.to_string();
        let pad = " ".repeat(status_width - text.len());
        let name = line(&step.name);
        say!("  {}. {name:<width$}  {}{pad}  {:.1} s", i + 1, status(&text), step.duration_ms as f64 / 1000.0);
    }
    say!("report: {} (the whole of it: -v, or `rein runs show {}`)", line(saved), line(&report.run_id));
}
