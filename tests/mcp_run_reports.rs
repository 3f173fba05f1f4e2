//! Why a recipe failed, read by an agent over MCP without a shell: the `run_reports` tool and
//! the `rein://runs/<run-id>/report.md` and `report.json` resources. Read-only, and a run id is
//! never a path: nothing outside the workspace's own reports can be read through them.

use crate::common::{rein_json, Workspace};
use crate::mcp_server::{connect, text, within, Person};
use rmcp::model::ReadResourceRequestParams;
use serde_json::{json, Value};

const FAILING: &str = r#"return { name = "ship", description = "builds, and fails", steps = {
  { name = "build", run = function()
      rein.error("BUILD_FAILED", "the ArkTS compiler refused Index.ets",
        { file = "entry/src/main/ets/pages/Index.ets", line = 7, remedy = "declare REIN_X before using it" })
    end },
} }"#;

/// Runs the failing recipe through the CLI; its run id.
pub(crate) fn failed_run(ws: &Workspace) -> String {
    ws.file("recipes/ship.lua", FAILING);
    let (status, out) = rein_json(ws, &["recipe", "ship"]);
    assert_eq!(status, 1, "{out}");
    out["error"]["details"]["run_id"].as_str().expect("a run id").to_string()
}

async fn read(session: &crate::mcp_server::Session, uri: &str) -> Result<String, rmcp::ServiceError> {
    let result = within(uri, session.client.read_resource(ReadResourceRequestParams::new(uri))).await?;
    Ok(result
        .contents
        .iter()
        .filter_map(|c| match c {
            rmcp::model::ResourceContents::TextResourceContents { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect())
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_reads_why_a_recipe_failed_through_the_tool_and_the_resources() {
    let ws = Workspace::new();
    let run_id = failed_run(&ws);
    let session = connect(&ws, &[], &[], Person::Absent).await;
    let tools = within("tools/list", session.client.list_all_tools()).await.expect("tools/list");
    assert!(tools.iter().any(|t| t.name == "run_reports"), "listed");
    assert!(!tools.iter().any(|t| t.name.contains("undo") || t.name.contains("prune")), "undo stays with a person");

    let listed = session.ok("run_reports", json!({})).await;
    assert_eq!(listed["runs"][0]["run_id"], json!(run_id), "{listed}");
    assert_eq!(listed["runs"][0]["status"], json!("failed"), "{listed}");

    let shown = session.call("run_reports", json!({"run_id": "last"})).await;
    assert_eq!(shown.is_error, Some(false), "reading a failed run's report succeeds: {}", text(&shown));
    let markdown = text(&shown);
    for expected in [
        "BUILD_FAILED",
        "the ArkTS compiler refused Index.ets",
        "entry/src/main/ets/pages/Index.ets:7",
        "declare REIN_X before using it",
    ] {
        assert!(markdown.contains(expected), "{expected}: {markdown}");
    }
    let report = shown.structured_content.clone().expect("the report as data");
    assert_eq!((report["run_id"].clone(), report["failure"]["code"].clone()), (json!(run_id), json!("BUILD_FAILED")));

    let resources = within("resources/list", session.client.list_all_resources()).await.expect("resources/list");
    let uri = format!("rein://runs/{run_id}/report.md");
    assert!(resources.iter().any(|r| r.uri == uri), "{resources:?}");
    let templates =
        within("resources/templates/list", session.client.list_all_resource_templates()).await.expect("templates");
    assert!(templates.iter().any(|t| t.uri_template == "rein://runs/{run_id}/report.json"), "{templates:?}");
    assert_eq!(read(&session, &uri).await.expect("report.md"), markdown, "the same report either way");
    let json_text = read(&session, "rein://runs/last/report.json").await.expect("report.json");
    let as_json: Value = serde_json::from_str(&json_text).expect("JSON");
    assert_eq!(as_json["failure"]["remedy"], json!("declare REIN_X before using it"));
    session.close().await;
}

/// A run id that walks out of `.rein/runs`, or a report that is a link an agent put there to a
/// file it could not read otherwise, reads nothing.
// Symlinks: Wine 8 cannot make them (CreateSymbolicLinkW is a stub), and Windows needs developer mode or an administrator for them.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn run_ids_and_links_never_reach_outside_the_reports() {
    let ws = Workspace::new();
    let run_id = failed_run(&ws);
    // A file outside the workspace that reads as a report, holding a secret.
    let real = std::fs::read_to_string(ws.path(&format!(".rein/runs/{run_id}/report.json"))).unwrap();
    let secret = real.replace("the ArkTS compiler refused Index.ets", "SECRET-OUTSIDE-THE-WORKSPACE");
    let outside = ws.outside_file("private/report.json", &secret);
    let linked = "20991231T000000000-1";
    std::fs::create_dir_all(ws.path(&format!(".rein/runs/{linked}"))).unwrap();
    std::os::unix::fs::symlink(&outside, ws.path(&format!(".rein/runs/{linked}/report.json"))).unwrap();
    let folder = "20991231T000000000-2";
    std::os::unix::fs::symlink(outside.parent().unwrap(), ws.path(&format!(".rein/runs/{folder}"))).unwrap();

    for id in [linked, folder] {
        let (status, out) = rein_json(&ws, &["runs", "show", id]);
        assert_ne!(status, 0, "{id}: {out}");
        assert!(!out.to_string().contains("SECRET"), "rein runs show {id} read through a link: {out}");
    }
    let session = connect(&ws, &[], &[], Person::Absent).await;
    for id in [linked, folder, "../../private", "..", "/etc"] {
        let result = session.call("run_reports", json!({ "run_id": id })).await;
        assert_eq!(result.is_error, Some(true), "{id}: {}", text(&result));
        assert!(!text(&result).contains("SECRET"), "{id}: {}", text(&result));
        let uri = format!("rein://runs/{id}/report.md");
        match read(&session, &uri).await {
            Ok(text) => panic!("{uri} was read: {text}"),
            Err(e) => assert!(!e.to_string().contains("SECRET"), "{e}"),
        }
    }
    let listed = session.ok("run_reports", json!({})).await;
    assert_eq!(listed["runs"].as_array().map(Vec::len), Some(1), "only the real run is listed: {listed}");
    session.close().await;
}
