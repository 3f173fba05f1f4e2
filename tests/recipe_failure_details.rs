//! Failures carry their details: when a tool fails inside a recipe, its structured details reach
//! STEP_FAILED's `details.failure`, report.json, report.md and the `--json` output — the ArkTS
//! errors with file:line:column, never the raw build log.

use crate::common::lab::lab;
use serde_json::json;

#[test]
fn a_failed_build_lists_its_arkts_errors_everywhere() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    let page = "entry/src/main/ets/pages/Index.ets";
    lab.replace_in(page, "build() {", "build() {\n    REIN_FAKE_ARKTS_ERROR\n    REIN_FAKE_ARKTS_ERROR_ANY");
    let (status, out) = lab.recipe(&["--yes"], "sign-install-launch", json!({}));
    assert_eq!(status, 1, "{out}");
    // As hvigor prints it, from the folder rein runs it in: the familiar form (C:\… on Windows).
    let file = rein::visible::shown_path(lab.ws.path(page));
    let expected = [
        (file.clone(), 7, 5, "10505001", "Cannot find name 'REIN_FAKE_ARKTS_ERROR'."),
        (file.clone(), 8, 5, "10605008", "Use explicit types instead of \"any\", \"unknown\" (arkts-no-any-unknown)"),
    ];

    let cli = &out["error"]["details"]["failure"];
    // The report's path as people read it: never Windows' verbatim \\?\ form (it was, under Wine).
    let run_id = out["error"]["details"]["run_id"].as_str().unwrap();
    let report_path = rein::visible::shown_path(lab.ws.path(&format!(".rein/runs/{run_id}/report.json")));
    assert_eq!(out["error"]["details"]["report"], json!(report_path), "{out}");
    assert_eq!((cli["step"].as_str(), cli["code"].as_str()), (Some("build"), Some("BUILD_FAILED")), "{out}");
    let report = lab.report(&out);
    for (place, failure) in [("--json", cli), ("report.json", &report["failure"])] {
        let errors = failure["details"]["errors"].as_array().unwrap_or_else(|| panic!("{place}: {failure}"));
        assert_eq!(errors.len(), 2, "{place}: {failure}");
        for (error, (file, line, column, code, message)) in errors.iter().zip(&expected) {
            assert_eq!(
                (&error["file"], &error["line"], &error["column"], &error["code"], &error["message"]),
                (&json!(file), &json!(line), &json!(column), &json!(code), &json!(message)),
                "{place}"
            );
        }
        assert_eq!(failure["details"]["class"], json!("arkts"), "{place}");
        assert!(failure["details"].get("output_tail").is_none(), "{place}: no raw log in a summary");
        assert_eq!(failure["location"], json!(format!("{file}:7:5")), "{place}");
    }
    let md = lab.report_md(&out);
    for (file, line, column, code, message) in &expected {
        assert!(md.contains(&format!("- error `{file}:{line}:{column}`: {code} {message}")), "{md}");
    }
}

#[test]
fn a_failed_install_carries_its_code_message_and_remedy() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.device(crate::common::lab::KEY, json!({"install_error": 9568322}));
    let (status, out) = lab.recipe(&["--yes"], "sign-install-launch", json!({}));
    assert_eq!(status, 1, "{out}");
    let details = &out["error"]["details"]["failure"]["details"];
    assert_eq!(details["code"], json!("9568322"), "{out}");
    assert_eq!(details["message"], json!("signature verification failed due to not trusted app source."));
    assert!(details["remedy"].as_str().unwrap().contains("UDID"), "{details}");
    assert_eq!(lab.report(&out)["failure"]["details"], *details);
    let md = lab.report_md(&out);
    assert!(md.contains("9568322") && md.contains("UDID"), "{md}");
}
