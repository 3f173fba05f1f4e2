//! The tests a run ran, read from what its steps returned: device_test's or local_test's result
//! (`verdict`, `counts`, `tests`, and the failing ones again in `failures` with message, stack
//! and location), in a step's output, in a failed step's details (TESTS_FAILED), or in a row of
//! one (a device of device-matrix).

use serde_json::Value;

use super::report::{StepReport, StepStatus};
use super::tests_section::{TestCase, TestCounts, TestRun, TestStatus};

/// The test runs of `steps`, in step order.
pub(crate) fn collect(steps: &[StepReport]) -> Vec<TestRun> {
    let mut runs = Vec::new();
    for step in steps {
        let claimed = step.status == StepStatus::Claimed;
        let failure = step.attempts.last().and_then(|a| a.failure.as_ref()).map(|f| &f.details);
        for value in std::iter::once(&step.output).chain(failure) {
            find(value, &step.name, None, claimed, 0, &mut runs);
        }
    }
    runs
}

/// How deep a result may sit in a step's output: the output itself, a field of it, a row of a
/// field, a field of the row.
const MAX_DEPTH: usize = 3;

fn find(value: &Value, step: &str, target: Option<&str>, claimed: bool, depth: usize, runs: &mut Vec<TestRun>) {
    if let Some(run) = test_run(value, step, target, claimed) {
        runs.push(run);
        return;
    }
    if depth >= MAX_DEPTH {
        return;
    }
    match value {
        Value::Object(fields) => {
            let target = fields.get("target").and_then(Value::as_str).or(target);
            for field in fields.values() {
                find(field, step, target, claimed, depth + 1, runs);
            }
        }
        Value::Array(rows) => {
            for row in rows {
                find(row, step, target, claimed, depth + 1, runs);
            }
        }
        _ => {}
    }
}

/// A result of harmony.device_tests (`verdict`, `counts`, `tests`; the failing ones again in
/// `failures` with message, stack and location) as a [`TestRun`].
fn test_run(value: &Value, step: &str, target: Option<&str>, claimed: bool) -> Option<TestRun> {
    let verdict = value.get("verdict")?.as_str()?;
    let counts: TestCounts = serde_json::from_value(value.get("counts")?.clone()).ok()?;
    let listed = value.get("tests")?.as_array()?;
    let failures = value.get("failures").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let word = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(String::from);
    let tests = listed
        .iter()
        .map(|t| {
            let (suite, test) = (word(t, "suite").unwrap_or_default(), word(t, "test").unwrap_or_default());
            let failure = failures
                .iter()
                .find(|f| word(f, "suite") == Some(suite.clone()) && word(f, "test") == Some(test.clone()));
            let more = failure.unwrap_or(t);
            TestCase {
                status: TestStatus::of(&word(t, "status").unwrap_or_default()),
                message: word(more, "message").or_else(|| word(t, "skip_reason")),
                location: more.get("location").and_then(|l| serde_json::from_value(l.clone()).ok()),
                stack: word(more, "stack"),
                source: more.get("source").and_then(|s| serde_json::from_value(s.clone()).ok()).unwrap_or_default(),
                time_ms: t.get("time_ms").and_then(Value::as_u64),
                suite,
                test,
            }
        })
        .collect();
    Some(TestRun {
        step: step.to_string(),
        target: target.map(String::from),
        verdict: verdict.to_string(),
        message: word(value, "message").unwrap_or_default(),
        counts,
        tests,
        claimed,
    })
}
