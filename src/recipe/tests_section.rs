//! The project's own tests a run ran (issue 36 point 4): each test with its status, message,
//! stack and place in the workspace, as report.json keeps them (`tests`; `tests_collect` reads
//! them from what the steps returned).
//! report.md, report.html and the JUnit XML show them (`tests_section_md`, `tests_section_html`,
//! `tests_section_junit`).

use serde::{Deserialize, Serialize};

/// One run of the project's tests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestRun {
    /// The step that ran them.
    pub step: String,
    /// The device they ran on, when the step ran them on several (device-matrix's row).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// What the run came to: `passed`, `failed`, `crashed`, `timed out`, `no tests`, …
    pub verdict: String,
    /// The run's one sentence (`tests failed: 1 passed, 1 failed, …`).
    pub message: String,
    /// How many tests ended how.
    pub counts: TestCounts,
    /// Every test, in the order they ran (those that never ran last).
    pub tests: Vec<TestCase>,
    /// Whether the step's verify judged what project code returned (the step is `claimed`):
    /// then these results are that code's word.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub claimed: bool,
}

/// How many tests ended how.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TestCounts {
    pub total: u64,
    pub passed: u64,
    pub failed: u64,
    pub error: u64,
    pub timed_out: u64,
    pub skipped: u64,
    pub not_run: u64,
}

/// One test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestCase {
    /// Its suite (`describe`, nested ones joined with `.`).
    pub suite: String,
    /// Its name (`it`).
    pub test: String,
    /// How it ended.
    pub status: TestStatus,
    /// Why it did not pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Where in the workspace it failed (the first `.ets` frame of its stack that is a file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<TestLocation>,
    /// Its stack, every line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
    /// Each line of its stack placed in the workspace through the build's source map, or why not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source: Vec<StackFrame>,
    /// How long it took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<u64>,
}

/// One line of a stack, placed (the tool's mapped frame: `rein.fs.map_stack`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StackFrame {
    /// The frame as the device wrote it (`<path>:<line>:<column>`, or the whole line).
    pub device: String,
    /// Whether it was placed.
    #[serde(default)]
    pub mapped: bool,
    /// The workspace file, line and column it comes from, when placed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u64>,
    /// Why it was not placed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

impl StackFrame {
    /// `device → file:line:column`, or `device (not placed: why)`: one line for people.
    pub fn describe(&self) -> String {
        match (&self.file, self.line, self.column) {
            (Some(file), Some(line), Some(column)) if self.mapped => {
                format!("{} → {file}:{line}:{column}", self.device)
            }
            _ => format!("{} (not placed: {})", self.device, self.why.as_deref().unwrap_or("no reason given")),
        }
    }
}

/// A place in the workspace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestLocation {
    pub file: String,
    pub line: u64,
    pub column: u64,
}

impl std::fmt::Display for TestLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// How a test ended (harmony.hypium's words).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TestStatus {
    #[serde(rename = "passed")]
    Passed,
    /// An assertion failed.
    #[serde(rename = "failed")]
    Failed,
    /// It threw, or the app died while it ran.
    #[serde(rename = "error")]
    Error,
    #[serde(rename = "timed out")]
    TimedOut,
    #[serde(rename = "skipped")]
    Skipped,
    /// The run ended before it.
    #[serde(rename = "not run")]
    NotRun,
}

impl TestStatus {
    /// Every status, in the order reports list them.
    pub const ALL: [TestStatus; 6] = [
        TestStatus::Failed,
        TestStatus::Error,
        TestStatus::TimedOut,
        TestStatus::NotRun,
        TestStatus::Skipped,
        TestStatus::Passed,
    ];

    /// The word reports show.
    pub fn as_str(self) -> &'static str {
        match self {
            TestStatus::Passed => "passed",
            TestStatus::Failed => "failed",
            TestStatus::Error => "error",
            TestStatus::TimedOut => "timed out",
            TestStatus::Skipped => "skipped",
            TestStatus::NotRun => "not run",
        }
    }

    /// A name made of letters and `-` alone (an HTML class, an id): never a run's text.
    pub fn class(self) -> &'static str {
        match self {
            TestStatus::TimedOut => "timed-out",
            TestStatus::NotRun => "not-run",
            other => other.as_str(),
        }
    }

    /// Whether the test counts against the run.
    pub fn is_failing(self) -> bool {
        !matches!(self, TestStatus::Passed | TestStatus::Skipped)
    }

    /// The status harmony.hypium's word names.
    pub(super) fn of(word: &str) -> TestStatus {
        match word {
            "passed" => TestStatus::Passed,
            "failed" => TestStatus::Failed,
            "timed out" => TestStatus::TimedOut,
            "skipped" => TestStatus::Skipped,
            "not run" => TestStatus::NotRun,
            // "error", and a code Hypium has no word for (`code 5`): not a pass.
            _ => TestStatus::Error,
        }
    }
}

impl TestRun {
    /// The tests that count against the run, in their order.
    pub fn failing(&self) -> impl Iterator<Item = &TestCase> {
        self.tests.iter().filter(|t| t.status.is_failing())
    }

    /// `3 tests: 1 passed, 1 failed, …` — the counts as one line.
    pub fn tally(&self) -> String {
        let c = &self.counts;
        format!(
            "{} tests: {} passed, {} failed, {} errors, {} timed out, {} skipped, {} not run",
            c.total, c.passed, c.failed, c.error, c.timed_out, c.skipped, c.not_run
        )
    }
}

#[cfg(test)]
impl TestRun {
    /// A run of the step `tests` in which every test of `names` (suite, test) passed: the
    /// report formats' tests start from it.
    pub(crate) fn all_passed(names: &[(&str, &str)], claimed: bool) -> TestRun {
        let tests: Vec<TestCase> = names
            .iter()
            .map(|(suite, test)| TestCase {
                suite: (*suite).into(),
                test: (*test).into(),
                status: TestStatus::Passed,
                message: None,
                location: None,
                stack: None,
                source: Vec::new(),
                time_ms: None,
            })
            .collect();
        let n = tests.len() as u64;
        TestRun {
            step: "tests".into(),
            target: None,
            verdict: "passed".into(),
            message: format!("all {n} tests passed"),
            counts: TestCounts { total: n, passed: n, ..TestCounts::default() },
            tests,
            claimed,
        }
    }
}
