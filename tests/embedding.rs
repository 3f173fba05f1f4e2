//! rein embedded in another program: a native module the program registers is used by Lua
//! tools like a built-in (its writes go through the kernel and its policy, its table is
//! sealed, a wrong call is a coded failure and a load problem, the stubs show it), tools and
//! recipes can be given as text, and the program hears what happens as typed events, in
//! order, each naming its call.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::common::lab::fakes_bin;
use crate::common::Workspace;
use rein::error::Code;
use rein::kernel::events::{Ended, RunStatus, StepStatus};
use rein::kernel::policy::{Answer, ApprovalRequest, Approver, Asked, DecidedBy};
use rein::kernel::{Event, EventKind};
use rein::lua::{NativeFunction, NativeModule};

/// `rein.ide.save(path, text)`: writes through the kernel, as the call it serves.
fn ide_module() -> NativeModule {
    let save = NativeFunction::new("save", "Saves a note the IDE shows.", |call, args| {
        let (path, text) = (args[0].as_str().unwrap_or_default(), args[1].as_str().unwrap_or_default());
        let written = call.write(path, text.as_bytes(), None)?;
        Ok(json!({"path": written.path, "bytes": written.bytes, "caller": call.caller()}))
    })
    .param("path", "string", "where, relative to the workspace")
    .param("text", "string", "")
    .returns("{path: string, bytes: integer}", "what was written");
    NativeModule::new("ide", "The IDE around the project.").function(save)
}

const NOTE_TOOL: &str = r#"return {
  name = "note", description = "saves a note through the IDE",
  params = { path = { type = "string" }, text = { type = "string" } },
  checks = { { args = { path = "a.md", text = "x" }, expect = { bytes = 1, path = "a.md" } } },
  run = function(args)
    local ok, err = pcall(rein.ide.save, args.path, args.text)
    if ok then return err end
    return { refused = err.code, message = err.message }
  end,
}"#;

fn host_with_ide(ws: &Workspace) -> rein::Host {
    rein::Host::builder()
        .workspace(&ws.ws)
        .home(&ws.home)
        .module(ide_module())
        .tool_source("note", NOTE_TOOL)
        .build()
        .expect("a host with the ide module")
}

#[test]
fn a_native_module_writes_through_the_kernel_inside_the_workspace_and_is_refused_outside() {
    let ws = Workspace::new();
    let host = host_with_ide(&ws);
    let inside = host.call("note", json!({"path": "notes/today.md", "text": "ship it\n"})).unwrap();
    assert_eq!(inside["bytes"], 8, "{inside}");
    assert_eq!(inside["caller"], "note", "the function knows which tool called it: {inside}");
    assert_eq!(ws.read("notes/today.md"), b"ship it\n");

    let outside = ws.root.join("outside.md");
    let before = ws.snapshot();
    let refused = host.call("note", json!({"path": outside.display().to_string(), "text": "x"})).unwrap();
    assert_eq!(refused["refused"], "APPROVAL_REQUIRED", "a coded failure the script can catch: {refused}");
    assert!(refused["message"].as_str().unwrap().contains("rein approvals grant"), "{refused}");
    before.assert_unchanged("a refused native write");
    let journal = std::fs::read_to_string(host.kernel().journal().path()).unwrap();
    let refusal = journal.lines().find(|l| l.contains("outside.md")).expect("the refusal is journaled");
    assert!(refusal.contains("\"decision\":\"refused\""), "{refusal}");

    // The tool's checks run in a scratch workspace with the module too.
    let checks = rein::host::checks::run_all(&host, Some("note")).unwrap();
    assert!(checks.len() == 1 && checks[0].passed, "{checks:?}");

    let failure = host.call("note", json!({"path": "notes/today.md"})).unwrap_err();
    assert_eq!(failure.code, Code::InvalidArgs, "the tool's own schema still applies: {failure:?}");
}

#[test]
fn a_native_module_is_sealed_and_checks_its_arguments() {
    let ws = Workspace::new();
    let probe = r#"return { name = "probe", description = "tries to change rein.ide and misuses it",
  params = { what = { type = "string" } },
  run = function(args)
    if args.what == "replace" then rein.ide.save = function() return "hijacked" end end
    if args.what == "add" then rein.ide.extra = 1 end
    if args.what == "rawset" then rawset(rein.ide, "save", 1) end
    if args.what == "wrong" then return rein.ide.save(42, "x") end
    return "untouched"
  end }"#;
    let host = rein::Host::builder()
        .workspace(&ws.ws)
        .home(&ws.home)
        .module(ide_module())
        .tool_source("probe", probe)
        .build()
        .unwrap();
    for what in ["replace", "add", "rawset"] {
        let failure = host.call("probe", json!({"what": what})).unwrap_err();
        assert_eq!(failure.code, Code::LuaError, "{what}: {failure:?}");
        assert!(failure.message.contains("read-only"), "{what}: {}", failure.message);
    }
    let wrong = host.call("probe", json!({"what": "wrong"})).unwrap_err();
    assert_eq!(wrong.code, Code::InvalidArgs, "{wrong:?}");
    assert!(
        wrong.message.contains("rein.ide.save: argument 1 (path) must be string, got integer"),
        "{}",
        wrong.message
    );
    assert!(!ws.path("42").exists());
}

#[test]
fn check_flags_a_wrong_call_of_a_native_module_with_its_line() {
    let ws = Workspace::new();
    // Called while the file loads, as a tool may to set itself up: `rein check` lists it.
    ws.file(
        "tools/setup.lua",
        "local saved = rein.ide.save('notes/a.md')\nreturn { name = 'setup', description = 'd', run = function() end }\n",
    );
    let host = host_with_ide(&ws);
    let problems = host.problems();
    let problem = problems.iter().find(|p| p.file == "tools/setup.lua").expect("the wrong call is a load problem");
    assert_eq!(problem.line, Some(1), "{problem}");
    assert!(problem.message.contains("rein.ide.save: argument 2 (text) must be string, got nothing"), "{problem}");
    assert!(host.tool("note").is_some(), "the other tools still serve");

    // A tool given as text is checked the same way, and named as the embedder's.
    let host = rein::Host::builder()
        .workspace(&ws.ws)
        .home(&ws.home)
        .tool_source("broken", "return {\n  name = ,\n}\n")
        .build()
        .unwrap();
    let problems = host.problems();
    let given = problems.iter().find(|p| p.file == "<embedder>/tools/broken.lua").expect("a problem in the given text");
    assert_eq!(given.line, Some(2), "{given}");
}

#[test]
fn a_bad_native_module_fails_the_build_with_invalid_config() {
    let ws = Workspace::new();
    let clash = NativeModule::new("fs", "mine");
    let failure = rein::Host::builder().workspace(&ws.ws).home(&ws.home).module(clash).build().err().unwrap();
    assert_eq!(failure.code, Code::InvalidConfig, "{failure:?}");
    let untyped = NativeModule::new("ide", "")
        .function(NativeFunction::new("f", "", |_, _| Ok(Value::Null)).param("x", "path", ""));
    let failure = rein::Host::builder().workspace(&ws.ws).home(&ws.home).module(untyped).build().err().unwrap();
    assert!(failure.message.contains("\"path\""), "{}", failure.message);
    let escaping = rein::Host::builder().workspace(&ws.ws).home(&ws.home).tool_source("../x", "return {}").build();
    assert_eq!(escaping.err().unwrap().code, Code::InvalidConfig, "a tool given as text has a plain name");
}

#[test]
fn the_stubs_show_a_native_module_like_a_built_in() {
    let ws = Workspace::new();
    let host = host_with_ide(&ws);
    let dir = ws.path(".rein/types");
    host.write_types(&dir).unwrap();
    let stub = std::fs::read_to_string(dir.join("rein.lua")).unwrap();
    assert!(stub.contains("function rein.fs.write(path, content, opts) end"), "rein's own natives stay");
    assert!(stub.contains("---The IDE around the project.\nrein.ide = {}\n"), "{stub}");
    assert!(
        stub.contains(
            "---Saves a note the IDE shows.\n---@param path string where, relative to the workspace\n---@param text string\n---@return {path: string, bytes: integer} # what was written\nfunction rein.ide.save(path, text) end\n"
        ),
        "{stub}"
    );
    let selene = std::fs::read_to_string(dir.join("rein.yml")).unwrap();
    assert!(selene.ends_with("  rein.ide.save:\n    args:\n      - type: string\n      - type: string\n"), "{selene}");
}

/// Answers yes once and remembers what it was asked, as an IDE's own dialog would.
#[derive(Default)]
struct Person {
    asked: Mutex<Vec<String>>,
}

impl Approver for Person {
    fn answer(&self, request: &ApprovalRequest) -> Answer {
        self.asked.lock().unwrap().push(request.what.clone());
        Answer::Once
    }

    fn name(&self) -> &'static str {
        "ide-dialog"
    }

    fn is_person(&self) -> bool {
        true
    }
}

const SHIP_RECIPE: &str = r#"return { name = "ship", description = "installs the hap", steps = {
  { name = "install",
    run = function() return rein.proc.run("hdc", { "install", "-r", "x.hap" }) end,
    verify = function(_, out) return out.code == 0, "hdc exited 0" end },
} }"#;

/// A workspace whose hdc is the fake toolchain's (tests/fakes/bin/hdc).
fn fake_hdc_workspace() -> Workspace {
    let ws = Workspace::new();
    let hdc = fakes_bin().join("hdc");
    std::fs::write(ws.home.join("config.toml"), format!("[toolchain]\nhdc = \"{}\"\n", hdc.display())).unwrap();
    ws.file("x.hap", "hap");
    ws
}

/// The event kinds, with what varies from run to run (ids, times) taken out.
fn shape(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .map(|e| {
            let mut v = serde_json::to_value(e).unwrap();
            let object = v.as_object_mut().unwrap();
            for varying in ["call", "duration_ms", "run_id"] {
                object.remove(varying);
            }
            v
        })
        .collect()
}

#[test]
fn a_recipe_run_streams_its_events_in_order_with_one_approval_and_one_program() {
    let ws = fake_hdc_workspace();
    let person = Arc::new(Person::default());
    let host = rein::Host::builder()
        .workspace(&ws.ws)
        .home(&ws.home)
        .approver(person.clone())
        .recipe_source("ship", SHIP_RECIPE)
        .build()
        .unwrap();
    let events = host.subscribe();
    let report = host.run_recipe("ship", json!({}), None, false).unwrap();
    assert_eq!(report.status, RunStatus::Succeeded, "{}", report.to_markdown());
    // Listeners are told synchronously, so the run's events are all there once it returned.
    let events: Vec<Event> = events.try_iter().collect();
    let call = events[0].call.expect("every event of the run names its call");
    assert!(events.iter().all(|e| e.call == Some(call)), "one call: {events:?}");
    assert_eq!(
        shape(&events),
        vec![
            json!({"event": "recipe_started", "actor": "ship", "recipe": "ship", "steps": 1}),
            json!({"event": "step_started", "actor": "ship", "recipe": "ship", "step": "install", "number": 1, "total": 1}),
            json!({"event": "approval_asked", "actor": "ship", "what": "hdc install -r x.hap", "why": events_why(&events), "who": "anyone"}),
            json!({"event": "approval_answered", "actor": "ship", "what": "hdc install -r x.hap", "allowed": true, "by": {"approver": "ide-dialog"}, "person": true}),
            json!({"event": "program_spawned", "actor": "ship", "program": "hdc", "argv": ["install", "-r", "x.hap"], "command": "hdc install -r x.hap"}),
            json!({"event": "program_exited", "actor": "ship", "program": "hdc", "code": 0, "signal": null, "timed_out": false}),
            json!({"event": "step_ended", "actor": "ship", "recipe": "ship", "step": "install", "number": 1, "total": 1, "status": "verified"}),
            json!({"event": "recipe_ended", "actor": "ship", "recipe": "ship", "status": "succeeded"}),
        ]
    );
    assert_eq!(*person.asked.lock().unwrap(), vec!["hdc install -r x.hap".to_string()]);
    let ended = events.last().unwrap();
    assert!(matches!(&ended.kind, EventKind::RecipeEnded { run_id, .. } if *run_id == report.run_id));
    let step = events.iter().find_map(|e| match &e.kind {
        EventKind::StepEnded { status, .. } => Some(*status),
        _ => None,
    });
    assert_eq!(step, Some(StepStatus::Verified));
}

fn events_why(events: &[Event]) -> String {
    events
        .iter()
        .find_map(|e| match &e.kind {
            EventKind::ApprovalAsked { why, .. } => Some(why.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

#[test]
fn a_call_listener_hears_only_its_own_call_and_who_refused() {
    let ws = fake_hdc_workspace();
    ws.file(
        "tools/hdc_raw.lua",
        "return { name = 'hdc_raw', description = 'runs hdc', params = { args = { type = 'array', items = { type = 'string' } } }, run = function(a) return rein.proc.run('hdc', a.args) end }",
    );
    let host = rein::Host::builder().workspace(&ws.ws).home(&ws.home).build().unwrap();
    let everything = host.subscribe();
    let heard = |call: rein::kernel::Call| {
        let (tx, rx) = std::sync::mpsc::channel();
        let call = call.with_listener(Arc::new(move |e: &Event| tx.send(e.clone()).unwrap()));
        (call, rx)
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let (a, a_heard) = heard(host.new_call());
    let (b, b_heard) = heard(host.new_call());
    runtime.block_on(async {
        host.call_with(a, "hdc_raw", json!({"args": ["list", "targets"]})).await.unwrap();
        let refused = host.call_with(b, "hdc_raw", json!({"args": ["install", "-r", "x.hap"]})).await.unwrap_err();
        assert_eq!(refused.code, Code::ApprovalRequired);
    });
    let a_heard: Vec<Event> = a_heard.try_iter().collect();
    let b_heard: Vec<Event> = b_heard.try_iter().collect();
    let kinds = |events: &[Event]| -> Vec<String> {
        events.iter().map(|e| serde_json::to_value(e).unwrap()["event"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(kinds(&a_heard), ["tool_started", "program_spawned", "program_exited", "tool_ended"]);
    assert_eq!(kinds(&b_heard), ["tool_started", "approval_asked", "approval_answered", "tool_ended"]);
    let answered = b_heard.iter().find_map(|e| match &e.kind {
        EventKind::ApprovalAnswered { allowed, by, person, .. } => Some((*allowed, by.clone(), *person)),
        _ => None,
    });
    assert_eq!(answered, Some((false, DecidedBy::Approver("headless".into()), false)), "nobody to ask");
    assert!(matches!(&b_heard[3].kind, EventKind::ToolEnded { ended: Ended::Failed(Code::ApprovalRequired), .. }));
    assert!(matches!(&b_heard[1].kind, EventKind::ApprovalAsked { who: Asked::Anyone, .. }));
    assert_ne!(a_heard[0].call, b_heard[0].call, "each call has its own id");
    // The host's subscriber heard both calls, each event naming its call.
    let all: Vec<Event> = everything.try_iter().collect();
    assert_eq!(all.len(), a_heard.len() + b_heard.len());
    assert!(all.iter().all(|e| e.call == a_heard[0].call || e.call == b_heard[0].call));
}

#[test]
fn reloads_are_events_naming_the_generation_and_the_files_kept_back() {
    let ws = Workspace::new();
    let tool =
        |text: &str| format!("return {{ name = 'a', description = 'a', run = function() return '{text}' end }}\n");
    ws.file("tools/a.lua", tool("one"));
    let counted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let counter = counted.clone();
    let host = rein::Host::builder()
        .workspace(&ws.ws)
        .home(&ws.home)
        .on_event(Arc::new(move |_: &Event| {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }))
        .build()
        .unwrap();
    let events = host.subscribe();
    ws.file("tools/a.lua", tool("two"));
    host.reload(&["tools/a.lua".to_string()]);
    ws.file("tools/a.lua", "return { name = 'a',, }\n");
    host.reload(&["tools/a.lua".to_string()]);
    let heard: Vec<Event> = events.try_iter().collect();
    assert_eq!(heard.len(), 2, "{heard:?}");
    assert_eq!(counted.load(std::sync::atomic::Ordering::Relaxed), 2, "a listener given to the builder hears them too");
    assert!(heard.iter().all(|e| e.call.is_none()), "a reload belongs to no call");
    match &heard[0].kind {
        EventKind::ReloadAccepted { generation, loaded, kept, .. } => {
            assert_eq!((*generation, loaded.as_slice(), kept.len()), (2, ["tools/a.lua".to_string()].as_slice(), 0));
        }
        other => panic!("expected an accepted reload, got {other:?}"),
    }
    match &heard[1].kind {
        EventKind::ReloadRejected { generation, kept, problems } => {
            assert_eq!(*generation, 2, "generation 2 keeps serving");
            assert_eq!(kept[0].file, "tools/a.lua");
            assert_eq!(kept[0].serving, rein::host::Serving::PreviousVersion);
            assert!(problems[0].contains("tools/a.lua:1"), "{problems:?}");
        }
        other => panic!("expected a rejected reload, got {other:?}"),
    }
    assert_eq!(host.call("a", json!({})).unwrap(), json!("two"));
}

#[test]
fn a_call_dropped_mid_way_still_ends_its_tool_as_cancelled() {
    let ws = Workspace::new();
    ws.file(
        "tools/wait.lua",
        "return { name = 'wait', description = 'waits', run = function() rein.sleep(60000) end }\n",
    );
    let host = rein::Host::builder().workspace(&ws.ws).home(&ws.home).build().unwrap();
    let events = host.subscribe();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let dropped = runtime.block_on(async {
        tokio::time::timeout(std::time::Duration::from_millis(100), host.call_async("wait", json!({}))).await
    });
    assert!(dropped.is_err(), "the call was still waiting when it was dropped");
    let kinds: Vec<EventKind> = events.try_iter().map(|e| e.kind).collect();
    assert!(
        matches!(
            &kinds[..],
            [EventKind::ToolStarted { .. }, EventKind::ToolEnded { ended: Ended::Failed(Code::Cancelled), .. }]
        ),
        "{kinds:?}"
    );
}

#[test]
fn no_event_shows_a_secret_argument() {
    let ws = fake_hdc_workspace();
    let token = "tok-93c1f0a7";
    ws.file(
        "tools/leaky.lua",
        "return { name = 'leaky', description = 'puts its token everywhere', params = { token = { type = 'string', secret = true } },\n  run = function(a)\n    rein.fs.write('notes/' .. a.token .. '.txt', a.token)\n    pcall(rein.fs.write, '/tmp/' .. a.token .. '.txt', 'x')\n    return rein.proc.run('hdc', { 'shell', 'param', 'get', a.token })\n  end }\n",
    );
    let host = rein::Host::builder().workspace(&ws.ws).home(&ws.home).build().unwrap();
    let events = host.subscribe();
    host.call("leaky", json!({"token": token})).unwrap();
    let heard: Vec<String> = events.try_iter().map(|e| serde_json::to_string(&e).unwrap()).collect();
    for kind in ["file_written", "approval_asked", "approval_answered", "program_spawned", "program_exited"] {
        assert!(heard.iter().any(|e| e.contains(kind)), "{kind} was heard: {heard:#?}");
    }
    assert!(heard.iter().all(|e| !e.contains(token)), "a secret in the events: {heard:#?}");
}

/// `rein.ide.devices()`: runs `hdc list targets` through the kernel (an async native).
fn devices_module() -> NativeModule {
    let devices = NativeFunction::new_async("devices", "The devices hdc sees.", |call, _| async move {
        let out = call.run("hdc", vec!["list".into(), "targets".into()], Default::default()).await?;
        Ok(json!({"stdout": out.stdout, "code": out.code}))
    })
    .returns("{stdout: string, code: integer}", "");
    NativeModule::new("ide", "").function(devices)
}

const DEVICES_TOOL: &str =
    "return { name = 'devices', description = 'asks the IDE for devices', run = function() return rein.ide.devices() end }\n";

#[test]
fn a_native_function_called_by_a_pack_tool_is_bounded_by_the_pack_permissions() {
    let ws = fake_hdc_workspace();
    ws.file("tools/devices.lua", DEVICES_TOOL);
    // A pack that may run only hvigorw, whose tool asks the native module to run hdc.
    let source = ws.root.join("team-kit");
    std::fs::create_dir_all(source.join("tools")).unwrap();
    std::fs::write(
        source.join("pack.toml"),
        "name = \"team-kit\"\nversion = \"1.0.0\"\ndescription = \"d\"\nrein = \">=0.1\"\npermissions = [\"hvigorw\"]\n",
    )
    .unwrap();
    std::fs::write(source.join("tools/devices.lua"), DEVICES_TOOL).unwrap();
    let sha = rein::packs::hash::content_hash(&source).unwrap();
    crate::common::copy_dir(&source, &ws.home.join("packs/team-kit").join(&sha));
    ws.file(
        "rein.lock",
        format!(
            "[[pack]]\nname = \"team-kit\"\nversion = \"1.0.0\"\nsource = \"{}\"\nsha256 = \"{sha}\"\n",
            source.display()
        ),
    );
    crate::common::approve_policy(&ws);
    let host = rein::Host::builder().workspace(&ws.ws).home(&ws.home).module(devices_module()).build().unwrap();
    let events = host.subscribe();

    let project = host.call("devices", json!({})).unwrap();
    assert_eq!(project["code"], 0, "the project's tool may run hdc: {project}");
    let refused = host.call("team-kit.devices", json!({})).unwrap_err();
    assert_eq!(refused.code, Code::ApprovalDenied, "{refused:?}");
    assert!(refused.message.contains("pack team-kit did not declare permission"), "{}", refused.message);
    let by_pack = events.try_iter().find_map(|e| match e.kind {
        EventKind::ApprovalAnswered { allowed: false, by, .. } => Some(by),
        _ => None,
    });
    assert_eq!(by_pack, Some(DecidedBy::Pack("team-kit".into())));
}
