//! `rein test`: the examples tools carry run in scratch workspaces, and a wrong one fails.

use crate::common::{rein_json, Workspace};
use serde_json::json;

#[test]
fn built_in_checks_pass_and_a_wrong_expectation_fails() {
    let ws = Workspace::new();
    let (status, out) = rein_json(&ws, &["test"]);
    assert_eq!(status, 0, "{out}");
    assert!(out["result"]["checks"].as_array().unwrap().len() >= 7);
    ws.file(
        "tools/shout.lua",
        r#"return { name = "shout", description = "upper-cases", params = { text = { type = "string" } },
  checks = {
    { args = { text = "hi" }, expect = { text = "HI" } },
    { args = { text = "hi" }, expect = { text = "hi" } },
  },
  run = function(a) return { text = a.text:upper() } end }"#,
    );
    let (status, out) = rein_json(&ws, &["test", "shout"]);
    assert_eq!((status, out["error"]["code"].as_str()), (1, Some("VERIFY_FAILED")), "{out}");
    let checks = out["error"]["details"]["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 2);
    assert_eq!(checks[0]["passed"], json!(true));
    assert_eq!(checks[1]["passed"], json!(false));
    assert!(checks[1]["problem"].as_str().unwrap().contains("result.text is \"HI\""), "{}", checks[1]);
    assert!(!ws.path("a.txt").exists(), "checks never touch the real workspace");
}
