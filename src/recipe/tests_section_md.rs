//! The project's tests in report.md (which is also the MCP result of a `recipe_*` tool): the
//! counts first, then only the tests that did not pass, with their place and message. Every
//! text from the run goes through `markdown_text`.

use super::markdown_text::{code, text};
use super::tests_section::{TestCase, TestRun};

/// Failing tests listed; report.json has the rest.
const MAX_LISTED: usize = 50;

/// The tests section of report.md; empty when the run ran no tests.
pub fn render(runs: &[TestRun]) -> String {
    let mut md = String::new();
    for run in runs {
        let on = run.target.as_deref().map(|t| format!(" on {}", code(t))).unwrap_or_default();
        md.push_str(&format!("## Tests (step {}{on}): {}\n\n", code(&run.step), code(&run.verdict)));
        md.push_str(&format!("{}\n", run.tally()));
        if run.claimed {
            md.push_str("\nThese results are what project code returned (the step is claimed, not verified).\n");
        }
        let failing: Vec<_> = run.failing().collect();
        if !failing.is_empty() {
            md.push_str("\n| suite | test | status | where | message |\n|---|---|---|---|---|\n");
            for t in failing.iter().take(MAX_LISTED) {
                // A code span in a table cell would end at a `|` (GFM): the place is text here.
                let at = t.location.as_ref().map(|l| text(&l.to_string())).unwrap_or_default();
                md.push_str(&format!(
                    "| {} | {} | {} | {at} | {} |\n",
                    text(&t.suite),
                    text(&t.test),
                    t.status.as_str(),
                    text(t.message.as_deref().unwrap_or_default())
                ));
            }
            if failing.len() > MAX_LISTED {
                md.push_str(&format!(
                    "\n… and {} more that did not pass (report.json lists every test)\n",
                    failing.len() - MAX_LISTED
                ));
            }
            stacks(&mut md, failing.iter().take(MAX_LISTED).copied());
        }
        md.push('\n');
    }
    md
}

/// Each listed test's stack, every frame with the workspace place it maps to or why it does not.
fn stacks<'a>(md: &mut String, tests: impl Iterator<Item = &'a TestCase>) {
    let mut first = true;
    for t in tests.filter(|t| !t.source.is_empty()) {
        if first {
            md.push_str("\nTheir stacks, each frame placed in the workspace (the build's source map):\n\n");
            first = false;
        }
        md.push_str(&format!("- {}#{}\n", text(&t.suite), text(&t.test)));
        for frame in &t.source {
            md.push_str(&format!("  - {}\n", text(&frame.describe())));
        }
    }
}
