//! An embedding program hears what rein does as typed events, in order, each naming its call:
//! a recipe run with its approval and program, a call's own listener hearing only that call,
//! reloads, a call dropped mid-way; and no event shows a secret.

use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::common::lab::fake;
use crate::common::{toml_path, Workspace};
use rein::{Answer, ApprovalRequest, Approver, Asked, Code, DecidedBy, Ended, Event, EventKind, RunStatus, StepStatus};

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
pub fn fake_hdc_workspace() -> Workspace {
    let ws = Workspace::new();
    let hdc = fake("hdc");
    std::fs::write(ws.home.join("config.toml"), format!("[toolchain]\nhdc = {}\n", toml_path(&hdc))).unwrap();
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
    let report = host.run_recipe("ship", json!({}), rein::RecipeOptions::default()).unwrap();
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
            json!({"event": "approval_asked", "actor": "ship", "what": "run hdc -p install -r x.hap", "why": events_why(&events), "who": "anyone"}),
            json!({"event": "approval_answered", "actor": "ship", "what": "run hdc -p install -r x.hap", "allowed": true, "by": {"approver": "ide-dialog"}, "person": true}),
            json!({"event": "program_spawned", "actor": "ship", "program": "hdc", "argv": ["-p", "install", "-r", "x.hap"], "command": "hdc -p install -r x.hap"}),
            json!({"event": "program_exited", "actor": "ship", "program": "hdc", "code": 0, "signal": null, "timed_out": false}),
            json!({"event": "step_ended", "actor": "ship", "recipe": "ship", "step": "install", "number": 1, "total": 1, "status": "verified"}),
            json!({"event": "recipe_ended", "actor": "ship", "recipe": "ship", "status": "succeeded"}),
        ]
    );
    assert_eq!(*person.asked.lock().unwrap(), vec!["run hdc -p install -r x.hap".to_string()]);
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
    let heard = |call: rein::Call| {
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
            assert_eq!(kept[0].serving, rein::Serving::PreviousVersion);
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
    // The Lua state stops the dropped call on its own thread, at once.
    let mut kinds: Vec<EventKind> = Vec::new();
    while let Ok(event) = events.recv_timeout(std::time::Duration::from_secs(10)) {
        let ended = matches!(event.kind, EventKind::ToolEnded { .. });
        kinds.push(event.kind);
        if ended {
            break;
        }
    }
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

/// A listener that panics is the embedder's bug, but it must not take rein down with it: the
/// call it heard still ends as it happened (the file is written and journaled, the result
/// says so) and the host serves the next call.
#[test]
fn a_panicking_listener_breaks_neither_the_call_nor_the_host() {
    let ws = Workspace::new();
    let host = rein::Host::builder().workspace(&ws.ws).home(&ws.home).build().unwrap();
    let _panics = host.listen(Arc::new(|event: &Event| {
        if matches!(event.kind, EventKind::FileWritten { .. }) {
            panic!("the embedder's listener fails");
        }
    }));
    let host = Arc::new(host);
    let (tx, rx) = std::sync::mpsc::channel();
    let h = host.clone();
    std::thread::spawn(move || {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            h.call("write_file", json!({"path": "a.txt", "content": "one\n"}))
        }));
        let _ = tx.send(result.map_err(|_| "the call panicked"));
    });
    let written = rx.recv_timeout(std::time::Duration::from_secs(30)).expect("the call ends within 30 s");
    let written = written.expect("a listener's panic does not unwind through the caller");
    assert_eq!(written.expect("the write happened")["bytes"], 4);
    assert_eq!(ws.read("a.txt"), b"one\n");
    assert!(crate::common::journal_text(&ws.ws).contains("a.txt"), "the write is journaled");
    let read = host.call("read_file", json!({"path": "a.txt"})).expect("the host serves the next call");
    assert!(read.to_string().contains("one"), "{read}");
}

/// Issue 40: one launch asked twice: `aa start -W …`, then the plain `aa start …` an image
/// without `-W` needs. One yes covers one launch, its fallback included, once; another start
/// is asked about.
#[test]
fn one_yes_covers_a_launch_and_its_fallback_once() {
    let ws = fake_hdc_workspace();
    let person = Arc::new(Person::default());
    let recipe = r#"return { name = "launch", description = "starts", steps = {
  { name = "start", run = function()
      local ability = { "-a", "EntryAbility", "-b", "com.example.hello" }
      rein.proc.run("hdc", { "shell", "aa", "start", "-W", table.unpack(ability) })
      rein.proc.run("hdc", { "shell", "aa", "start", table.unpack(ability) })
      rein.proc.run("hdc", { "shell", "aa", "start", table.unpack(ability) })
      return {}
    end },
} }"#;
    let host = rein::Host::builder()
        .workspace(&ws.ws)
        .home(&ws.home)
        .approver(person.clone())
        .recipe_source("launch", recipe)
        .build()
        .unwrap();
    let report = host.run_recipe("launch", json!({}), rein::RecipeOptions::default()).unwrap();
    assert_eq!(report.status, RunStatus::Succeeded, "{}", report.to_markdown());
    assert_eq!(
        *person.asked.lock().unwrap(),
        vec![
            "run hdc -p shell aa start -W -a EntryAbility -b com.example.hello".to_string(),
            "run hdc -p shell aa start -a EntryAbility -b com.example.hello".to_string(),
        ],
        "the fallback right after is covered; a start after that is a launch of its own"
    );
    let commands = &report.steps[0].commands;
    assert_eq!(commands.len(), 3, "{}", report.to_markdown());
    assert!(commands.iter().all(|c| c.decided_by == Some(DecidedBy::Approver("ide-dialog".into()))), "{commands:?}");
}
