//! `rein serve` driven by rmcp's own client over stdio, the way an agent's MCP client drives
//! it: initialize, tools/list with schemas, each file tool, refusals as isError results with
//! their code, approvals with and without elicitation, recipe progress, and cancellation.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::lab::{lab, Lab};
use crate::common::{Workspace, REIN};
use rein::visible::shown_path;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, ErrorData, Implementation, ProgressNotificationParam,
};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{json, Value};
use tokio::sync::mpsc;

/// Bound on any single wait, so a hang fails with a message instead of stalling the suite.
const WAIT: Duration = Duration::from_secs(60);

/// What the test client does when rein asks the person something.
#[derive(Clone, Copy)]
pub(crate) enum Person {
    /// The client does not declare the elicitation capability.
    Absent,
    /// Declares it, and the person picks this answer ("yes", "no", "session").
    Answers(&'static str),
}

pub(crate) struct Client {
    person: Person,
    questions: Arc<Mutex<Vec<String>>>,
    progress: mpsc::UnboundedSender<ProgressNotificationParam>,
    /// notifications/tools/list_changed and log messages, as they arrive.
    events: mpsc::UnboundedSender<Value>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities = match self.person {
            Person::Absent => ClientCapabilities::default(),
            Person::Answers(_) => ClientCapabilities::builder().enable_elicitation().build(),
        };
        ClientConfig::new(capabilities, Implementation::new("rein-tests", "0"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        self.questions.lock().unwrap().push(message);
        match self.person {
            Person::Answers(answer) => {
                Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({ "answer": answer })))
            }
            Person::Absent => Ok(ElicitResult::new(ElicitationAction::Decline)),
        }
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        let _ = self.progress.send(params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.events.send(json!({"list_changed": true}));
    }

    #[allow(deprecated)] // rein still reports rejected reloads as MCP log messages
    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level).unwrap_or_default();
        let _ = self.events.send(json!({"log": params.data, "level": level}));
    }
}

/// A connected client, what the person behind it was asked, and the progress it received.
pub(crate) struct Session {
    pub(crate) client: RunningService<RoleClient, Client>,
    pub(crate) questions: Arc<Mutex<Vec<String>>>,
    progress: mpsc::UnboundedReceiver<ProgressNotificationParam>,
    pub(crate) events: mpsc::UnboundedReceiver<Value>,
}

/// `rein --workspace WS --home HOME [flags] serve` as a child process, with `env` set.
pub(crate) async fn connect(ws: &Workspace, flags: &[&str], env: &[(&str, PathBuf)], person: Person) -> Session {
    connect_serving(ws, flags, &[], env, person).await
}

/// Like [`connect`], with options of `serve` itself after it.
pub(crate) async fn connect_serving(
    ws: &Workspace,
    flags: &[&str],
    serve_flags: &[&str],
    env: &[(&str, PathBuf)],
    person: Person,
) -> Session {
    let mut cmd = tokio::process::Command::new(REIN);
    cmd.arg("--workspace").arg(&ws.ws).arg("--home").arg(&ws.home).args(flags).arg("serve").args(serve_flags);
    cmd.env_remove("REIN_HOME").env_remove("DEVECO_SDK_HOME");
    cmd.env("OHOS_HDC_SERVER_PORT", crate::common::hdc_server_port().to_string());
    for (name, value) in env {
        cmd.env(name, value);
    }
    let transport = TokioChildProcess::new(cmd).expect("spawn rein serve");
    let questions = Arc::new(Mutex::new(Vec::new()));
    let (tx, progress) = mpsc::unbounded_channel();
    let (events_tx, events) = mpsc::unbounded_channel();
    let handler = Client { person, questions: questions.clone(), progress: tx, events: events_tx };
    let client = within("initialize", handler.serve(transport)).await.expect("rein serve initializes");
    Session { client, questions, progress, events }
}

/// What the lab's rein runs with: the fakes first on PATH, `REIN_FAKE_STATE` pointing them at
/// the lab's state, the real JDK and the SDK holding the real hap-sign-tool.
fn fake_toolchain(lab: &Lab) -> Vec<(&'static str, PathBuf)> {
    lab.env()
}

pub(crate) async fn within<F: std::future::Future>(what: &str, future: F) -> F::Output {
    tokio::time::timeout(WAIT, future).await.unwrap_or_else(|_| panic!("{what} did not finish within {WAIT:?}"))
}

impl Session {
    pub(crate) async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let Value::Object(args) = args else { panic!("arguments must be an object") };
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
        within(tool, self.client.call_tool(params)).await.unwrap_or_else(|e| panic!("{tool}: protocol error {e}"))
    }

    /// A call that must succeed; returns its structuredContent.
    pub(crate) async fn ok(&self, tool: &str, args: Value) -> Value {
        let result = self.call(tool, args).await;
        assert_eq!(result.is_error, Some(false), "{tool} should succeed: {}", text(&result));
        result.structured_content.clone().expect("structuredContent")
    }

    /// A call that must fail with `code`; returns `{code, message, details}`.
    pub(crate) async fn refused(&self, tool: &str, args: Value, code: &str) -> Value {
        let result = self.call(tool, args).await;
        assert_eq!(result.is_error, Some(true), "{tool} should fail with {code}: {}", text(&result));
        let error = result.structured_content.clone().expect("structuredContent");
        assert_eq!(error["code"], code, "{tool}: {error}");
        assert!(!error["message"].as_str().unwrap_or("").is_empty(), "{error}");
        assert!(text(&result).starts_with(code), "the text starts with the code: {}", text(&result));
        error
    }

    /// The next progress notification, or a panic naming what was awaited.
    async fn next_progress(&mut self, awaited: &str) -> ProgressNotificationParam {
        within(awaited, self.progress.recv()).await.expect("the client is still running")
    }

    /// Progress notifications until `done` holds for what arrived, in the order of their
    /// progress: the client handles notifications concurrently, so two sent a moment apart
    /// may reach the handler in either order; their progress says which came first.
    async fn progress_until(
        &mut self,
        awaited: &str,
        done: impl Fn(&[ProgressNotificationParam]) -> bool,
    ) -> Vec<ProgressNotificationParam> {
        let mut heard = Vec::new();
        while !done(&heard) {
            heard.push(self.next_progress(awaited).await);
        }
        heard.sort_by(|a, b| a.progress.total_cmp(&b.progress));
        heard
    }

    pub(crate) async fn close(self) {
        let _ = within("closing the client", self.client.cancel()).await;
    }
}

pub(crate) fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.clone()).collect::<Vec<_>>().join("\n")
}

#[tokio::test(flavor = "multi_thread")]
async fn initialize_and_list_every_tool_and_recipe_with_its_schema() {
    let ws = Workspace::new();
    let session = connect(&ws, &[], &[], Person::Absent).await;
    let server = session.client.peer_info().expect("the server introduced itself");
    assert_eq!(server.server_info.as_ref().map(|i| i.name.as_str()), Some("rein"));
    assert!(server.capabilities.tools.is_some());
    let tools = within("tools/list", session.client.list_all_tools()).await.expect("tools/list");
    let named =
        |name: &str| tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no tool {name} in tools/list"));
    for name in ["read_file", "write_file", "edit_file", "multi_edit", "list_dir"] {
        let tool = named(name);
        assert!(!tool.description.as_deref().unwrap_or("").is_empty(), "{name} has a description");
        assert_eq!(tool.input_schema["type"], "object", "{name}");
    }
    let read = named("read_file");
    assert_eq!(read.input_schema["required"], json!(["path"]));
    // Which hint the kernel enforces, in a few bytes: only for the tools that declare one.
    let enforced = |name: &str| named(name).meta.as_ref().and_then(|m| m.0.get("rein/enforced").cloned());
    assert_eq!(enforced("read_file"), Some(json!("readOnlyHint")));
    assert_eq!(enforced("device_ready"), Some(json!("destructiveHint")));
    assert_eq!(enforced("write_file"), None);
    assert_eq!(read.input_schema["properties"]["path"]["type"], "string");
    assert_eq!(named("edit_file").input_schema["properties"]["replace_all"]["type"], "boolean");
    for name in ["recipe_build_verify", "recipe_sign_install_launch", "recipe_edit_and_verify"] {
        let recipe = named(name);
        assert!(!recipe.description.as_deref().unwrap_or("").is_empty(), "{name} has a description");
        assert_eq!(recipe.input_schema["type"], "object", "{name}");
    }
    assert_eq!(
        named("recipe_build_verify").input_schema["properties"]["build_mode"]["enum"],
        json!(["debug", "release"])
    );
    assert!(tools.iter().all(|t| !t.name.contains('-')), "MCP names use underscores");
    session.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn each_file_tool_works_over_mcp() {
    let ws = Workspace::new();
    let session = connect(&ws, &[], &[], Person::Absent).await;

    let written = session.ok("write_file", json!({"path": "notes/a.txt", "content": "one\ntwo\nthree\n"})).await;
    assert_eq!(written["created"], true);
    assert_eq!(ws.read("notes/a.txt"), b"one\ntwo\nthree\n");

    let read = session.call("read_file", json!({"path": "notes/a.txt"})).await;
    let structured = read.structured_content.clone().unwrap();
    assert_eq!(structured["content"], "     1\tone\n     2\ttwo\n     3\tthree");
    assert_eq!(structured["sha256"], written["sha256"]);
    let pretty: Value = serde_json::from_str(&text(&read)).expect("the text is the result as JSON");
    assert_eq!(pretty, structured);

    let edited =
        session.ok("edit_file", json!({"path": "notes/a.txt", "old_string": "two", "new_string": "TWO"})).await;
    assert_eq!(edited["replacements"], 1);
    assert!(edited["diff"].as_str().unwrap().contains("+TWO"), "{edited}");
    assert_eq!(ws.read("notes/a.txt"), b"one\nTWO\nthree\n");

    session.ok("read_file", json!({"path": "notes/a.txt"})).await;
    let edits = json!([{"old_string": "one", "new_string": "1"}, {"old_string": "three", "new_string": "3"}]);
    let multi = session.ok("multi_edit", json!({"path": "notes/a.txt", "edits": edits})).await;
    assert_eq!(multi["edits"].as_array().map(Vec::len), Some(2), "{multi}");
    assert_eq!(ws.read("notes/a.txt"), b"1\nTWO\n3\n");

    let listed = session.ok("list_dir", json!({"path": "notes"})).await;
    let paths: Vec<&str> = listed["entries"].as_array().unwrap().iter().filter_map(|e| e["path"].as_str()).collect();
    assert!(paths.iter().any(|p| p.ends_with("a.txt")), "{listed}");
    session.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn refusals_are_error_results_with_their_code_not_protocol_errors() {
    let ws = Workspace::new();
    ws.file("twice.txt", "x = 1\nx = 1\n");
    let session = connect(&ws, &[], &[], Person::Absent).await;
    session.ok("read_file", json!({"path": "twice.txt"})).await;
    let error = session
        .refused(
            "edit_file",
            json!({"path": "twice.txt", "old_string": "x = 1", "new_string": "x = 2"}),
            "OLD_STRING_NOT_UNIQUE",
        )
        .await;
    assert_eq!(error["details"]["count"], 2, "{error}");
    assert_eq!(error["details"]["locations"].as_array().map(Vec::len), Some(2), "{error}");
    assert_eq!(ws.read("twice.txt"), b"x = 1\nx = 1\n", "a refusal changes nothing");

    let error = session.refused("no_such_tool", json!({}), "TOOL_NOT_FOUND").await;
    assert!(error["details"]["available"].as_array().is_some_and(|a| a.contains(&json!("read_file"))), "{error}");
    session.refused("read_file", json!({"offset": 2}), "INVALID_ARGS").await;
    // The session survives its refusals.
    session.ok("list_dir", json!({})).await;
    session.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn without_elicitation_a_write_outside_needs_approval_and_yes_is_not_honoured() {
    let ws = Workspace::new();
    let outside = ws.root.join("outside/out.txt");
    for flags in [&[][..], &["--yes"][..]] {
        let session = connect(&ws, flags, &[], Person::Absent).await;
        let args = json!({"path": outside.display().to_string(), "content": "hi\n"});
        let error = session.refused("write_file", args, "APPROVAL_REQUIRED").await;
        let grant = error["details"]["grant"].as_str().unwrap_or_else(|| panic!("a grant command: {error}"));
        assert!(grant.starts_with("rein approvals grant"), "{grant}");
        assert!(error["message"].as_str().unwrap().contains(grant), "the message gives the command: {error}");
        assert!(!error["message"].as_str().unwrap().contains("--yes"), "rein serve ignores --yes: {error}");
        assert!(!outside.exists(), "nothing was written (flags {flags:?})");
        assert!(session.questions.lock().unwrap().is_empty(), "nobody was asked");
        session.close().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn with_elicitation_the_person_decides() {
    let ws = Workspace::new();
    let outside = ws.root.join("outside/out.txt");
    let args = json!({"path": outside.display().to_string(), "content": "approved\n"});

    let session = connect(&ws, &[], &[], Person::Answers("no")).await;
    let error = session.refused("write_file", args.clone(), "APPROVAL_DENIED").await;
    assert!(error["message"].as_str().unwrap().contains("a person said no"), "{error}");
    assert_eq!(session.questions.lock().unwrap().len(), 1, "the person was asked once");
    assert!(!outside.exists());
    session.close().await;

    let session = connect(&ws, &[], &[], Person::Answers("yes")).await;
    let written = session.ok("write_file", args).await;
    assert_eq!(written["created"], true);
    assert_eq!(std::fs::read(&outside).unwrap(), b"approved\n");
    let questions = session.questions.lock().unwrap().clone();
    assert_eq!(questions.len(), 1, "{questions:?}");
    assert!(questions[0].contains(&shown_path(&outside)), "the question names the path: {questions:?}");
    session.close().await;

    // "Always, this session": the same write again is not asked about again.
    let session = connect(&ws, &[], &[], Person::Answers("session")).await;
    let again = ws.root.join("outside/again.txt");
    for content in ["one\n", "two\n"] {
        session.ok("write_file", json!({"path": again.display().to_string(), "content": content})).await;
    }
    assert_eq!(std::fs::read(&again).unwrap(), b"two\n");
    assert_eq!(session.questions.lock().unwrap().len(), 1, "asked once for the session");
    session.close().await;

    // rein's home is a person's to change at a terminal: nobody is even asked over MCP.
    let session = connect(&ws, &[], &[], Person::Answers("yes")).await;
    let home_file = ws.home.join("approvals.toml");
    let args = json!({"path": home_file.display().to_string(), "content": "[[rule]]\n"});
    session.refused("write_file", args, "APPROVAL_REQUIRED").await;
    assert!(session.questions.lock().unwrap().is_empty(), "nobody is asked about rein's home");
    assert!(!home_file.exists());
    session.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_recipe_reports_progress_per_step_and_returns_its_report() {
    let Some(lab) = lab() else { return };
    let mut session = connect(&lab.ws, &[], &fake_toolchain(&lab), Person::Absent).await;
    let result = session.call("recipe_build_verify", json!({})).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    let structured = result.structured_content.clone().unwrap();
    assert_eq!(structured["status"], "succeeded", "{structured}");
    let report = PathBuf::from(structured["report"].as_str().unwrap());
    assert!(report.exists(), "{}", report.display());
    assert!(text(&result).contains("succeeded"), "the text is the report: {}", text(&result));

    // The step's start, the programs it runs counting up towards its end, and its end.
    let ended = |heard: &[ProgressNotificationParam]| {
        let said = |start: &str| heard.iter().any(|p| p.message.as_deref().unwrap_or("").starts_with(start));
        said("[1/1] build started") && said("[1/1] build verified") && said("hvigorw ended: exit 0")
    };
    let heard = session.progress_until("the build step's start, programs and end", ended).await;
    let messages: Vec<&str> = heard.iter().map(|p| p.message.as_deref().unwrap_or("")).collect();
    assert_eq!((heard[0].progress, messages[0]), (1.0, "[1/1] build started"), "{heard:?}");
    assert!(messages[1].starts_with("running hvigorw"), "{messages:?}");
    let last = heard.last().unwrap();
    assert_eq!(last.progress, 2.0, "{heard:?}");
    assert!(last.message.as_deref().unwrap_or("").starts_with("[1/1] build verified"), "{heard:?}");
    assert!(heard.windows(2).all(|w| w[0].progress < w[1].progress), "no two share a progress: {heard:?}");
    assert!(heard.iter().all(|p| p.total == Some(2.0)), "{heard:?}");
    session.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_recipe_asks_the_person_before_installing_and_launching() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    let session = connect(&lab.ws, &[], &fake_toolchain(&lab), Person::Answers("yes")).await;
    let result = session.call("recipe_sign_install_launch", json!({})).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    let questions = session.questions.lock().unwrap().clone();
    assert!(questions.iter().any(|q| q.contains("hdc") && q.contains("install")), "{questions:?}");
    assert!(questions.iter().any(|q| q.contains("aa start")), "{questions:?}");
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(result.structured_content.unwrap()["report"].as_str().unwrap()).unwrap(),
    )
    .unwrap();
    let install = report["steps"].as_array().unwrap().iter().find(|s| s["name"] == "install").unwrap();
    assert_eq!(install["approvals"][0]["decided_by"], json!({"approver": "mcp elicitation"}), "{install}");
    session.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_recipe_returns_the_arkts_errors_with_their_locations() {
    let Some(lab) = lab() else { return };
    let page = "entry/src/main/ets/pages/Index.ets";
    let source = std::fs::read_to_string(lab.ws.path(page)).unwrap();
    std::fs::write(lab.ws.path(page), source.replacen("build() {", "build() {\n    REIN_FAKE_ARKTS_ERROR", 1)).unwrap();
    let session = connect(&lab.ws, &[], &fake_toolchain(&lab), Person::Absent).await;
    let error = session.refused("recipe_build_verify", json!({}), "STEP_FAILED").await;
    let failure = &error["details"]["failure"];
    assert_eq!(failure["code"], "BUILD_FAILED", "{error}");
    let first = &failure["details"]["errors"][0];
    // As hvigor prints it, from the folder rein runs it in: the familiar form (C:\… on Windows).
    let file = shown_path(lab.ws.path(page));
    assert_eq!(
        (first["file"].as_str(), first["line"].as_u64(), first["column"].as_u64()),
        (Some(file.as_str()), Some(7), Some(5))
    );
    assert_eq!(first["code"], "10505001");
    let result = session.call("recipe_build_verify", json!({})).await;
    assert!(text(&result).contains(&format!("- error `{file}:7:5`: 10505001 Cannot find name")), "{}", text(&result));
    session.close().await;
}

// Unix only for now: drives the fakes and watches the program's pid through kill(2) and /proc.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_tool_call_stops_its_program() {
    let Some(lab) = lab() else { return };
    lab.scenario(json!({"hvigorw": {"sleep_ms": 600000}}));
    let session = connect(&lab.ws, &[], &fake_toolchain(&lab), Person::Absent).await;
    let handle = start_cancellable(&session.client, "hvigor_build").await;
    let hvigorw = hvigorw_pid(&lab.state.join("calls.log")).await;
    within("cancelling", handle.cancel(Some("changed my mind".into()))).await.expect("cancel sent");
    assert!(gone(hvigorw).await, "hvigorw {hvigorw} survived the cancellation");
    session.ok("list_dir", json!({})).await;
    session.close().await;
}

// Unix only for now: drives the fakes and watches the program's pid through kill(2) and /proc.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn cancelling_a_recipe_stops_its_build_and_still_writes_the_report() {
    let Some(lab) = lab() else { return };
    lab.scenario(json!({"hvigorw": {"sleep_ms": 600000}}));
    let mut session = connect(&lab.ws, &[], &fake_toolchain(&lab), Person::Absent).await;
    let handle = start_cancellable(&session.client, "recipe_build_verify").await;
    let heard = session
        .progress_until("the build step's start and its build", |heard| {
            heard.iter().any(|p| p.message.as_deref() == Some("[1/1] build started"))
                && heard.iter().any(|p| p.message.as_deref().unwrap_or("").starts_with("running hvigorw"))
        })
        .await;
    assert_eq!(heard[0].message.as_deref(), Some("[1/1] build started"), "{heard:?}");
    let hvigorw = hvigorw_pid(&lab.state.join("calls.log")).await;
    assert!(alive(hvigorw), "hvigorw {hvigorw} runs before the cancel");

    within("cancelling", handle.cancel(Some("the person pressed stop".into()))).await.expect("cancel sent");
    let report = cancelled_report(&lab.ws.path(".rein/runs")).await;
    assert_eq!(report["steps"][0]["status"], "cancelled", "{report}");
    assert_eq!(report["failure"]["code"], "CANCELLED", "{report}");
    assert!(gone(hvigorw).await, "hvigorw {hvigorw} survived the cancellation");

    // The server keeps serving after a cancelled call.
    let result = session.call("list_dir", json!({})).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    assert!(matches!(result.structured_content, Some(Value::Object(_))));
    session.close().await;
}

/// A `tools/call` of `tool` (no arguments) sent so that it can be cancelled.
#[cfg(unix)]
async fn start_cancellable(
    peer: &rmcp::Peer<RoleClient>,
    tool: &'static str,
) -> rmcp::service::RequestHandle<RoleClient> {
    let params = CallToolRequestParams::new(tool).with_arguments(Default::default());
    let request = rmcp::model::ClientRequest::CallToolRequest(rmcp::model::Request::new(params));
    within("sending the call", peer.send_cancellable_request(request, rmcp::service::PeerRequestOptions::no_options()))
        .await
        .expect("the request is sent")
}

/// The pid of the first hvigorw the fakes logged, once it has started.
#[cfg(unix)]
async fn hvigorw_pid(calls: &std::path::Path) -> i32 {
    let until = std::time::Instant::now() + WAIT;
    loop {
        let text = std::fs::read_to_string(calls).unwrap_or_default();
        let pid = text
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|c| c["program"] == "hvigorw")
            .and_then(|c| c["pid"].as_i64());
        if let Some(pid) = pid {
            return pid as i32;
        }
        assert!(std::time::Instant::now() < until, "hvigorw never started ({})", calls.display());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The report of the one run under `runs`, once it is written with status "cancelled".
#[cfg(unix)]
async fn cancelled_report(runs: &std::path::Path) -> Value {
    let until = std::time::Instant::now() + WAIT;
    loop {
        let reports: Vec<Value> = std::fs::read_dir(runs)
            .into_iter()
            .flatten()
            .flatten()
            .filter_map(|run| std::fs::read_to_string(run.path().join("report.json")).ok())
            .filter_map(|text| serde_json::from_str(&text).ok())
            .collect();
        if let Some(report) = reports.iter().find(|r| r["status"] == "cancelled") {
            return report.clone();
        }
        assert!(std::time::Instant::now() < until, "no cancelled report under {} (found {reports:?})", runs.display());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[cfg(unix)]
fn alive(pid: i32) -> bool {
    // SAFETY: signal 0 only probes.
    unsafe { libc::kill(pid, 0) == 0 }
}

#[cfg(unix)]
async fn gone(pid: i32) -> bool {
    let until = std::time::Instant::now() + Duration::from_secs(10);
    while std::time::Instant::now() < until {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        if !alive(pid) || status.contains("State:\tZ") {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

pub(crate) fn greet_tool(version: &str) -> String {
    format!(
        r#"return {{ name = "greet", description = "greets",
  checks = {{ {{ args = {{}}, expect = {{ text = "{version}" }} }} }},
  run = function() return {{ text = "{version}" }} end }}
"#
    )
}

/// How many `notifications/tools/list_changed` are among `events`.
pub(crate) fn list_changes(events: &[Value]) -> usize {
    events.iter().filter(|e| e["list_changed"] == json!(true)).count()
}

/// The data of the log messages at `level` among `events`.
pub(crate) fn logs_at(events: &[Value], level: &str) -> Vec<Value> {
    events.iter().filter(|e| e["level"] == json!(level)).map(|e| e["log"].clone()).collect()
}

impl Session {
    /// Every event from the next one (awaited up to 10 s) until `quiet` passes without one.
    pub(crate) async fn events_until_quiet(&mut self, awaited: &str, quiet: Duration) -> Vec<Value> {
        let mut events = vec![self.next_event(awaited, Duration::from_secs(10)).await];
        while let Ok(Some(event)) = tokio::time::timeout(quiet, self.events.recv()).await {
            events.push(event);
            assert!(events.len() < 50, "events keep coming after {awaited}: {events:?}");
        }
        events
    }

    pub(crate) async fn next_event(&mut self, awaited: &str, limit: Duration) -> Value {
        tokio::time::timeout(limit, self.events.recv())
            .await
            .unwrap_or_else(|_| panic!("{awaited} did not arrive within {limit:?}"))
            .expect("the client is still running")
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edited_tool_serves_its_new_behaviour_and_a_broken_edit_keeps_the_old() {
    let ws = Workspace::new();
    ws.file("tools/greet.lua", greet_tool("v1"));
    let mut session = connect(&ws, &[], &[], Person::Absent).await;
    assert_eq!(session.ok("greet", json!({})).await["text"], json!("v1"));
    ws.file("tools/greet.lua", greet_tool("v2"));
    let events = session.events_until_quiet("the reload of v2", Duration::from_secs(2)).await;
    assert_eq!(list_changes(&events), 1, "{events:?}");
    assert_eq!(session.ok("greet", json!({})).await["text"], json!("v2"));
    ws.file("tools/greet.lua", "return { name = 'greet',, }");
    let events = session.events_until_quiet("a log message about the rejected reload", Duration::from_secs(2)).await;
    assert_eq!(list_changes(&events), 0, "{events:?}");
    let errors = logs_at(&events, "error");
    assert_eq!(errors.len(), 1, "{events:?}");
    assert!(errors[0]["problems"].to_string().contains("tools/greet.lua:1"), "{events:?}");
    assert_eq!(session.ok("greet", json!({})).await["text"], json!("v2"), "the old version keeps serving");
    let failing_check = greet_tool("v3").replace("expect = { text = \"v3\" }", "expect = { text = \"not v3\" }");
    ws.file("tools/greet.lua", failing_check);
    let events = session.events_until_quiet("a log message about the failing check", Duration::from_secs(2)).await;
    assert!(logs_at(&events, "error")[0]["problems"].to_string().contains("check 1 of greet"), "{events:?}");
    assert_eq!(session.ok("greet", json!({})).await["text"], json!("v2"), "still the old version");
    session.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn no_call_fails_while_a_client_loops_during_twenty_reloads() {
    let ws = Workspace::new();
    ws.file("tools/greet.lua", greet_tool("v0"));
    let mut session = connect(&ws, &[], &[], Person::Absent).await;
    let client = session.client.peer().clone();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let looping = {
        let stop = stop.clone();
        tokio::spawn(async move {
            let (mut calls, mut failures) = (0, 0);
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let result = client.call_tool(CallToolRequestParams::new("greet".to_string())).await;
                match result {
                    Ok(r) if r.is_error == Some(false) => calls += 1,
                    _ => failures += 1,
                }
            }
            (calls, failures)
        })
    };
    for i in 1..=20 {
        ws.file("tools/greet.lua", greet_tool(&format!("v{i}")));
        let events = session.events_until_quiet("list_changed after a reload", Duration::from_millis(400)).await;
        assert_eq!(list_changes(&events), 1, "reload {i}: {events:?}");
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (calls, failures) = within("the looping client", looping).await.unwrap();
    assert_eq!(failures, 0, "{failures} of {} calls failed during the reloads", calls + failures);
    assert!(calls > 0);
    assert_eq!(session.ok("greet", json!({})).await["text"], json!("v20"));
    session.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn edits_need_a_read_in_this_connection_and_fail_on_a_stale_read() {
    let ws = Workspace::new();
    ws.file("a.ets", "let a = 1;\n");
    let session = connect(&ws, &[], &[], Person::Absent).await;
    let edit = json!({"path": "a.ets", "old_string": "1", "new_string": "2"});
    let error = session.refused("edit_file", edit.clone(), "NOT_READ").await;
    assert!(error["message"].as_str().unwrap().contains("read_file"));
    session.refused("write_file", json!({"path": "a.ets", "content": "x"}), "NOT_READ").await;
    let read = session.ok("read_file", json!({"path": "a.ets"})).await;
    ws.file("a.ets", "let a = 1; // changed by someone else\n");
    let error = session.refused("edit_file", edit.clone(), "STALE_FILE").await;
    assert_eq!(error["details"]["expected_sha256"], read["sha256"]);
    session.ok("read_file", json!({"path": "a.ets"})).await;
    session.ok("edit_file", edit).await;
    session.close().await;
    let relaxed = connect_serving(&ws, &[], &["--no-read-before-edit"], &[], Person::Absent).await;
    relaxed.ok("edit_file", json!({"path": "a.ets", "old_string": "2", "new_string": "3"})).await;
    relaxed.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_build_call_reports_its_programs_as_progress() {
    let Some(lab) = lab() else { return };
    let mut session = connect(&lab.ws, &[], &fake_toolchain(&lab), Person::Absent).await;
    let result = session.call("hvigor_build", json!({})).await;
    assert_eq!(result.is_error, Some(false), "{}", text(&result));
    let started = session.next_progress("the build's start").await;
    assert!(started.message.as_deref().unwrap_or("").starts_with("running hvigorw --mode module"), "{started:?}");
    let ended = session.next_progress("the build's end").await;
    assert!(ended.message.as_deref().unwrap_or("").starts_with("hvigorw ended: exit 0"), "{ended:?}");
    assert!(ended.progress > started.progress);
    session.close().await;
}
