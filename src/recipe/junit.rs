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

use crate::visible::line;
use std::fmt::Write as _;

use super::markup::escape;
use super::report::{Report, StepReport, StepStatus};
use super::wording;

impl Report {
    /// The run as a JUnit XML document.
    pub fn to_junit(&self) -> String {
        let failures = self.steps.iter().filter(|s| s.status == StepStatus::Failed).count();
        let cancelled = self.steps.iter().filter(|s| s.status == StepStatus::Cancelled).count();
        let skipped = self.steps.iter().filter(|s| s.status == StepStatus::Skipped).count();
        let name = escape(&format!("{} {}", self.recipe, self.run_id));
        let (tests, time) = (self.steps.len(), seconds(self.duration_ms));
        let mut xml = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            xml,
            "<testsuites name=\"rein\" tests=\"{tests}\" failures=\"{failures}\" errors=\"{cancelled}\" time=\"{time}\">"
        );
        let _ = writeln!(
            xml,
            "  <testsuite name=\"{name}\" id=\"{}\" package=\"{}\" tests=\"{tests}\" failures=\"{failures}\" \
             errors=\"{cancelled}\" skipped=\"{skipped}\" time=\"{time}\" timestamp=\"{}\">",
            escape(&self.run_id),
            escape(&self.recipe),
            escape(&self.started)
        );
        xml.push_str("    <properties>\n");
        for (key, value) in [
            ("recipe", self.recipe.clone()),
            ("run_id", self.run_id.clone()),
            ("status", self.status.to_string()),
            ("arguments", wording::arguments(&self.args)),
        ] {
            let _ = writeln!(xml, "      <property name=\"{key}\" value=\"{}\"/>", escape(&value));
        }
        xml.push_str("    </properties>\n");
        for step in &self.steps {
            self.testcase(&mut xml, step);
        }
        xml.push_str("  </testsuite>\n</testsuites>\n");
        xml
    }

    fn testcase(&self, xml: &mut String, step: &StepReport) {
        let _ = writeln!(
            xml,
            "    <testcase name=\"{}\" classname=\"{}\" time=\"{}\">",
            escape(&line(&step.name)),
            escape(&format!("rein.{}", self.recipe)),
            seconds(step.duration_ms)
        );
        match step.status {
            StepStatus::Failed | StepStatus::Cancelled => self.failure(xml, step),
            StepStatus::Skipped => {
                let _ = writeln!(xml, "      <skipped message=\"{}\"/>", escape(&wording::skipped(self)));
            }
            _ => {}
        }
        let out = system_out(self, step);
        if !out.is_empty() {
            let _ = writeln!(xml, "      <system-out>{}</system-out>", escape(&out));
        }
        xml.push_str("    </testcase>\n");
    }

    /// `<failure>` (a step that failed) or `<error>` (a cancelled run), with the code as its
    /// type, the message, and where and what to do in its text.
    fn failure(&self, xml: &mut String, step: &StepReport) {
        let element = if step.status == StepStatus::Cancelled { "error" } else { "failure" };
        let summary = self.failure.as_ref().filter(|f| f.step == step.name);
        let (code, message) = match summary {
            Some(f) => (f.code.as_str().to_string(), f.message.clone()),
            None => (step.status.to_string(), format!("step {} {}", line(&step.name), step.status)),
        };
        // Text from the run stays on its line (visible::line): it cannot add lines of its own.
        let mut text = format!("{code}: {}\n", line(&message));
        if let Some(f) = summary {
            if let Some(location) = &f.location {
                let _ = writeln!(text, "where: {}", line(location));
            }
            if let Some(remedy) = &f.remedy {
                let _ = writeln!(text, "what to do: {}", line(remedy));
            }
            if let Some(command) = &f.command {
                let _ = writeln!(text, "command: {command}");
            }
            text.push_str(&super::details_md::render(&f.details));
        }
        let _ = writeln!(
            xml,
            "      <{element} type=\"{}\" message=\"{}\">{}</{element}>",
            escape(&code),
            escape(&message),
            escape(&text)
        );
    }
}

/// What proves the step, what it ran and who allowed it, and the files it saved.
fn system_out(report: &Report, step: &StepReport) -> String {
    let mut out = String::new();
    if step.status == StepStatus::Claimed {
        let _ = writeln!(out, "status: {}", step.status);
    }
    if report.names_tools() && !step.tools.is_empty() {
        let _ = writeln!(out, "{}", wording::served_tools(&step.tools, false));
    }
    for evidence in &step.evidence {
        let _ = writeln!(out, "evidence: {}", line(evidence));
    }
    for attachment in &step.attachments {
        let _ = writeln!(out, "{}: {}", wording::attachment_kind(attachment), line(&attachment.path));
    }
    for approval in &step.approvals {
        let by = wording::decider(&approval.decided_by);
        let _ = writeln!(out, "approval: {} {} allowed by {by}", approval.action, line(&approval.target));
    }
    for command in &step.commands {
        let _ = writeln!(out, "{}", wording::command(command));
    }
    for file in &step.files {
        let _ = writeln!(out, "changed: {}", line(&file.path));
    }
    if !out.is_empty() {
        let _ = writeln!(out, "report: {}/{}/report.html", super::report::RUNS_DIR, report.run_id);
    }
    out
}

/// Milliseconds as JUnit's seconds (`41.700`).
fn seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}
