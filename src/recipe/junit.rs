//! A run as JUnit XML, for CI: one `<testsuite>` per run, one `<testcase>` per step with its
//! time, a `<failure>` with the failed step's code, message, location and remedy, `<skipped>`
//! for the steps that did not run, and the step's evidence (what proved it, the programs it
//! ran and who allowed them, the files it saved) in `<system-out>`.
//!
//! The shape is the one CI systems read: the JUnit schema Jenkins' xUnit plugin validates
//! against (jenkinsci/xunit-plugin `src/main/resources/org/jenkinsci/plugins/xunit/types/model/
//! xsd/junit-10.xsd`, the copy pytest checks its own output with in
//! `testing/example_scripts/junit-10.xsd`); `tests/run_report_formats.rs` validates against it
//! with xmllint. Times are seconds with three decimals (its `SUREFIRE_TIME`).
//!
//! Text from outside rein goes through `markup::text` (one line, escaped); the report's
//! sentences through `markdown_text::plain`.

use std::fmt::Write as _;

use super::markdown_text::plain;
use super::markup::{escape, text as outside};
use super::report::{Report, StepReport, StepStatus};
use super::wording;

impl Report {
    /// The run as a JUnit XML document.
    pub fn to_junit(&self) -> String {
        let failures = self.steps.iter().filter(|s| s.status == StepStatus::Failed).count();
        let cancelled = self.steps.iter().filter(|s| s.status == StepStatus::Cancelled).count();
        let skipped = self.steps.iter().filter(|s| s.status == StepStatus::Skipped).count();
        let name = outside(&format!("{} {}", self.recipe, self.run_id));
        let flows = super::flow_section::junit_counts(self);
        let (tests, time) = (self.steps.len() + flows.tests, seconds(self.duration_ms));
        let (failures, skipped) = (failures + flows.failures, skipped + flows.skipped);
        // `<testsuites>` counts every testcase below it: the steps' suite and the project's.
        let (project_tests, project_failures, project_errors) = super::tests_section_junit::totals(&self.tests);
        let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            xml,
            "<testsuites name=\"rein\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{time}\">",
            tests + project_tests,
            failures + project_failures,
            cancelled + project_errors
        );
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{name}\" id=\"{}\" package=\"{}\" tests=\"{tests}\" failures=\"{failures}\" \
             errors=\"{cancelled}\" skipped=\"{skipped}\" time=\"{time}\" timestamp=\"{}\">",
            outside(&self.run_id),
            outside(&self.recipe),
            outside(&self.started)
        );
        xml.push_str("    <properties>\n");
        for (key, value) in [
            ("recipe", self.recipe.clone()),
            ("run_id", self.run_id.clone()),
            ("status", self.status.to_string()),
            ("arguments", wording::arguments(&self.args)),
        ] {
            let _ = writeln!(xml, "      <property name=\"{key}\" value=\"{}\"/>", outside(&value));
        }
        xml.push_str("    </properties>\n");
        for step in &self.steps {
            self.testcase(&mut xml, step);
            super::flow_section::junit_cases(&mut xml, self, step);
        }
        xml.push_str("  </testsuite>\n");
        xml.push_str(&super::tests_section_junit::render(&self.tests, &self.started));
        xml.push_str("</testsuites>\n");
        xml
    }

    fn testcase(&self, xml: &mut String, step: &StepReport) {
        let _ = writeln!(
            xml,
            "    <testcase name=\"{}\" classname=\"{}\" time=\"{}\">",
            outside(&step.name),
            outside(&format!("rein.{}", self.recipe)),
            seconds(step.duration_ms)
        );
        match step.status {
            StepStatus::Failed | StepStatus::Cancelled => self.failure(xml, step),
            StepStatus::Skipped => {
                let _ = writeln!(xml, "      <skipped message=\"{}\"/>", outside(&wording::skipped(self)));
            }
            _ => {}
        }
        let out = system_out(self, step);
        if !out.is_empty() {
            let _ = writeln!(xml, "      <system-out>{out}</system-out>");
        }
        xml.push_str("    </testcase>\n");
    }

    /// `<failure>` (a step that failed) or `<error>` (a cancelled run), with the code as its
    /// type, the message, and where and what to do in its text.
    fn failure(&self, xml: &mut String, step: &StepReport) {
        let element = if step.status == StepStatus::Cancelled { "error" } else { "failure" };
        let summary = self.failure.as_ref().filter(|f| f.step == step.name);
        let (code, message) = match summary {
            Some(f) => (f.code.as_str().to_string(), outside(&f.message)),
            None => (step.status.to_string(), outside(&format!("step {} {}", step.name, step.status))),
        };
        // Each line escaped on its own: the element's text keeps rein's line breaks only.
        let mut text = format!("{code}: {message}\n");
        if let Some(f) = summary {
            if let Some(location) = &f.location {
                let _ = writeln!(text, "where: {}", outside(location));
            }
            if let Some(remedy) = &f.remedy {
                let _ = writeln!(text, "what to do: {}", outside(remedy));
            }
            if let Some(command) = &f.command {
                let _ = writeln!(text, "command: {}", outside(command));
            }
            // report.md's lines, whose outside text markdown_text kept on its line.
            text.push_str(&escape(&super::details_md::render(&f.details)));
        }
        let _ = writeln!(xml, "      <{element} type=\"{}\" message=\"{message}\">{text}</{element}>", escape(&code));
    }
}

/// What proves the step, what it ran and who allowed it, and the files it saved: a line each,
/// escaped.
fn system_out(report: &Report, step: &StepReport) -> String {
    let mut out = String::new();
    if step.status == StepStatus::Claimed {
        let _ = writeln!(out, "status: {}", step.status);
    }
    if report.names_tools() && !step.tools.is_empty() {
        let _ = writeln!(out, "{}", escape(&plain(&wording::served_tools(&step.tools))));
    }
    for line in &step.evidence {
        let _ = writeln!(out, "evidence: {}", outside(line));
    }
    for attachment in &step.attachments {
        let _ =
            writeln!(out, "{}: {}", escape(&plain(&wording::attachment_kind(attachment))), outside(&attachment.path));
    }
    for approval in &step.approvals {
        let by = plain(&wording::decider(&approval.decided_by));
        let _ = writeln!(out, "approval: {} {} allowed by {}", approval.action, outside(&approval.target), escape(&by));
    }
    for command in &step.commands {
        let _ = writeln!(out, "{}", escape(&plain(&wording::command(command))));
    }
    for file in &step.files {
        let _ = writeln!(out, "changed: {}", outside(&file.path));
    }
    if !out.is_empty() {
        let _ = writeln!(out, "report: {}/{}/report.html", super::report::RUNS_DIR, outside(&report.run_id));
    }
    out
}

/// Milliseconds as JUnit's seconds (`41.700`).
fn seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}
