//! Real MCP clients are the judge: the official Python SDK (`mcp`) and the MCP Inspector CLI
//! drive `rein serve`. `.ci/setup` installs both into `.ci/tools/clients/` (see `.ci/clients`); a
//! missing client fails the test with the command that installs it (`tests/common/real_tools.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{json, Value};

use crate::common::{Workspace, REIN};
use crate::mcp_run_reports::failed_run;
use crate::mcp_sessions::team_kit;

const INSTALL: &str = "install the MCP clients with `bash .ci/setup` (or `bash .ci/clients` alone)";

/// Whether both clients are installed; else the test fails saying how to install them (or,
/// opted out, is skipped).
fn clients_present(test: &str) -> bool {
    let installed = |env: &str, installed: &str| {
        std::env::var_os(env).map(PathBuf::from).unwrap_or_else(|| tools_dir().join(installed))
    };
    let file_present = crate::common::real_tools::file_present;
    file_present(
        test,
        &installed("REIN_TEST_PYTHON", "venv/bin/python"),
        "the MCP Python SDK's venv (`bash .ci/setup`)",
    ) && file_present(
        test,
        &installed("REIN_TEST_INSPECTOR", "node_modules/.bin/mcp-inspector"),
        "the MCP Inspector CLI (`bash .ci/setup`)",
    )
}

fn tools_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/tools/clients")
}

fn client(env: &str, installed: &str) -> PathBuf {
    let path = std::env::var_os(env).map(PathBuf::from).unwrap_or_else(|| tools_dir().join(installed));
    assert!(path.exists(), "{} is missing: {INSTALL} (or set {env})", path.display());
    path
}

#[test]
fn the_python_sdk_lists_calls_sets_the_log_level_and_hears_a_refusal() {
    if !clients_present("the_python_sdk_lists_calls_sets_the_log_level_and_hears_a_refusal") {
        return;
    }
    let ws = Workspace::new();
    team_kit(&ws);
    let outside = ws.root.join("outside/no.txt");
    python_sdk(&ws, "python_sdk.py", outside.to_str().unwrap(), 10);
    assert!(!outside.exists());
}

/// `mcp-inspector --cli rein … serve --method METHOD ARGS`, its JSON output.
fn inspector(ws: &Workspace, args: &[&str]) -> Value {
    let inspector = client("REIN_TEST_INSPECTOR", "node_modules/.bin/mcp-inspector");
    let out = Command::new(inspector)
        .arg("--cli")
        .arg(REIN)
        .args(["--workspace", ws.ws.to_str().unwrap(), "--home", ws.home.to_str().unwrap(), "serve"])
        .args(args)
        .env("HOME", ws.root.join("inspector-home"))
        .env_remove("REIN_HOME")
        .output()
        .expect("run the MCP Inspector CLI");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "inspector {args:?}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("inspector {args:?} printed no JSON ({e}): {stdout}"))
}

#[test]
fn the_mcp_inspector_cli_sets_the_log_level_lists_and_calls() {
    if !clients_present("the_mcp_inspector_cli_sets_the_log_level_lists_and_calls") {
        return;
    }
    let ws = Workspace::new();
    team_kit(&ws);
    let level = inspector(&ws, &["--method", "logging/setLevel", "--log-level", "debug"]);
    assert!(level.get("error").is_none(), "logging/setLevel is answered: {level}");
    let listed = inspector(&ws, &["--method", "tools/list"]);
    let names: Vec<&str> = listed["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"read_file") && names.contains(&"team_kit__greet"), "{names:?}");
    for name in &names {
        let valid =
            (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        assert!(valid, "{name:?} is not a name clients accept");
    }
    let called = inspector(&ws, &["--method", "tools/call", "--tool-name", "team_kit__greet"]);
    assert_eq!(called["structuredContent"]["text"], "from the kit", "{called}");
    assert_eq!(called["isError"], false, "{called}");
}

#[test]
fn the_python_sdk_reads_why_a_recipe_failed() {
    if !clients_present("the_python_sdk_reads_why_a_recipe_failed") {
        return;
    }
    let ws = Workspace::new();
    let run_id = failed_run(&ws);
    python_sdk(&ws, "python_run_reports.py", &run_id, 9);
}

/// Runs `tests/clients/SCRIPT REIN WS HOME LAST` with the official Python SDK; it must pass
/// and print `ok …` for each of its `checks`.
fn python_sdk(ws: &Workspace, script: &str, last: &str, checks: usize) {
    let python = client("REIN_TEST_PYTHON", "venv/bin/python");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients").join(script);
    let out = Command::new(python)
        .arg(script)
        .args([REIN, ws.ws.to_str().unwrap(), ws.home.to_str().unwrap(), last])
        .env_remove("REIN_HOME")
        .output()
        .expect("run the Python SDK client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(stdout.lines().filter(|l| l.starts_with("ok ")).count(), checks, "{stdout}");
}

#[test]
fn the_mcp_inspector_cli_reads_a_run_report_as_a_resource_and_through_the_tool() {
    if !clients_present("the_mcp_inspector_cli_reads_a_run_report_as_a_resource_and_through_the_tool") {
        return;
    }
    let ws = Workspace::new();
    let run_id = failed_run(&ws);
    let uri = format!("rein://runs/{run_id}/report.md");
    let listed = inspector(&ws, &["--method", "resources/list"]);
    let uris: Vec<&str> = listed["resources"].as_array().unwrap().iter().filter_map(|r| r["uri"].as_str()).collect();
    assert!(uris.contains(&uri.as_str()), "{listed}");
    let read = inspector(&ws, &["--method", "resources/read", "--uri", &uri]);
    let markdown = read["contents"][0]["text"].as_str().unwrap_or_default();
    assert!(markdown.contains("BUILD_FAILED") && markdown.contains("declare REIN_X before using it"), "{read}");
    let called = inspector(&ws, &["--method", "tools/call", "--tool-name", "run_reports", "--tool-arg", "run_id=last"]);
    assert_eq!(called["isError"], false, "{called}");
    assert_eq!(called["structuredContent"]["run_id"], json!(run_id), "{called}");
    assert_eq!(called["content"][0]["text"].as_str(), Some(markdown), "the tool and the resource agree");
}

#[test]
fn the_mcp_inspector_cli_gets_every_built_in_tools_annotations() {
    if !clients_present("the_mcp_inspector_cli_gets_every_built_in_tools_annotations") {
        return;
    }
    let ws = Workspace::new();
    let listed = inspector(&ws, &["--method", "tools/list"]);
    let tools = listed["tools"].as_array().unwrap();
    for tool in tools {
        for hint in ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] {
            assert!(tool["annotations"][hint].is_boolean(), "{} has {hint}: {tool}", tool["name"]);
        }
    }
    let named = |name: &str| tools.iter().find(|t| t["name"] == name).cloned().unwrap_or_else(|| panic!("{name}"));
    assert_eq!(named("read_file")["annotations"]["readOnlyHint"], true);
    assert_eq!(named("run_reports")["annotations"]["readOnlyHint"], true);
    assert_eq!(named("app_uninstall")["annotations"]["destructiveHint"], true);
    assert_eq!(named("recipe_sign_install_launch")["annotations"]["openWorldHint"], true);
}
