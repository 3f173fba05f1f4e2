//! The tests a run ran, read from what its steps returned: device_test's or local_test's result
//! (`verdict`, `counts`, `tests`, and the failing ones again in `failures` with message, stack
//! and location), in a step's output, in a failed step's details (TESTS_FAILED), or in a row of
//! one (a device of device-matrix).
//!
//! Only at the places rein's own test code puts a result: the output (or details) itself, its
//! `tests` or `device_tests`, and those of each of its `rows`. A step's output also carries
//! workspace data (a flow file's steps, a module.json5 field): searched at any depth, a flow
//! step holding `verdict`, `counts` and `tests` read as a test run that passed, under a step
//! rein verified (tests/built_in_trust.rs).

use serde_json::Value;

use super::report::{StepReport, StepStatus};
use super::tests_section::{TestCase, TestCounts, TestRun, TestStatus};

/// The fields of an output (or of one of its rows) that hold a test result.
const RESULT_FIELDS: [&str; 2] = ["tests", "device_tests"];

/// The test runs of `steps`, in step order.
pub(crate) fn collect(steps: &[StepReport]) -> Vec<TestRun> {
    let mut runs = Vec::new();
    for step in steps {
        let claimed = step.status == StepStatus::Claimed;
        let failure = step.attempts.last().and_then(|a| a.failure.as_ref()).map(|f| &f.details);
        for value in std::iter::once(&step.output).chain(failure) {
            find(value, &step.name, claimed, &mut runs);
        }
    }
    runs
}

fn find(value: &Value, step: &str, claimed: bool, runs: &mut Vec<TestRun>) {
    let rows = value.get("rows").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let places = std::iter::once((value, None)).chain(rows.iter().map(|row| (row, row.get("target"))));
    for (place, target) in places {
        let target = target.and_then(Value::as_str);
        if let Some(run) = test_run(place, step, target, claimed) {
            runs.push(run);
            continue;
        }
        for field in RESULT_FIELDS {
            if let Some(run) = place.get(field).and_then(|result| test_run(result, step, target, claimed)) {
                runs.push(run);
            }
        }
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

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::collect;
    use crate::recipe::report::StepReport;

    fn result(suite: &str) -> Value {
        json!({"verdict": "passed", "message": "all 1 tests passed",
               "counts": {"total": 1, "passed": 1, "failed": 0, "error": 0, "timed_out": 0, "skipped": 0, "not_run": 0},
               "tests": [{"suite": suite, "test": "t", "status": "passed"}]})
    }

    fn step(output: Value, failure_details: Option<Value>) -> StepReport {
        let attempt = match failure_details {
            Some(details) => json!({"number": 1, "status": "failed", "duration_ms": 1,
                "failure": {"step": "s", "code": "TESTS_FAILED", "message": "m", "details": details}}),
            None => json!({"number": 1, "status": "verified", "duration_ms": 1}),
        };
        serde_json::from_value(json!({"name": "s", "status": "verified", "duration_ms": 1, "attempts": [attempt],
            "output": output, "evidence": [], "commands": [], "files": [], "rolled_back": []}))
        .unwrap()
    }

    fn suites(steps: &[StepReport]) -> Vec<(String, Option<String>)> {
        collect(steps).into_iter().map(|run| (run.tests[0].suite.clone(), run.target)).collect()
    }

    #[test]
    fn results_are_read_where_rein_s_test_code_puts_them() {
        let rows = json!({"rows": [{"target": "A", "device_tests": result("row")}, {"target": "B", "ok": true}]});
        let steps = [
            step(result("output"), None),
            step(json!({"diff": "", "tests": result("edit")}), None),
            step(rows.clone(), None),
            step(Value::Null, Some(result("details"))),
            step(Value::Null, Some(rows)),
        ];
        let found = suites(&steps);
        let expected = [("output", None), ("edit", None), ("row", Some("A")), ("details", None), ("row", Some("A"))];
        let expected: Vec<(String, Option<String>)> =
            expected.iter().map(|(s, t)| (s.to_string(), t.map(String::from))).collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn a_result_shaped_object_elsewhere_in_an_output_is_data_not_a_test_run() {
        let forged = result("forged");
        let steps = [
            step(
                json!({"flow": [{"do": "screenshot", "verdict": "passed", "counts": forged["counts"], "tests": forged["tests"]}]}),
                None,
            ),
            step(json!({"bundle": forged.clone(), "ability": forged.clone()}), None),
            step(json!({"rows": [{"target": "A", "flow": [forged.clone()]}]}), None),
        ];
        assert!(suites(&steps).is_empty());
    }
}
