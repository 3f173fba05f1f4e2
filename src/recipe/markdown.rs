//! report.md, for a reviewer: how the run ended and why, each step's status (verified, or done
//! without a verify to prove it), every program a step ran and how it ended, who allowed or
//! refused it, the files changed and the evidence. It never says more than the report holds.
//! Every text that comes from outside rein goes through `markdown_text`: it never makes
//! structure of its own.

use super::markdown_text::{code, text};
use super::report::{Report, StepReport, StepStatus};
use super::wording;

impl Report {
    /// Where the recipe's code came from, as one plain line for a terminal (what report.md says
    /// under its title); none for rein's own recipes.
    pub fn source_line(&self) -> Option<String> {
        let source = self.source.as_ref().filter(|s| s.origin != crate::kernel::Origin::BuiltIn.to_string())?;
        Some(super::markdown_text::plain(&super::wording::recipe_source(source)).trim().to_string())
    }

    /// The report as `report.md` shows it to a reviewer.
    pub fn to_markdown(&self) -> String {
        let mut md = format!("# rein run {} — {}: **{}**\n\n", text(&self.run_id), code(&self.recipe), self.status);
        md.push_str(&format!(
            "Started {}, took {:.1} s. Arguments: {}\n\n",
            text(&self.started),
            self.duration_ms as f64 / 1000.0,
            text(&wording::arguments(&self.args))
        ));
        if let Some(source) = &self.source {
            md.push_str(&wording::recipe_source(source));
        }
        md.push_str(&super::tests_section_md::render(&self.tests));
        if let Some(f) = &self.failure {
            md.push_str(&format!("**Failed at step {}**: {} — {}\n", code(&f.step), f.code, text(&f.message)));
            if let Some(location) = &f.location {
                md.push_str(&format!("- where: {}\n", text(location)));
            }
            if let Some(remedy) = &f.remedy {
                md.push_str(&format!("- what to do: {}\n", text(remedy)));
            }
            md.push_str(&super::details_md::render(&f.details));
            md.push('\n');
        }
        md.push_str("| # | step | status | time | attempts |\n|---|---|---|---|---|\n");
        for (i, s) in self.steps.iter().enumerate() {
            md.push_str(&format!(
                "| {} | {} | {} | {:.1} s | {} |\n",
                i + 1,
                text(&s.name),
                s.status,
                s.duration_ms as f64 / 1000.0,
                s.attempts.len()
            ));
        }
        md.push_str(&unverified_note(&self.steps));
        let claimed = self.claimed_steps();
        if !claimed.is_empty() {
            md.push_str(&format!("\n{}\n", wording::claimed(&claimed)));
        }
        let tools = self.names_tools();
        for s in self.steps.iter().filter(|s| {
            !s.commands.is_empty()
                || !s.files.is_empty()
                || !s.evidence.is_empty()
                || !s.attachments.is_empty()
                || (tools && !s.tools.is_empty())
        }) {
            step_md(&mut md, s, tools);
        }
        if self.steps.iter().any(|s| !s.files.is_empty()) {
            let undo = format!("rein undo {}", self.run_id);
            md.push_str(&format!("\nUndo every file this run changed: {}\n", code(&undo)));
        }
        md
    }
}

/// Names the steps that ran without a verify: nothing proved they worked.
fn unverified_note(steps: &[StepReport]) -> String {
    let unverified: Vec<&str> =
        steps.iter().filter(|s| s.status == StepStatus::Done).map(|s| s.name.as_str()).collect();
    if unverified.is_empty() {
        return String::new();
    }
    format!("\n{}\n", wording::unverified(&unverified))
}

fn step_md(md: &mut String, s: &StepReport, tools: bool) {
    md.push_str(&format!("\n## {}\n", text(&s.name)));
    if tools && !s.tools.is_empty() {
        md.push_str(&format!("- {}\n", wording::served_tools(&s.tools)));
    }
    for e in &s.evidence {
        md.push_str(&format!("- evidence: {}\n", code(e)));
    }
    for a in &s.approvals {
        let by = wording::decider(&a.decided_by);
        md.push_str(&format!("- approval: {} {} allowed by {by}\n", a.action, code(&a.target)));
    }
    for c in &s.commands {
        md.push_str(&format!("- {}\n", wording::command(c)));
    }
    for f in &s.files {
        let before = f.sha256_before.as_deref().map_or("new".to_string(), |h| h[..12.min(h.len())].to_string());
        md.push_str(&format!(
            "- changed {}: {} → {}\n",
            code(&f.path),
            text(&before),
            text(&f.sha256_after[..12.min(f.sha256_after.len())])
        ));
    }
    for r in &s.rolled_back {
        md.push_str(&format!("- rolled back {}\n", code(r)));
    }
    for a in &s.attachments {
        md.push_str(&format!("- {}: {}\n", wording::attachment_kind(a), code(&a.path)));
    }
}
