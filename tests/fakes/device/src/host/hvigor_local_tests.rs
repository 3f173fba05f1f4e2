//! `hvigorw test -p module=<m> [-p coverage=true|false] [-p scope=<suite>#<test>,…]`: the local
//! unit tests of `src/test` (shared/HARMONY-VERIFY.md §2). It prints the tasks a real run
//! printed (`:<m>:default@UnitTestArkTS`, `@GenerateUnitTestResult`, `:<m>:test`) and writes
//! `<module>/.test/default/intermediates/test/coverage_data/test_result.txt` in the observed
//! format (`class=`, `test=`, `result=` per case, then the `Tests run:` line); like the real
//! one it exits 0 (BUILD SUCCESSFUL) whatever the tests did. A failed case's `result=` value
//! was never observed: `Failure` and `Error` are GUESS. Coverage (`coverage` is true unless
//! `false`, as documented) writes `coverage_data/coverage.log` and
//! `outputs/test/reports/coverageReport.json` (the file names observed; the JSON's content is
//! GUESS: `{"files": […]}`).
//!
//! Scenario `hvigorw`: `local_test_outcomes` `{"<suite>#<test>": "fail"|"error"|"pass"}` (pass
//! by default); `local_tests_unsupported: true` makes it the hvigor its documentation describes
//! on Linux ("not supported"): it runs no unit test task and writes no result (what it prints
//! then is GUESS).

use std::path::Path;

use serde_json::{json, Value};

use super::common::{outln, Conf};
use super::hvigor::{Args, P};

pub fn run(root: &Path, module: &Value, src: &Path, args: &Args, conf: &Conf) {
    let name = module.get("name").and_then(Value::as_str).unwrap_or("entry");
    if conf.get("local_tests_unsupported").and_then(Value::as_bool) == Some(true) {
        outln(&format!("{P}WARN: The test task is not supported on this platform."));
        return;
    }
    let scope: Vec<String> = args
        .props
        .get("scope")
        .map(|s| s.split(',').filter(|p| !p.is_empty()).map(String::from).collect())
        .unwrap_or_default();
    let outcomes = conf.get("local_test_outcomes").cloned().unwrap_or(json!({}));
    outln(&format!("{P}Finished :{name}:default@UnitTestArkTS... after 2 s 301 ms"));
    let mut text = String::new();
    let (mut run, mut failure, mut error, mut pass) = (0, 0, 0, 0);
    for case in super::hvigor_tests::local_cases(root, src) {
        let suite = case["suite"].as_str().unwrap_or_default();
        let test = case["test"].as_str().unwrap_or_default();
        let key = format!("{suite}#{test}");
        if !scope.is_empty() && !scope.iter().any(|s| s == suite || *s == key) {
            continue;
        }
        run += 1;
        let result = match outcomes.get(&key).and_then(Value::as_str).unwrap_or("pass") {
            "fail" => {
                failure += 1;
                "Failure"
            }
            "error" => {
                error += 1;
                "Error"
            }
            _ => {
                pass += 1;
                "Success"
            }
        };
        text.push_str(&format!("class={suite}\ntest={test}\nresult={result}\n"));
    }
    text.push_str(&format!("Tests run: {run}, Failure: {failure}, Error: {error}, Pass: {pass}, Ignore: 0\n"));
    let data = src.join(".test/default/intermediates/test/coverage_data");
    let _ = std::fs::create_dir_all(&data);
    let _ = std::fs::write(data.join("test_result.txt"), text);
    if args.props.get("coverage").map(String::as_str) != Some("false") {
        let _ = std::fs::write(data.join("coverage.log"), "connect socket failed\n");
        let reports = src.join(".test/default/outputs/test/reports");
        let _ = std::fs::create_dir_all(&reports);
        let _ = std::fs::write(reports.join("coverageReport.json"), json!({"files": []}).to_string());
    }
    outln(&format!("{P}Finished :{name}:default@GenerateUnitTestResult... after 12 ms"));
    outln(&format!("{P}Finished :{name}:test... after 1 ms"));
}
