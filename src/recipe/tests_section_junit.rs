//! The project's tests in the JUnit XML: a `<testsuite>` per suite a test run reported (beside
//! the run's own suite of steps), a `<testcase>` per test with `<failure>` (an assertion),
//! `<error>` (it threw, timed out, or never ran because the run ended) or `<skipped>`, each
//! with its message and its whole stack, so CI systems show them. Text from the run goes
//! through `markup` (one line for attributes; a stack's lines kept in the element's text).

use std::fmt::Write as _;

use super::markup::{escape, lines, text};
use super::tests_section::{TestCase, TestRun, TestStatus};

/// How many of the project's tests every run reported, failed (an assertion) and erred (threw,
/// timed out, never ran): the part of `<testsuites>`' totals that is not rein's own steps.
pub fn totals(runs: &[TestRun]) -> (usize, usize, usize) {
    let cases = || runs.iter().flat_map(|r| &r.tests);
    let failures = cases().filter(|t| t.status == TestStatus::Failed).count();
    let errors =
        cases().filter(|t| matches!(t.status, TestStatus::Error | TestStatus::TimedOut | TestStatus::NotRun)).count();
    (cases().count(), failures, errors)
}

/// The suites of every test run, in the order their first test ran.
pub fn render(runs: &[TestRun], timestamp: &str) -> String {
    let mut xml = String::new();
    for run in runs {
        let mut suites: Vec<&str> = Vec::new();
        for t in &run.tests {
            if !suites.contains(&t.suite.as_str()) {
                suites.push(&t.suite);
            }
        }
        for suite in suites {
            let cases: Vec<&TestCase> = run.tests.iter().filter(|t| t.suite == suite).collect();
            let count = |f: fn(TestStatus) -> bool| cases.iter().filter(|t| f(t.status)).count();
            let failures = count(|s| s == TestStatus::Failed);
            let errors = count(|s| matches!(s, TestStatus::Error | TestStatus::TimedOut | TestStatus::NotRun));
            let skipped = count(|s| s == TestStatus::Skipped);
            let time: u64 = cases.iter().filter_map(|t| t.time_ms).sum();
            let name = match &run.target {
                Some(target) => format!("{suite} ({target})"),
                None => suite.to_string(),
            };
            let _ = writeln!(
                xml,
                "  <testsuite name=\"{}\" package=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" \
                 skipped=\"{skipped}\" time=\"{}\" timestamp=\"{}\">",
                text(&name),
                text(&format!("rein.{}", run.step)),
                cases.len(),
                seconds(time),
                text(timestamp)
            );
            for t in cases {
                testcase(&mut xml, t);
            }
            if run.claimed {
                // JUnit has no word for it: CI shows these as passed, so the suite says whose they are.
                xml.push_str(
                    "    <system-out>status: claimed (these results are what project code returned; rein did not verify them)</system-out>\n",
                );
            }
            xml.push_str("  </testsuite>\n");
        }
    }
    xml
}

fn testcase(xml: &mut String, t: &TestCase) {
    let time = t.time_ms.map(|ms| format!(" time=\"{}\"", seconds(ms))).unwrap_or_default();
    let _ = write!(xml, "    <testcase name=\"{}\" classname=\"{}\"{time}", text(&t.test), text(&t.suite));
    let element = match t.status {
        TestStatus::Passed => {
            xml.push_str("/>\n");
            return;
        }
        TestStatus::Failed => "failure",
        TestStatus::Skipped => "skipped",
        TestStatus::Error | TestStatus::TimedOut | TestStatus::NotRun => "error",
    };
    let message = text(t.message.as_deref().unwrap_or(t.status.as_str()));
    let mut body = String::new();
    if let Some(location) = &t.location {
        let _ = writeln!(body, "where: {}", text(&location.to_string()));
    }
    if let Some(stack) = &t.stack {
        let _ = writeln!(body, "{}", lines(stack));
    }
    for frame in &t.source {
        let _ = writeln!(body, "frame: {}", text(&frame.describe()));
    }
    let _ = writeln!(
        xml,
        ">\n      <{element} type=\"{}\" message=\"{message}\">{body}</{element}>\n    </testcase>",
        escape(t.status.as_str())
    );
}

/// Milliseconds as JUnit's seconds (`41.700`).
fn seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(claimed: bool) -> TestRun {
        TestRun::all_passed(&[("S", "t")], claimed)
    }

    #[test]
    fn a_suite_project_code_judged_says_so_in_the_xml() {
        assert!(!render(&[run(false)], "t").contains("claimed"));
        let claimed = render(&[run(true)], "t");
        assert!(claimed.contains("<system-out>status: claimed"), "{claimed}");
        let (said, ends) = (claimed.find("<system-out>").unwrap(), claimed.find("</testsuite>").unwrap());
        assert!(
            claimed.find("<testcase").unwrap() < said && said < ends,
            "inside the suite, after its cases: {claimed}"
        );
    }
}
