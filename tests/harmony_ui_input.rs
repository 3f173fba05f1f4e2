//! Driving the app like a tester (issue 37): ui_tap, ui_type, ui_swipe, ui_key and ui_wait on
//! the fake device, whose screen reacts as the project's pages say (the example app's counter
//! and About pages). Each action is proven before and after; touching anything but the
//! project's own app in front asks a person; Power always asks; a selector that matches nothing
//! or several widgets is refused before anything is sent; every uitest text but `No Error` is
//! a coded failure.

use std::path::Path;

use crate::common::lab::{lab, Lab, KEY, SIGNED_HAP};
use crate::mcp_server::{connect, Person};
use serde_json::{json, Value};

/// The example app's pages, in a lab workspace: built, installed and launched (with --yes).
fn launched_example() -> Option<Lab> {
    launched_with(|_| {})
}

/// [`launched_example`] after `edit` changed the copied pages.
fn launched_with(edit: impl FnOnce(&Lab)) -> Option<Lab> {
    let lab = lab()?;
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hello-app/entry/src/main");
    for rel in ["ets/pages/Index.ets", "ets/pages/About.ets", "resources/base/profile/main_pages.json"] {
        std::fs::copy(example.join(rel), lab.ws.path(&format!("entry/src/main/{rel}"))).unwrap();
    }
    edit(&lab);
    lab.one_device();
    lab.build();
    lab.ok(&["--yes"], "app_install", json!({"hap": SIGNED_HAP}));
    lab.ok(&["--yes"], "app_launch", json!({}));
    Some(lab)
}

/// The example app with a password field under the name field (`#password`).
fn launched_with_password_field() -> Option<Lab> {
    launched_with(|lab| {
        lab.replace_in(
            "entry/src/main/ets/pages/Index.ets",
            ".id('name')",
            ".id('name')\n        TextInput({ placeholder: 'Password' })\n          .id('password')\n          .type(InputType.Password)",
        )
    })
}

/// The input sent, each line without `-t KEY `: the tools name the device they act on, whose
/// app rein installed (an input for "whichever device" never counts as the project's app).
fn input_lines(lab: &Lab) -> Vec<String> {
    let named = format!("-t {KEY} ");
    lab.command_lines("hdc")
        .into_iter()
        .filter(|c| c.contains("uitest uiInput"))
        .map(|c| c.strip_prefix(&named).unwrap_or_else(|| panic!("input names its device: {c}")).to_string())
        .collect()
}

fn texts(changed: &Value, side: &str) -> Vec<String> {
    changed[side].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string()).collect()
}

#[test]
fn a_tap_on_the_projects_app_runs_unasked_and_says_what_changed() {
    let Some(lab) = launched_example() else { return };
    // No --yes: the project's own app is in front.
    let tapped = lab.ok(&[], "ui_tap", json!({"text": "Tap me", "expect_text": "Taps: 1"}));
    assert_eq!(tapped["app"], json!("com.example.hello"));
    assert_eq!(tapped["own_app"], json!(true));
    assert_eq!(tapped["at"], json!({"x": 630, "y": 790}), "the widget's center");
    assert_eq!(texts(&tapped["changed"], "removed"), ["Text \"Taps: 0\" #taps [80,560][1180,700]"]);
    assert_eq!(texts(&tapped["changed"], "added"), ["Text \"Taps: 1\" #taps [80,560][1180,700]"]);
    assert!(tapped.get("screen").is_none(), "compact: the change, not the whole tree, unless asked");
    let twice = lab.ok(&[], "ui_tap", json!({"id": "tap", "how": "double", "full": true}));
    assert!(twice["screen"].as_str().unwrap().contains("\"Taps: 3\""), "{twice}");
    assert_eq!(
        input_lines(&lab),
        ["shell uitest uiInput click 630 790", "shell uitest uiInput doubleClick 630 790"],
        "exactly what was sent"
    );
}

#[test]
fn typing_fills_the_field_a_page_opens_and_back_returns() {
    let Some(lab) = launched_example() else { return };
    let typed = lab.ok(&[], "ui_type", json!({"id": "name", "input": "Ann"}));
    assert_eq!(texts(&typed["changed"], "added"), ["TextInput \"Ann\" #name [80,880][1180,1020] tap"], "{typed}");
    let typed = lab.ok(&[], "ui_type", json!({"input": "ie\nx"}));
    assert!(texts(&typed["changed"], "added")[0].starts_with("TextInput \"Anniex\""), "{typed}");
    let lines = input_lines(&lab);
    assert_eq!(
        &lines[lines.len() - 3..],
        ["shell uitest uiInput text ie", "shell uitest uiInput keyEvent 2054", "shell uitest uiInput text x"],
        "a newline is Enter: uitest's text cannot type one"
    );
    lab.ok(&[], "ui_tap", json!({"text": "About", "expect_text": "About hello-app", "expect_gone": "Tap me"}));
    let back = lab.ok(&[], "ui_key", json!({"key": "back", "expect_text": "Tap me"}));
    assert_eq!(texts(&back["changed"], "removed")[0], "window com.example.hello EntryAbility pages/About");
    // Back on the first page sends the app away; then input on the home screen asks.
    lab.ok(&[], "ui_key", json!({"key": "back"}));
    let out = lab.failed(&[], "ui_tap", json!({"text": "Clock"}), "APPROVAL_REQUIRED");
    assert!(out["message"].as_str().unwrap().contains("touches the device's screen"), "{out}");
    assert!(!input_lines(&lab).iter().any(|l| l.ends_with("click 630 470")), "nothing was sent");
}

#[test]
fn power_always_asks_and_home_leaves_the_app_so_input_then_asks() {
    let Some(lab) = launched_example() else { return };
    lab.failed(&[], "ui_key", json!({"key": "power"}), "APPROVAL_REQUIRED");
    let home = lab.ok(&[], "ui_key", json!({"key": "home", "expect_gone": "Tap me"}));
    assert_eq!(home["own_app"], json!(true), "it was the project's app when Home was pressed");
    let asked = lab.failed(&[], "ui_key", json!({"key": "back"}), "APPROVAL_REQUIRED");
    // The question says the input and what rein itself read in front, not what a tool claims.
    let question = asked["message"].as_str().unwrap();
    assert!(
        question.contains("it touches the device's screen: the key Back, on the home screen or system UI"),
        "{asked}"
    );
    let asked = lab.failed(&[], "ui_tap", json!({"x": 630, "y": 470}), "APPROVAL_REQUIRED");
    assert!(asked["message"].as_str().unwrap().contains("a tap at (630, 470), on the home screen"), "{asked}");
    // A person's yes lets it through.
    let tapped = lab.ok(&["--yes"], "ui_tap", json!({"text": "Settings"}));
    assert_eq!(tapped["own_app"], json!(false));
    assert_eq!(tapped["app"], json!("(home screen or system UI)"));
}

/// An agent's own tool that sends `words` to `uitest uiInput` as it likes: with `read`, after
/// reading the screen (`uitest dumpLayout`, only `bundle`'s windows when given) and what is in
/// front (`aa dump -l`), as ui_act does.
fn poke_tool(lab: &Lab) {
    let tool = r#"local device = require("harmony.device")
local screen = require("harmony.screen")
return { name = "poke", description = "pokes",
  params = { read = { type = "boolean", default = true }, named = { type = "boolean", default = true }, bundle = { type = "string", optional = true },
             words = { type = "array", items = { type = "string" } } },
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  run = function(args)
    local at = device.pick(nil, nil)
    if args.named then at = device.named(at) end
    if args.read then
      screen.layout(at, args.bundle)
      device.run(at, { "shell", "aa", "dump", "-l" })
    end
    local argv = { "shell", "uitest", "uiInput" }
    for _, w in ipairs(args.words) do argv[#argv + 1] = w end
    return { out = (device.run(at, argv)) }
  end }"#;
    std::fs::create_dir_all(lab.ws.path("tools")).unwrap();
    std::fs::write(lab.ws.path("tools/poke.lua"), tool).unwrap();
}

/// The attack: an agent's own tool sends input without reading what is in front (or reads it,
/// then presses Power by its code). The kernel decides from what the device printed to it.
#[test]
fn a_tool_that_skips_the_foreground_read_or_presses_power_by_code_is_asked() {
    let Some(lab) = launched_example() else { return };
    poke_tool(&lab);
    lab.failed(&[], "poke", json!({"read": false, "words": ["keyEvent", "2055"]}), "APPROVAL_REQUIRED");
    let ok = lab.ok(&[], "poke", json!({"words": ["keyEvent", "2055"]}));
    assert_eq!(ok["out"], json!("No Error\n"), "read, then input on the project's app: unasked");
    // For "whichever device hdc picks", rein cannot say the app in front is the one it installed.
    lab.failed(&[], "poke", json!({"named": false, "words": ["keyEvent", "2055"]}), "APPROVAL_REQUIRED");
    lab.failed(&[], "poke", json!({"words": ["keyEvent", "18"]}), "APPROVAL_REQUIRED");
    lab.failed(&[], "poke", json!({"words": ["keyEvent", "Power"]}), "APPROVAL_REQUIRED");
    assert_ne!(lab.read_device(KEY)["screen_on"], json!(false), "the screen was never turned off");
    // A shape rein does not place on the screen it read asks (a display id: the screen rein
    // reads is the default display's); a word for a number is refused by the grammar itself.
    lab.failed(&[], "poke", json!({"words": ["click", "630", "790", "1"]}), "APPROVAL_REQUIRED");
    lab.failed(&[], "poke", json!({"words": ["click", "630", "0x316"]}), "APPROVAL_DENIED");
}

#[test]
fn a_selector_that_matches_nothing_or_several_is_refused_before_anything_is_sent() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.build();
    // rein installs the app (the project's own is an app rein installed on that device).
    lab.ok(&["--yes"], "app_install", json!({"hap": SIGNED_HAP}));
    lab.edit_device(KEY, |d| {
        d["running"] = json!([{"bundle": "com.example.hello", "ability": "EntryAbility", "pid": 4000, "started_at": 1.0, "foreground_at": 1.5}]);
        d["screen"] = json!([{"type": "Button", "text": "OK", "id": "a"}, {"type": "Button", "text": "OK", "id": "b"}]);
    });
    let out = lab.failed(&[], "ui_tap", json!({"text": "OK"}), "UI_AMBIGUOUS");
    assert_eq!(out["details"]["count"], json!(2), "{out}");
    let out = lab.failed(&[], "ui_tap", json!({"text": "Cancel"}), "UI_NO_MATCH");
    assert!(out["message"].as_str().unwrap().contains("Button \"OK\" #a [80,400][1180,540] tap"), "{out}");
    assert_eq!(out["details"]["on_screen"], json!(["OK"]));
    lab.failed(&[], "ui_tap", json!({"x": 5000, "y": 10}), "UI_OFF_SCREEN");
    for half in [json!({"x": 10}), json!({"x": 10, "y": 10, "text": "OK"})] {
        let (status, out) = lab.call(&[], "ui_tap", half);
        assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_ARGS")), "{out}");
    }
    assert_eq!(input_lines(&lab), Vec::<String>::new(), "nothing was sent");
    // Only `No Error` is success: uitest prints its errors and exits 0.
    lab.edit_device(KEY, |d| d["ui_input_error"] = json!("The window or component is invisible or destroyed."));
    let out = lab.failed(&[], "ui_tap", json!({"id": "a"}), "UI_INPUT_FAILED");
    assert!(out["message"].as_str().unwrap().contains("invisible or destroyed"), "{out}");
    let out = lab.failed(&[], "ui_wait", json!({"text": "Done", "deadline_ms": 500}), "UI_WAIT_TIMEOUT");
    assert!(out["message"].as_str().unwrap().contains("\"OK\""), "{out}");
    assert_eq!(lab.ok(&[], "ui_wait", json!({"text": "OK", "deadline_ms": 0}))["count"], json!(2));
}

/// A wait's deadline is wall-clock time, the looks included: with every screen read taking
/// 1.5 s, a 2 s wait reads the screen twice (at 0 and at its deadline; three allows for slack);
/// counted in sleeps alone it read it nine times.
#[test]
fn a_waits_deadline_counts_the_time_each_look_takes() {
    let Some(lab) = launched_example() else { return };
    lab.scenario(json!({"uitest": {"match": "dumpLayout", "sleep_ms": 1500}}));
    let dumps =
        |lab: &Lab| lab.calls().iter().filter(|c| c["program"] == "uitest" && c["argv"][0] == "dumpLayout").count();
    let before = dumps(&lab);
    let out = lab.failed(&[], "ui_wait", json!({"text": "Never there", "deadline_ms": 2000}), "UI_WAIT_TIMEOUT");
    let looks = dumps(&lab) - before;
    assert!((1..=3).contains(&looks), "{looks} screen reads in a 2 s wait of 1.5 s reads: {out}");
    assert!(out["details"]["waited_ms"].as_u64().unwrap() >= 2000, "{out}");
}

#[test]
fn a_secret_typed_is_never_in_the_journal_or_the_result() {
    let Some(lab) = launched_with_password_field() else { return };
    let out = lab.ok(&[], "ui_type", json!({"id": "password", "secret": "hunter2"}));
    assert!(!out.to_string().contains("hunter2"), "{out}");
    let journal = crate::common::journal_text(&lab.ws.ws);
    assert!(journal.contains("uitest uiInput text"), "the input is journaled");
    assert!(!journal.contains("hunter2"), "but not the secret");
    let typed = lab.ok(&[], "ui_type", json!({"id": "name", "input": "Bob"}));
    assert!(crate::common::journal_text(&lab.ws.ws).contains("uitest uiInput text Bob"), "{typed}");
}

/// The example app's pages and its flow in a lab workspace, not yet built.
fn example_with_flow() -> Option<Lab> {
    let lab = lab()?;
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/hello-app");
    for rel in [
        "entry/src/main/ets/pages/Index.ets",
        "entry/src/main/ets/pages/About.ets",
        "entry/src/main/resources/base/profile/main_pages.json",
        "flows/smoke.json",
    ] {
        let to = lab.ws.path(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(example.join(rel), to).unwrap();
    }
    lab.one_device();
    Some(lab)
}

#[test]
fn a_flow_runs_after_a_proven_launch_and_keeps_each_steps_screen() {
    let Some(lab) = example_with_flow() else { return };
    let (status, out) = lab.recipe(&["--yes"], "ui-flow", json!({"flow": "flows/smoke.json"}));
    assert_eq!(status, 0, "{out}");
    let report = lab.report(&out);
    let flow = crate::common::lab::step(&report, "flow");
    assert_eq!(flow["status"], json!("verified"), "{report:#}");
    let evidence: Vec<String> =
        flow["evidence"].as_array().unwrap().iter().map(|e| e.as_str().unwrap().to_string()).collect();
    assert!(
        evidence
            .iter()
            .any(|e| e
                .starts_with("step 2 tap text \"Tap me\": sent at (630, 790) on com.example.hello; Text \"Taps: 1\"")),
        "{evidence:#?}"
    );
    let dir = lab.ws.path(&format!(".rein/runs/{}", report["run_id"].as_str().unwrap()));
    for n in 1..=6 {
        assert!(dir.join(format!("screen-step-{n}.jpeg")).exists(), "step {n}'s screenshot");
        assert!(dir.join(format!("layout-step-{n}.json")).exists(), "step {n}'s tree");
    }
    let last = std::fs::read_to_string(dir.join("layout-step-6.txt")).unwrap();
    assert!(last.contains("Text \"Taps: 1\"") && last.contains("TextInput \"Ann\""), "{last}");
}

#[test]
fn a_failed_flow_step_names_the_step_the_expectation_and_the_screen() {
    let Some(lab) = example_with_flow() else { return };
    std::fs::write(
        lab.ws.path("flows/bad.json"),
        r#"[{"do": "tap", "text": "Tap me", "expect_text": "Taps: 5"}, {"do": "key", "key": "back"}]"#,
    )
    .unwrap();
    let (status, out) = lab.recipe(&["--yes"], "ui-flow", json!({"flow": "flows/bad.json"}));
    assert_eq!(status, 1, "{out}");
    let report = lab.report(&out);
    let message = report["failure"]["message"].as_str().unwrap();
    assert!(message.contains("step 1 tap text \"Tap me\" failed: "), "{message}");
    assert!(message.contains("\"Taps: 5\" to show"), "{message}");
    assert!(message.contains("Text \"Taps: 1\" #taps"), "what the screen showed: {message}");
    assert_eq!(input_lines(&lab).len(), 1, "the flow stopped at the failed step");
    std::fs::write(lab.ws.path("flows/typo.json"), r#"[{"do": "tapp", "text": "x"}]"#).unwrap();
    let (status, out) = lab.recipe(&["--yes"], "ui-flow", json!({"flow": "flows/typo.json"}));
    assert_ne!(status, 0);
    assert!(out.to_string().contains("flow step 1: \\\"do\\\" must be one of"), "{out}");
    assert!(lab.command_lines("hvigorw").len() <= 1, "a bad flow stops before building again");
}

/// The attack: the project's bundle name is the agent's to write (AppScope/app.json5). A person
/// has Settings in front; the agent renames the project's bundle to Settings' and Settings'
/// screen becomes "the project's own app": a tap on it (developer options, USB debugging, a
/// permission) would run unasked. Only an app rein itself put on that device is the project's,
/// and a package named as Settings does not install over the system's (9568332).
#[test]
fn renaming_the_projects_bundle_to_the_app_in_front_does_not_make_its_screen_the_agents() {
    let Some(lab) = launched_example() else { return };
    poke_tool(&lab);
    let ok = lab.ok(&[], "poke", json!({"words": ["keyEvent", "2055"]}));
    assert_eq!(ok["out"], json!("No Error\n"), "the app rein installed, in front: unasked");
    const SETTINGS: &str = "com.huawei.hmos.settings";
    lab.edit_device(KEY, |d| {
        for r in d["running"].as_array_mut().unwrap() {
            r["bundle"] = json!(SETTINGS);
        }
        d["installed"][SETTINGS] = json!({"signer": "huawei system apps", "versionCode": 1, "module": "entry"});
    });
    let sent = input_lines(&lab).len();
    let (_, before) = lab.call(&[], "poke", json!({"words": ["keyEvent", "2055"]}));
    assert_eq!(before["error"]["code"], json!("APPROVAL_REQUIRED"), "Settings in front asks: {before}");
    lab.replace_in("AppScope/app.json5", "com.example.hello", SETTINGS);
    let (_, renamed) = lab.call(&[], "poke", json!({"words": ["keyEvent", "2055"]}));
    assert_eq!(renamed["error"]["code"], json!("APPROVAL_REQUIRED"), "after the rename: {renamed}");
    // Built and installed under Settings' name: the device refuses it, so it is not rein's.
    lab.build();
    let (_, install) = lab.call(&["--yes"], "app_install", json!({"hap": SIGNED_HAP}));
    assert_eq!(install["error"]["code"], json!("INSTALL_FAILED"), "{install}");
    let (_, installed) = lab.call(&[], "poke", json!({"words": ["keyEvent", "2055"]}));
    assert_eq!(installed["error"]["code"], json!("APPROVAL_REQUIRED"), "after the install: {installed}");
    assert_eq!(input_lines(&lab).len(), sent, "nothing was sent to Settings");
}

/// The attack: an install's bundles wait for hdc's answer under its command line. One cut short
/// (its deadline, a cancel) never got its answer and left them there; in the same `rein serve`
/// the next install of that line, with a package rein does not read (a link: hdc follows it to
/// the project's own package), took them as its own when it went in. The package named as
/// Settings, which the device never installed, became "the project's own app" and input on
/// Settings ran unasked.
#[tokio::test(flavor = "multi_thread")]
async fn an_install_cut_short_leaves_no_bundle_for_the_next_install_of_the_same_line() {
    let Some(lab) = launched_example() else { return };
    poke_tool(&lab);
    let tool = r#"local device = require("harmony.device")
return { name = "put", description = "installs pkg.hap",
  params = { timeout_ms = { type = "integer", optional = true } },
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  run = function(args)
    local at = device.named(device.pick(nil, nil))
    return { out = (device.run(at, { "install", "-r", "pkg.hap" }, { timeout_ms = args.timeout_ms })) }
  end }"#;
    std::fs::write(lab.ws.path("tools/put.lua"), tool).unwrap();
    const SETTINGS: &str = "com.huawei.hmos.settings";
    lab.replace_in("AppScope/app.json5", "com.example.hello", SETTINGS);
    lab.build();
    std::fs::copy(lab.ws.path(SIGNED_HAP), lab.ws.path("pkg.hap")).unwrap();
    // The person says yes to both installs of pkg.hap: the question cannot show which bundle.
    let session = connect(&lab.ws, &[], &lab.env(), Person::Answers("yes")).await;
    lab.scenario(json!({"hdc": {"sleep_ms": 600000, "match": "install"}}));
    session.refused("put", json!({"timeout_ms": 1000}), "TIMEOUT").await;
    lab.scenario(json!({}));
    // The project's own package again, reached through a link named as the first.
    lab.replace_in("AppScope/app.json5", SETTINGS, "com.example.hello");
    lab.build();
    std::fs::remove_file(lab.ws.path("pkg.hap")).unwrap();
    std::os::unix::fs::symlink(lab.ws.path(SIGNED_HAP), lab.ws.path("pkg.hap")).unwrap();
    let put = session.ok("put", json!({})).await;
    assert!(put["out"].as_str().unwrap().contains("install bundle successfully"), "{put}");
    session.close().await;
    // Settings in front (the install ended the app, as a reinstall does).
    lab.ok(&["--yes"], "app_launch", json!({}));
    lab.edit_device(KEY, |d| {
        for r in d["running"].as_array_mut().unwrap() {
            r["bundle"] = json!(SETTINGS);
        }
        d["installed"][SETTINGS] = json!({"signer": "huawei system apps", "versionCode": 1, "module": "entry"});
    });
    let sent = input_lines(&lab).len();
    let (_, poked) = lab.call(&[], "poke", json!({"words": ["keyEvent", "2055"]}));
    assert_eq!(poked["error"]["code"], json!("APPROVAL_REQUIRED"), "Settings is not the project's: {poked}");
    assert_eq!(input_lines(&lab).len(), sent, "nothing was sent to Settings");
}

/// The attack: `aa dump -l` still names the project's app in front while a system dialog, the
/// shade or the control centre covers it: a tap there (Allow USB debugging, a permission) or
/// Enter would answer the system's question. Input lands where rein read the screen.
#[test]
fn a_system_dialog_over_the_app_makes_input_ask_though_the_app_is_in_front() {
    let Some(lab) = launched_example() else { return };
    lab.edit_device(KEY, |d| {
        d["system_dialog"] =
            json!({"bundle": "com.ohos.systemui", "texts": ["Allow USB debugging?"], "buttons": ["Cancel", "Allow"]});
    });
    let asked = lab.failed(&[], "ui_tap", json!({"text": "Allow"}), "APPROVAL_REQUIRED");
    let question = asked["message"].as_str().unwrap();
    assert!(question.contains("on com.example.hello, which rein just read is in front"), "{question}");
    assert!(
        question.contains("at (630, 1430) rein read Button \"Allow\" in com.ohos.systemui's window"),
        "the question names the widget and whose window it is: {question}"
    );
    // The dialog's backdrop covers the whole screen: the app's button is under it.
    let asked = lab.failed(&[], "ui_tap", json!({"text": "Tap me"}), "APPROVAL_REQUIRED");
    assert!(asked["message"].as_str().unwrap().contains("rein read com.ohos.systemui's window"), "{asked}");
    lab.failed(&[], "ui_key", json!({"key": "enter"}), "APPROVAL_REQUIRED");
    lab.failed(&[], "ui_type", json!({"input": "yes"}), "APPROVAL_REQUIRED");
    // The agent's own tool that reads only the app's windows (`-b`) is not reading the screen.
    poke_tool(&lab);
    let words = json!(["click", "630", "1430"]);
    lab.failed(&[], "poke", json!({"bundle": "com.example.hello", "words": words}), "APPROVAL_REQUIRED");
    lab.failed(&[], "poke", json!({"words": words}), "APPROVAL_REQUIRED");
    assert_eq!(input_lines(&lab), Vec::<String>::new(), "nothing was sent");
    assert_eq!(lab.read_device(KEY).get("system_dialog_answer"), None, "the dialog was never answered");

    // A panel over part of the screen: a tap beside it lands on the app, one on it asks.
    lab.edit_device(KEY, |d| {
        d["system_dialog"] =
            json!({"bundle": "com.ohos.systemui", "buttons": ["Clear all"], "bounds": [0, 2200, 1260, 2720]});
    });
    let tapped = lab.ok(&[], "ui_tap", json!({"text": "Tap me", "expect_text": "Taps: 1"}));
    assert_eq!(tapped["own_app"], json!(true));
    lab.failed(&[], "ui_tap", json!({"text": "Clear all"}), "APPROVAL_REQUIRED");
    assert_eq!(lab.read_device(KEY).get("system_dialog_answer"), None);
    // With a person's yes the input goes through.
    lab.ok(&["--yes"], "ui_tap", json!({"text": "Clear all"}));
    assert_eq!(lab.read_device(KEY)["system_dialog_answer"], json!("Clear all"));
}

/// A swipe from the screen's edge opens the shade, the control centre, Back or Home: it asks,
/// even on the project's app; a swipe within the screen does not.
#[test]
fn a_swipe_from_the_screens_edge_asks_and_one_within_does_not() {
    let Some(lab) = launched_example() else { return };
    for (from, to) in [([630, 10], [630, 1500]), ([5, 1300], [700, 1300]), ([630, 2710], [630, 1500])] {
        let asked = lab.failed(&[], "ui_swipe", json!({"from": from, "to": to}), "APPROVAL_REQUIRED");
        assert!(asked["message"].as_str().unwrap().contains("the screen's edge"), "{asked}");
    }
    assert_eq!(input_lines(&lab), Vec::<String>::new(), "nothing was sent");
    lab.ok(&[], "ui_swipe", json!({"direction": "up"}));
    lab.ok(&[], "ui_swipe", json!({"from": [630, 1500], "to": [630, 600]}));
}

/// The attack: `secret` keeps a password out of ui_type's own answer, but a plain field holds it
/// afterwards, so the next read of the screen hands it to the agent. A secret goes only into a
/// password field, which shows `******` as ArkUI reports it; a plain field is refused after a
/// probe character (taken out again), before the secret is sent.
#[test]
fn a_secret_typed_is_not_read_back_from_the_screen_afterwards() {
    let Some(lab) = launched_with_password_field() else { return };
    let sent_secret = |lab: &Lab| lab.command_lines("hdc").iter().any(|l| l.contains("hunter2"));
    let out = lab.failed(&[], "ui_type", json!({"id": "name", "secret": "hunter2"}), "UI_SECRET_FIELD");
    assert!(out["message"].as_str().unwrap().contains("showed the probe"), "{out}");
    assert!(!sent_secret(&lab), "the secret never went to the plain field");
    assert_eq!(
        lab.ok(&[], "ui_find", json!({"id": "name"}))["matches"][0]["text"],
        json!(""),
        "the probe is out again"
    );
    for refused in [json!({"secret": "hunter2"}), json!({"text": "Tap me", "secret": "hunter2"})] {
        lab.failed(&[], "ui_type", refused, "UI_SECRET_FIELD");
    }
    assert!(!sent_secret(&lab), "nor at the focus or into a button");

    lab.ok(&[], "ui_type", json!({"id": "password", "secret": "hunter2"}));
    assert!(sent_secret(&lab), "typed into the password field");
    let dump = lab.ok(&[], "ui_dump", json!({}));
    assert!(!dump.to_string().contains("hunter2"), "ui_dump shows the secret: {dump}");
    assert!(dump["text"].as_str().unwrap().contains("TextInput \"******\" #password"), "{dump}");
    let found = lab.ok(&[], "ui_find", json!({"id": "password"}));
    assert!(!found.to_string().contains("hunter2"), "ui_find shows the secret: {found}");

    // The whole screen an action returns, and what a later one says changed, do not hold it.
    let tapped = lab.ok(&[], "ui_tap", json!({"text": "Tap me", "full": true}));
    assert!(tapped["screen"].as_str().unwrap().contains("TextInput \"******\" #password"), "{tapped}");
    assert!(!tapped.to_string().contains("hunter2"), "{tapped}");
    // A flow file holds no secret: it is the workspace's, and the report repeats its steps.
    std::fs::create_dir_all(lab.ws.path("flows")).unwrap();
    std::fs::write(lab.ws.path("flows/login.json"), r#"[{"do": "type", "id": "password", "secret": "x"}]"#).unwrap();
    let (status, out) = lab.recipe(&["--yes"], "ui-flow", json!({"flow": "flows/login.json"}));
    assert_ne!(status, 0, "{out}");
    assert!(out.to_string().contains("a flow holds no secret"), "{out}");
    assert!(lab.command_lines("hvigorw").len() <= 1, "refused before building");
}

/// `rein runs show RUN --format FORMAT` of the run `out` names.
fn shown(lab: &Lab, out: &Value, format: &str) -> String {
    let run_id = out["error"]["details"]["run_id"].as_str().or(out["result"]["run_id"].as_str()).unwrap();
    let (status, shown) = lab.rein(&["runs", "show", run_id, "--format", format]);
    assert_eq!(status, 0, "{shown}");
    shown["result"]["text"].as_str().unwrap().to_string()
}

#[test]
fn junit_has_a_testcase_per_flow_step_and_the_page_draws_each_tap_on_its_screen() {
    let Some(lab) = example_with_flow() else { return };
    // The third step's text would be markup if it were not escaped: a flow is workspace data.
    std::fs::write(
        lab.ws.path("flows/bad.json"),
        r#"[{"do": "tap", "text": "Tap me", "expect_text": "Taps: 1"},
            {"do": "tap", "x": 315, "y": 680},
            {"do": "tap", "text": "Tap me", "expect_text": "<script>x</script>"},
            {"do": "key", "key": "back"}]"#,
    )
    .unwrap();
    let (status, out) = lab.recipe(&["--yes"], "ui-flow", json!({"flow": "flows/bad.json"}));
    assert_eq!(status, 1, "{out}");

    let xml = shown(&lab, &out, "junit");
    let file = lab.ws.root.join("flow.xml");
    std::fs::write(&file, &xml).unwrap();
    crate::run_report_formats::assert_valid_junit(&file);
    let cases: Vec<&str> = xml.lines().filter(|l| l.contains("<testcase name=\"step ")).collect();
    assert_eq!(cases.len(), 4, "a testcase per flow step: {xml}");
    assert!(cases[0].contains("name=\"step 1 tap text &quot;Tap me&quot;\""), "{xml}");
    assert!(cases[1].contains("name=\"step 2 tap\""), "{xml}");
    let failure = xml.split("name=\"step 3 tap").nth(1).unwrap().split("</testcase>").next().unwrap();
    assert!(failure.contains("<failure type=\"flow step\""), "{failure}");
    assert!(failure.contains("&quot;&lt;script&gt;x&lt;/script&gt;&quot; to show"), "the expectation: {failure}");
    assert!(failure.contains("Text &quot;Taps: 2&quot; #taps"), "what the screen showed: {failure}");
    let skipped = xml.split("name=\"step 4 key").nth(1).unwrap().split("</testcase>").next().unwrap();
    assert!(skipped.contains("<skipped"), "{skipped}");
    assert!(
        xml.contains("tests=\"10\" failures=\"2\" errors=\"0\" skipped=\"1\""),
        "6 recipe steps + 4 flow steps: {xml}"
    );

    let page = shown(&lab, &out, "html");
    let strip =
        page.split("<div class=\"flow\" id=\"flow\">").nth(1).expect("the strip").split("</div>\n").next().unwrap();
    assert_eq!(strip.matches("<figure class=\"flow-step").count(), 3, "the screens of the steps that ran: {strip}");
    assert_eq!(strip.matches("src=\"data:image/jpeg;base64,").count(), 3, "{strip}");
    // The widget's center (630, 790) and the point (315, 680) on the 1260x2720 display.
    let first = strip.split("id=\"flow-step-1\"").nth(1).unwrap().split("</figure>").next().unwrap();
    assert!(first.contains("<span class=\"tap\" style=\"left:50.00%;top:29.04%\">"), "{first}");
    let second = strip.split("id=\"flow-step-2\"").nth(1).unwrap().split("</figure>").next().unwrap();
    assert!(second.contains("style=\"left:25.00%;top:25.00%\""), "{second}");
    let third = strip.split("id=\"flow-step-3\"").nth(1).unwrap().split("</figure>").next().unwrap();
    assert!(
        third.contains("flow-step failed") || strip.contains("<figure class=\"flow-step failed\" id=\"flow-step-3\""),
        "{strip}"
    );
    assert!(third.contains("left:50.00%"), "the failed tap was sent too: {third}");
    assert!(!page.contains("<script>"), "no markup from the flow");
    assert!(!page.contains("The app on device <code>step-1</code>"), "each step's screen shows once, in the strip");
}

#[test]
fn device_matrix_runs_the_flow_on_every_device_each_devices_steps_kept_apart() {
    let Some(lab) = example_with_flow() else { return };
    lab.devices(json!([{"key": "D1"}, {"key": "D2"}]));
    let (status, out) = lab.recipe(&["--yes"], "device-matrix", json!({"flow": "flows/smoke.json"}));
    assert_eq!(status, 0, "{out}");
    let report = lab.report(&out);
    let dir = lab.ws.path(&format!(".rein/runs/{}", report["run_id"].as_str().unwrap()));
    for device in ["d1", "d2"] {
        for n in 1..=6 {
            assert!(dir.join(format!("screen-{device}-step-{n}.jpeg")).exists(), "{device} step {n}'s screenshot");
        }
        // Each device's own screen: one tap on each, not two on one.
        let last = std::fs::read_to_string(dir.join(format!("layout-{device}-step-6.txt"))).unwrap();
        assert!(last.contains("Text \"Taps: 1\"") && last.contains("TextInput \"Ann\""), "{device}: {last}");
    }
    let evidence = crate::common::lab::step(&report, "devices")["evidence"].to_string();
    assert!(evidence.contains("D2: step 2 tap text \\\"Tap me\\\": sent at (630, 790)"), "{evidence}");
    let xml = shown(&lab, &out, "junit");
    let file = lab.ws.root.join("matrix.xml");
    std::fs::write(&file, &xml).unwrap();
    crate::run_report_formats::assert_valid_junit(&file);
    for device in ["D1", "D2"] {
        assert_eq!(xml.matches(&format!("<testcase name=\"{device} step ")).count(), 6, "{xml}");
    }
    let page = shown(&lab, &out, "html");
    for device in ["D1", "D2"] {
        assert!(page.contains(&format!("id=\"flow-{device}-step-2\"")), "a strip per device");
    }

    // A flow that fails on the devices fails the matrix, naming the step per device.
    std::fs::write(lab.ws.path("flows/bad.json"), r#"[{"do": "tap", "text": "Tap me", "expect_text": "Taps: 9"}]"#)
        .unwrap();
    let (status, out) = lab.recipe(&["--yes"], "device-matrix", json!({"flow": "flows/bad.json"}));
    assert_eq!(status, 1, "{out}");
    let report = lab.report(&out);
    let message = report["failure"]["message"].as_str().unwrap();
    assert!(message.contains("the flow: step 1 tap text \"Tap me\" failed: "), "{message}");
    let xml = shown(&lab, &out, "junit");
    assert_eq!(xml.matches("<failure type=\"flow step\"").count(), 2, "each device's step failed: {xml}");
}

/// The attack: a connect key names a way to a device, not the device. The emulator that starts
/// first is `127.0.0.1:5555`; an app rein installed on emulator A, under the name of another of
/// the person's apps that A lacks, would count as "the project's own" on emulator B, started
/// later at the same key. The kernel reads the device's UDID itself (`bm get -u`) at the
/// install and before input; another device behind the key is not where rein installed.
#[test]
fn another_device_behind_the_same_key_is_not_where_rein_installed_the_app() {
    let Some(lab) = launched_example() else { return };
    poke_tool(&lab);
    let reads = |lab: &Lab| lab.command_lines("hdc").iter().filter(|c| c.ends_with("shell bm get -u")).count();
    let installs = lab.command_lines("hdc").iter().position(|c| c.contains(" install "));
    let first_read = lab.command_lines("hdc").iter().position(|c| c.ends_with("shell bm get -u"));
    assert!(first_read.is_some() && first_read < installs, "read at the install: {:?}", lab.command_lines("hdc"));
    let ok = lab.ok(&[], "poke", json!({"words": ["keyEvent", "2055"]}));
    assert_eq!(ok["out"], json!("No Error\n"), "the device rein installed on: unasked");
    let before = reads(&lab);
    let sent = input_lines(&lab).len();
    // Emulator B at the same key, the same app in front (its state is A's but for the UDID).
    let a = lab.read_device(KEY)["udid"].clone();
    lab.edit_device(KEY, |d| d["udid"] = json!("0B0B0B0B"));
    lab.failed(&[], "poke", json!({"words": ["keyEvent", "2055"]}), "APPROVAL_REQUIRED");
    assert_eq!(input_lines(&lab).len(), sent, "nothing was sent to B");
    assert_eq!(reads(&lab), before + 1, "one read of the UDID before the input");
    // A device that names no UDID is no device rein knows.
    lab.edit_device(KEY, |d| d["udid"] = json!(""));
    lab.failed(&[], "poke", json!({"words": ["keyEvent", "2055"]}), "APPROVAL_REQUIRED");
    lab.edit_device(KEY, |d| d["udid"] = a);
    let ok = lab.ok(&[], "poke", json!({"words": ["keyEvent", "2055"]}));
    assert_eq!(ok["out"], json!("No Error\n"), "back on A: unasked again");
}

/// The attack: an install's bundles wait for hdc's answer under its command line, so two
/// installs of one line at once (branches of `rein.parallel`) shared one entry. While the
/// first, of the project's own package, ran, the second line's package was swapped for one
/// named as Settings, which the device refused; the first's success took the second's bundle
/// and input on Settings ran unasked. Two installs of one line at once record nothing.
#[test]
fn two_installs_of_one_line_at_once_do_not_take_each_others_bundles() {
    const SETTINGS: &str = "com.huawei.hmos.settings";
    let Some(lab) = launched_example() else { return };
    poke_tool(&lab);
    lab.replace_in("AppScope/app.json5", "com.example.hello", SETTINGS);
    lab.build();
    std::fs::copy(lab.ws.path(SIGNED_HAP), lab.ws.path("settings.hap")).unwrap();
    lab.replace_in("AppScope/app.json5", SETTINGS, "com.example.hello");
    lab.build();
    std::fs::copy(lab.ws.path(SIGNED_HAP), lab.ws.path("pkg.hap")).unwrap();
    // Settings is on the device, signed by another: an install under its name is refused.
    lab.edit_device(KEY, |d| {
        d["installed"][SETTINGS] = json!({"signer": "huawei system apps", "versionCode": 1, "module": "entry"})
    });
    let tool = r#"local device = require("harmony.device")
return { name = "race", description = "installs pkg.hap twice at once",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  run = function()
    local at = device.named(device.pick(nil, nil))
    local put = function() return { out = (device.run(at, { "install", "-r", "pkg.hap" })) } end
    local r = rein.parallel({
      put,
      function()
        for _ = 1, 1500 do
          if rein.fs.exists("go") then break end
          rein.sleep(20)
        end
        return put()
      end,
    })
    return { first = r[1].value, second = r[2].value }
  end }"#;
    std::fs::write(lab.ws.path("tools/race.lua"), tool).unwrap();
    // hdc's installs (logged as hdc starts, each then slow) and the device's (logged once hdc
    // has slept and taken the device).
    let count = |lab: &Lab, program: &str| lab.command_lines(program).iter().filter(|c| c.contains("install ")).count();
    let (hdc_before, bm_before) = (count(&lab, "hdc"), count(&lab, "bm"));
    lab.scenario(json!({"hdc": {"sleep_ms": 10_000, "match": "install"}}));
    let raced = std::thread::scope(|s| {
        let call = s.spawn(|| lab.ok(&["--yes"], "race", json!({})));
        let until = |n: usize| {
            let started = std::time::Instant::now();
            while count(&lab, "hdc") < hdc_before + n {
                assert!(started.elapsed() < std::time::Duration::from_secs(60), "install {n} never started");
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        };
        // The first install runs: the line's package becomes Settings'.
        until(1);
        std::fs::copy(lab.ws.path("settings.hap"), lab.ws.path("pkg.hap")).unwrap();
        std::fs::write(lab.ws.path("go"), "").unwrap();
        until(2);
        assert_eq!(count(&lab, "bm"), bm_before, "the second was handed over while the first ran");
        call.join().unwrap()
    });
    lab.scenario(json!({}));
    let first = raced["first"]["out"].as_str().unwrap();
    let second = raced["second"]["out"].as_str().unwrap();
    assert!(first.contains("install bundle successfully"), "{raced}");
    assert!(second.contains("9568332"), "the device refused Settings' name: {raced}");
    // Settings in front (the install ended the app, as a reinstall does).
    lab.ok(&["--yes"], "app_launch", json!({}));
    lab.edit_device(KEY, |d| {
        for r in d["running"].as_array_mut().unwrap() {
            r["bundle"] = json!(SETTINGS);
        }
    });
    let sent = input_lines(&lab).len();
    let (_, poked) = lab.call(&[], "poke", json!({"words": ["keyEvent", "2055"]}));
    assert_eq!(poked["error"]["code"], json!("APPROVAL_REQUIRED"), "Settings is not the project's: {poked}");
    assert_eq!(input_lines(&lab).len(), sent, "nothing was sent to Settings");
}

/// The attack: input is decided on the UDID read just before the decision, then waits (up to
/// `[lease] wait_s`) for the device another run holds. In one `rein serve`, a call read the
/// screen; another run held the device with a slow install; the next call's input was decided
/// on emulator A's UDID, and while it waited another device came up at the key: the input went
/// to B unasked. The UDID is read again once the device is the call's.
#[tokio::test(flavor = "multi_thread")]
async fn input_that_waits_for_the_device_is_decided_on_the_device_it_then_reaches() {
    let Some(lab) = launched_example() else { return };
    poke_tool(&lab);
    let tools = [
        (
            "look",
            r#"local device = require("harmony.device")
local screen = require("harmony.screen")
return { name = "look", description = "reads the screen",
  annotations = { read_only = true, destructive = false, idempotent = true, open_world = true },
  run = function()
    local at = device.named(device.pick(nil, nil))
    screen.layout(at, nil)
    return { out = (device.run(at, { "shell", "aa", "dump", "-l" })) }
  end }"#,
        ),
        (
            "put",
            r#"local device = require("harmony.device")
return { name = "put", description = "installs pkg.hap",
  annotations = { read_only = false, destructive = true, idempotent = false, open_world = true },
  run = function()
    local at = device.named(device.pick(nil, nil))
    return { out = (device.run(at, { "install", "-r", "pkg.hap" })) }
  end }"#,
        ),
    ];
    for (name, text) in tools {
        std::fs::write(lab.ws.path(&format!("tools/{name}.lua")), text).unwrap();
    }
    std::fs::copy(lab.ws.path(SIGNED_HAP), lab.ws.path("pkg.hap")).unwrap();
    let session = connect(&lab.ws, &[], &lab.env(), Person::Answers("no")).await;
    session.ok("look", json!({})).await;
    let count =
        |lab: &Lab, program: &str, what: &str| lab.command_lines(program).iter().filter(|c| c.contains(what)).count();
    let (installs, on_device) = (count(&lab, "hdc", " install "), count(&lab, "bm", "install"));
    // hdc sleeps before it takes the device, and the device before it installs.
    lab.scenario(json!({"hdc": {"sleep_ms": 4000, "match": "install"}, "bm": {"sleep_ms": 3000, "match": "install"}}));
    let sent = input_lines(&lab).len();
    let lab = &lab;
    let wait = |program: &str, what: &str, n: usize| {
        let started = std::time::Instant::now();
        while count(lab, program, what) < n {
            assert!(started.elapsed() < std::time::Duration::from_secs(60), "no {what}");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    };
    let b = std::thread::scope(|s| {
        // Another run holds the device: a slow install.
        let other = s.spawn(|| lab.ok(&["--yes"], "put", json!({})));
        wait("hdc", " install ", installs + 1);
        // While the input waits for the device, B comes up at the key (before the install
        // reads the device state, which it then writes back).
        let swap = s.spawn(move || {
            wait("bm", "install", on_device + 1);
            lab.edit_device(KEY, |d| d["udid"] = json!("0B0B0B0B"));
        });
        let rt = tokio::runtime::Handle::current();
        let poke = session.call("poke", json!({"read": false, "words": ["keyEvent", "2055"]}));
        let poked = tokio::task::block_in_place(|| rt.block_on(poke));
        swap.join().unwrap();
        other.join().unwrap();
        poked
    });
    lab.scenario(json!({}));
    session.close().await;
    assert_eq!(input_lines(lab).len(), sent, "nothing was sent to B unasked: {b:?}");
    assert_eq!(b.is_error, Some(true), "asked, and the person said no: {b:?}");
}
