//! The project's tests in report.html: a table of every test with filters by status. The
//! filters are radio buttons and CSS (`:checked ~`), no script: the page stays inert (its
//! Content-Security-Policy allows none). Status classes are rein's words
//! ([`TestStatus::class`]), never a run's text; everything the run recorded goes through
//! `markup` (one line; a stack as lines in a `<pre>`).

use std::fmt::Write as _;

use super::markup::{escape, lines, text};
use super::tests_section::{TestRun, TestStatus};

/// The CSS of the filters of run number `n`: a status's radio hides the other rows.
fn filter_style(n: usize) -> String {
    let mut css = String::new();
    for shown in TestStatus::ALL {
        for other in TestStatus::ALL.iter().filter(|s| **s != shown) {
            let _ = write!(css, "#tests-{n}-{}:checked~table tr.{}{{display:none}}", shown.class(), other.class());
        }
    }
    let _ = write!(
        css,
        "#tests-{n}-failing:checked~table tr.passed,#tests-{n}-failing:checked~table tr.skipped{{display:none}}"
    );
    css
}

/// The tests section of report.html; empty when the run ran no tests.
pub fn render(runs: &[TestRun]) -> String {
    let mut page = String::new();
    for (n, run) in runs.iter().enumerate() {
        let on = run.target.as_deref().map(|t| format!(" on <code>{}</code>", text(t))).unwrap_or_default();
        let _ = writeln!(
            page,
            "<h2>Tests (step <code>{}</code>{on}): <span class=\"status {}\">{}</span></h2>",
            text(&run.step),
            // A run project code judged passed is its word: styled as a claimed step is.
            match (run.verdict.as_str(), run.claimed) {
                ("passed", false) => "verified",
                ("passed", true) => "claimed",
                _ => "failed",
            },
            text(&run.verdict)
        );
        let _ = writeln!(page, "<p class=\"tally\">{}</p>", escape(&run.tally()));
        if run.claimed {
            page.push_str("<p>These results are what project code returned (the step is claimed, not verified).</p>\n");
        }
        let _ = writeln!(page, "<style>{}</style>", filter_style(n));
        let _ = writeln!(page, "<div class=\"tests\" id=\"tests-{n}\">");
        let default = if run.failing().next().is_some() { "failing" } else { "all" };
        for (id, label) in [("all", "all"), ("failing", "not passed")]
            .into_iter()
            .chain(TestStatus::ALL.iter().map(|s| (s.class(), s.as_str())))
        {
            let checked = if id == default { " checked" } else { "" };
            let _ = write!(
                page,
                "<input type=\"radio\" name=\"tests-{n}\" id=\"tests-{n}-{id}\"{checked}><label for=\"tests-{n}-{id}\">{label}</label> "
            );
        }
        page.push_str("\n<table><thead><tr><th>suite</th><th>test</th><th>status</th><th>time</th><th>where</th><th>message</th></tr></thead><tbody>\n");
        for t in &run.tests {
            let at = t.location.as_ref().map(|l| format!("<code>{}</code>", text(&l.to_string()))).unwrap_or_default();
            let time = t.time_ms.map(|ms| format!("{ms} ms")).unwrap_or_default();
            let placed: String = t.source.iter().map(|f| format!("<li>{}</li>", text(&f.describe()))).collect();
            let placed = if placed.is_empty() { placed } else { format!("<ul class=\"frames\">{placed}</ul>") };
            let stack = t
                .stack
                .as_deref()
                .map(|s| format!("<details><summary>stack</summary><pre>{}</pre>{placed}</details>", lines(s)))
                .unwrap_or_default();
            let _ = writeln!(
                page,
                "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{time}</td><td>{at}</td><td>{}{stack}</td></tr>",
                t.status.class(),
                text(&t.suite),
                text(&t.test),
                t.status.as_str(),
                text(t.message.as_deref().unwrap_or_default())
            );
        }
        page.push_str("</tbody></table></div>\n");
    }
    page
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(claimed: bool) -> TestRun {
        TestRun::all_passed(&[], claimed)
    }

    #[test]
    fn a_passing_run_project_code_judged_is_never_styled_verified() {
        assert!(render(&[run(false)]).contains("<span class=\"status verified\">passed</span>"));
        let claimed = render(&[run(true)]);
        assert!(!claimed.contains("verified\""), "{claimed}");
        assert!(claimed.contains("<span class=\"status claimed\">passed</span>"), "{claimed}");
    }
}
