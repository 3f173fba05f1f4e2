//! Every crash stack rein shows names the workspace's `.ets` line: a release build's raw frames
//! (`at a (entry|entry|1.0.0|src/main/ets/entryability/EntryAbility.ts:9:9)`, after `Cannot get
//! SourceMap info, dump raw stack:`) go back through the build's own sourceMaps.map, which the
//! fake hvigorw writes as a real version-3 map of the example's pages; a frame that cannot be
//! mapped says why.

use crate::common::lab::{installed_lab, lab, KEY};
use serde_json::{json, Value};

const ABILITY: &str = "entry/src/main/ets/entryability/EntryAbility.ets";
const MAP: &str = "entry/build/default/cache/default/default@CompileArkTS/esmodule/debug/sourceMaps.map";

/// The app's next process crashes at once with a raw stack; crash_scan after a launch reads it.
fn raw_crash_scan(lab: &crate::common::lab::Lab) -> Value {
    lab.edit_device(KEY, |state| {
        state["crash_on_launch"] = json!({"com.example.hello": {"after_ms": 1500, "raw": true}});
    });
    let error = lab.failed(&["--yes"], "app_launch", json!({"settle_ms": 2500}), "APP_CRASHED");
    error["details"]["crash"].clone()
}

#[test]
fn a_raw_release_stack_maps_to_the_real_ets_line_in_a_launch_crash() {
    let Some(lab) = installed_lab() else { return };
    let crash = raw_crash_scan(&lab);
    // The frames after the raw-stack line are read (they used to come out empty).
    let stack = crash["stack"].as_array().unwrap();
    assert_eq!(stack.len(), 1, "{crash:#}");
    assert!(stack[0].as_str().unwrap().ends_with("(entry|entry|1.0.0|src/main/ets/entryability/EntryAbility.ts:9:9)"));
    let frame = &crash["source"][0];
    assert_eq!(
        (&frame["file"], &frame["line"], &frame["column"], &frame["mapped"]),
        (&json!(ABILITY), &json!(7), &json!(5), &json!(true)),
        "{crash:#}"
    );
    assert_eq!(frame["source_map"], json!(MAP), "{crash:#}");
    // Line 7, column 5 of the example's EntryAbility.ets is onCreate's first statement.
    let text = std::fs::read_to_string(lab.ws.path(ABILITY)).unwrap();
    assert!(text.lines().nth(6).unwrap()[4..]
        .starts_with("hilog.info(0x0000, 'testTag', '%{public}s', 'Ability onCreate')"));
}

#[test]
fn a_frame_that_cannot_be_mapped_says_why() {
    let Some(lab) = installed_lab() else { return };
    // Rebuilt since the crash, from a shorter page: the map has no code at the crashed line.
    let short = "export default class EntryAbility {\n}\n";
    let original = std::fs::read_to_string(lab.ws.path(ABILITY)).unwrap();
    std::fs::write(lab.ws.path(ABILITY), short).unwrap();
    lab.build();
    std::fs::write(lab.ws.path(ABILITY), original).unwrap();
    let crash = raw_crash_scan(&lab);
    let frame = &crash["source"][0];
    assert_eq!(frame["mapped"], json!(false), "{crash:#}");
    assert!(
        frame["why"].as_str().unwrap().contains(
            "has no code at line 9 of src/main/ets/entryability/EntryAbility.ts: the build is not the one that ran it"
        ),
        "{crash:#}"
    );

    // No build at all: no source map for it.
    std::fs::remove_dir_all(lab.ws.path("entry/build/default/cache")).unwrap();
    let crash = raw_crash_scan(&lab);
    let why = crash["source"][0]["why"].as_str().unwrap();
    assert!(why.contains("no source map for this build") && why.contains(MAP), "{crash:#}");
}

#[test]
fn a_frame_the_device_restored_names_the_workspace_file() {
    let Some(lab) = installed_lab() else { return };
    lab.edit_device(KEY, |state| state["crash_on_launch"] = json!({"com.example.hello": {"after_ms": 1500}}));
    let error = lab.failed(&["--yes"], "app_launch", json!({"settle_ms": 2500}), "APP_CRASHED");
    let frame = &error["details"]["crash"]["source"][0];
    assert_eq!(
        (&frame["file"], &frame["line"], &frame["mapped"]),
        (&json!(ABILITY), &json!(7), &json!(true)),
        "{error:#}"
    );
    assert_eq!(frame["name"], json!("onCreate"));
}

/// The source map's place follows build-profile.json5's `srcPath`, which the agent writes: one
/// leading out of the workspace had rein read another folder's map — asking, so that `--yes`
/// let it — and show the sources it names. Only the workspace's own build is read.
#[test]
fn a_source_map_outside_the_workspace_is_never_read() {
    let ws = crate::common::Workspace::new();
    let map = ws.root.join("elsewhere/entry").join(MAP.trim_start_matches("entry/"));
    std::fs::create_dir_all(map.parent().unwrap()).unwrap();
    let entry =
        json!({"version": 3, "sources": ["entry/src/main/ets/TOPSECRET.ets"], "names": [], "mappings": ";;;;;;;;AAAA"});
    std::fs::write(&map, json!({"entry|entry|1.0.0|src/main/ets/entryability/EntryAbility.ts": entry}).to_string())
        .unwrap();
    ws.file("build-profile.json5", r#"{ modules: [{ name: "entry", srcPath: "../elsewhere/entry" }] }"#);
    ws.file(
        "tools/stack.lua",
        r#"return { name = "stack", description = "maps a stack", params = {},
             run = function() return { frames = rein.fs.map_stack({
               "at a (entry|entry|1.0.0|src/main/ets/entryability/EntryAbility.ts:9:9)" }) } end }"#,
    );
    let (status, out) = crate::common::rein_json(&ws, &["--yes", "call", "stack"]);
    assert_eq!(status, 0, "{out}");
    let frame = &out["result"]["frames"][0];
    assert_eq!(frame["mapped"], json!(false), "{out:#}");
    assert!(!out.to_string().contains("TOPSECRET"), "a map outside the workspace was read: {out:#}");
    assert!(frame["why"].as_str().unwrap().contains("not inside the workspace"), "{out:#}");
}

/// A source map is a build output the project's hvigorfile.ts can write: the `sources` it names
/// may be anything. One outside the workspace (`/etc/shadow`, `../x`) or in `.rein/` is not the
/// frame's place: the frame says why instead of showing that path as the project's code.
#[test]
fn a_source_a_map_names_outside_the_workspace_is_not_shown_as_the_frames_place() {
    let ws = crate::common::Workspace::new();
    ws.file("build-profile.json5", r#"{ modules: [{ name: "entry", srcPath: "./entry" }] }"#);
    ws.file(
        "tools/stack.lua",
        r#"return { name = "stack", description = "maps a stack", params = {},
             run = function() return { frames = rein.fs.map_stack({
               "at a (entry|entry|1.0.0|src/main/ets/entryability/EntryAbility.ts:9:9)" }) } end }"#,
    );
    for source in ["/etc/shadow", "entry/../../elsewhere/x.ets", ".rein/journal/x.ets", "entry/src/main/ets/Good.ets"] {
        let entry = json!({"version": 3, "sources": [source], "names": [], "mappings": ";;;;;;;;AAAA"});
        ws.file(MAP, json!({"entry|entry|1.0.0|src/main/ets/entryability/EntryAbility.ts": entry}).to_string());
        let (status, out) = crate::common::rein_json(&ws, &["call", "stack"]);
        assert_eq!(status, 0, "{out}");
        let frame = &out["result"]["frames"][0];
        if source.ends_with("Good.ets") {
            assert_eq!(frame["file"], json!(source), "{out:#}");
            continue;
        }
        assert_eq!(frame["mapped"], json!(false), "{source}: {out:#}");
        assert!(frame["file"].is_null(), "{source}: {out:#}");
        assert!(frame["why"].as_str().unwrap().contains("not a file of the workspace"), "{source}: {out:#}");
    }
}

/// A test that fails inside the app's code: Hypium's `stack=` (§1.3) is the `error.stack`, whose
/// frames name the compiled `.ts` in the raw form of §7. Each frame is placed through the
/// build's source map — in device_test's result and in every report format of the `test`
/// recipe — and those that cannot be placed say why: the test HAP's own compiled code, a
/// library's `.js`, a line the build does not have (a build older than the failure).
#[test]
fn a_test_failure_stack_maps_each_frame_to_the_ets_line() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.edit_device(KEY, |state| {
        state["test_outcomes"] = json!({"ActsAbilityTest#assertContain": {"status": "error", "message": "boom", "stack": [
            "    at onCreate (entry|entry|1.0.0|src/main/ets/entryability/EntryAbility.ts:9:9)",
            "    at onCreate (entry|entry|1.0.0|src/main/ets/entryability/EntryAbility.ts:90:9)",
            "    at assertContain (entry_test|entry_test|1.0.0|src/ohosTest/ets/test/Ability.test.ts:21:9)",
            "    at run (oh_modules/@ohos/hypium/index.js:1:1)"]}});
    });
    let error = lab.failed(&["--yes"], "device_test", json!({}), "TESTS_FAILED");
    let failure = &error["details"]["failures"][0];
    let source = failure["source"].as_array().unwrap();
    assert_eq!(source.len(), 4, "{failure:#}");
    assert_eq!(
        (&source[0]["file"], &source[0]["line"], &source[0]["column"], &source[0]["mapped"], &source[0]["source_map"]),
        (&json!(ABILITY), &json!(7), &json!(5), &json!(true), &json!(MAP)),
        "{failure:#}"
    );
    assert_eq!(failure["location"], json!({"file": ABILITY, "line": 7, "column": 5}), "{failure:#}");
    let why = |n: usize| source[n]["why"].as_str().unwrap_or_default().to_string();
    assert!(source[1]["mapped"] == json!(false) && why(1).contains("has no code at line 90"), "{failure:#}");
    assert!(why(1).contains("the build is not the one that ran it"), "{failure:#}");
    // The debug build's map was read: that the release build has none is no reason to give.
    assert!(!why(1).contains("release"), "{failure:#}");
    assert!(source[2]["mapped"] == json!(false) && why(2).contains("the test HAP's compiled code"), "{failure:#}");
    assert!(why(3).contains("not a frame of the app's ArkTS code"), "{failure:#}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains(&format!("ActsAbilityTest#assertContain (error) at {ABILITY}:7:5: boom")), "{message}");

    // The recipe's reports: report.json keeps the frames; report.md, report.html and the
    // JUnit XML show each one placed or why not.
    let (status, out) = lab.recipe(&["--yes"], "test", json!({}));
    assert_eq!(status, 1, "{out:#}");
    let report = lab.report(&out);
    let case = &report["tests"][0]["tests"][0];
    assert_eq!(case["source"][0]["file"], json!(ABILITY), "{report:#}");
    assert_eq!(case["location"], json!({"file": ABILITY, "line": 7, "column": 5}), "{report:#}");
    let placed = format!("entry|entry|1.0.0|src/main/ets/entryability/EntryAbility.ts:9:9 → {ABILITY}:7:5");
    let md = lab.report_md(&out);
    // (report.md escapes a table's `|` everywhere.)
    assert!(md.contains(&format!("  - {}\n", placed.replace('|', "\\|"))), "{md}");
    assert!(md.contains("oh_modules/@ohos/hypium/index.js:1:1 (not placed: not a frame of the app"), "{md}");
    let run_id = report["run_id"].as_str().unwrap();
    let html = std::fs::read_to_string(lab.ws.path(&format!(".rein/runs/{run_id}/report.html"))).unwrap();
    assert!(html.contains(&format!("<li>{placed}</li>")), "{html}");
    let (status, xml, err) = lab.ws.human(&["runs", "show", run_id, "--format", "junit"]);
    assert_eq!(status, 0, "{err}");
    assert!(xml.contains(&format!("frame: {placed}\n")), "{xml}");
}

/// hstack where it is installed (here the fakes', §7's command line): the tool runs it confined
/// read-only on the build's own map folder and reads the restored stack from stdout. Without a
/// build it says so and runs nothing; a "stack" that hstack would read as an option is refused.
#[test]
fn hstack_restores_a_stack_from_the_builds_source_map() {
    let Some(lab) = lab() else { return };
    let frame = "    at onCreate (entry|entry|1.0.0|src/main/ets/entryability/EntryAbility.ts:9:9)";
    let missing = lab.failed(&[], "hstack", json!({"stack": frame, "mode": "debug"}), "FILE_NOT_FOUND");
    assert!(missing["message"].as_str().unwrap().contains("no source map for the debug build of module entry"));
    assert!(lab.command_lines("hstack").is_empty(), "nothing ran without a map");
    lab.build();
    let stack = format!("Error message:boom\n{frame}");
    let out = lab.ok(&[], "hstack", json!({"stack": stack, "mode": "debug"}));
    assert_eq!(
        out["restored"],
        json!(["Error message:boom", "    at onCreate (entry/src/main/ets/entryability/EntryAbility.ets:7:5)"]),
        "{out:#}"
    );
    assert_eq!((&out["source"][1]["file"], &out["source"][1]["line"]), (&json!(ABILITY), &json!(7)), "{out:#}");
    let dir = MAP.strip_suffix("/sourceMaps.map").unwrap();
    // One run per frame (rein hands no program a line break).
    assert_eq!(lab.command_lines("hstack"), [format!("-c {frame} -s {dir}")]);
    // Attack: a "stack" that reads as hstack's -o, to make it write a file: only frame lines
    // (`at …`) reach hstack, so it is kept as given and nothing runs (and the policy refuses a
    // -c value that starts with `-` besides: grammar/hstack.rs).
    let out = lab.ok(&["--yes"], "hstack", json!({"stack": "-o/tmp/x", "mode": "debug"}));
    assert_eq!(out["restored"], json!(["-o/tmp/x"]), "{out:#}");
    assert_eq!(lab.command_lines("hstack").len(), 1, "no run for it");
}

/// build-profile.json5 is the agent's to write: one nested a few hundred thousand levels deep
/// aborted rein with a stack overflow as soon as a stack was mapped (json5's deserializer
/// recursed once per level). Now the file is unreadable like any broken one: the frame says
/// its module is not the project's, and rein answers.
#[test]
fn a_deeply_nested_build_profile_leaves_frames_unmapped_and_rein_answering() {
    let Some(lab) = lab() else { return };
    let deep = format!("{}{}", "[".repeat(300_000), "]".repeat(300_000));
    std::fs::write(lab.ws.path("build-profile.json5"), deep).unwrap();
    std::fs::create_dir_all(lab.ws.path("tools")).unwrap();
    std::fs::write(
        lab.ws.path("tools/map_one.lua"),
        "return { name = \"map_one\", description = \"maps one frame\", params = {}, run = function() return { frames = rein.fs.map_stack({ \"at f (entry/src/main/ets/pages/Index.ets:3:5)\" }) } end }\n",
    )
    .unwrap();
    let mapped = lab.ok(&[], "map_one", json!({}));
    let frame = &mapped["frames"][0];
    assert_eq!(frame["mapped"], json!(false), "{mapped:#}");
    assert!(
        frame["why"].as_str().unwrap().contains("is not a module of this project's build-profile.json5"),
        "{mapped:#}"
    );
}

/// A device prints whatever stack its app throws, and hvigorfile.ts writes whatever map: a
/// 6 MB sourceMaps.map and a stack of 3,000 frames naming keys it lacks took rein more than
/// 300 s (a copy of the whole parsed map per frame and mode), about 1 s now; the bound here is
/// far from both.
#[test]
fn a_long_stack_against_a_large_source_map_is_mapped_in_bounded_time() {
    let ws = crate::common::Workspace::new();
    ws.file("build-profile.json5", r#"{ modules: [{ name: "entry", srcPath: "./entry" }] }"#);
    let mut map = serde_json::Map::new();
    for i in 0..20_000 {
        let entry = json!({"version": 3, "sources": ["entry/src/main/ets/Good.ets"], "names": [], "mappings": "AAAA;AACA;".repeat(20)});
        map.insert(format!("entry|entry|1.0.0|src/main/ets/P{i}.ts"), entry);
    }
    ws.file(MAP, Value::Object(map).to_string());
    let mut lines: Vec<String> =
        (0..3_000).map(|i| format!("\"at a (entry|entry|1.0.0|src/main/ets/Q{i}.ts:1:1)\"")).collect();
    lines.push("\"at b (entry|entry|1.0.0|src/main/ets/P7.ts:2:1)\"".into());
    ws.file(
        "tools/stack.lua",
        format!(
            r#"return {{ name = "stack", description = "maps a stack", params = {{}},
             run = function() local f = rein.fs.map_stack({{ {} }}) return {{ n = #f, last = f[#f], first = f[1] }} end }}"#,
            lines.join(",")
        ),
    );
    let started = std::time::Instant::now();
    let (status, out) = crate::common::rein_json(&ws, &["call", "stack"]);
    let took = started.elapsed();
    assert_eq!(status, 0, "{out}");
    assert!(took < std::time::Duration::from_secs(60), "took {took:?}");
    assert_eq!(out["result"]["n"], json!(3_001), "{out}");
    assert!(out["result"]["first"]["why"].as_str().unwrap().contains("has no entry for"), "{out}");
    let last = &out["result"]["last"];
    assert_eq!(
        (&last["file"], &last["line"], &last["mapped"]),
        (&json!("entry/src/main/ets/Good.ets"), &json!(2), &json!(true)),
        "{out}"
    );
}
