//! Every crash stack rein shows names the workspace's `.ets` line: a release build's raw frames
//! (`at a (entry|entry|1.0.0|src/main/ets/entryability/EntryAbility.ts:9:9)`, after `Cannot get
//! SourceMap info, dump raw stack:`) go back through the build's own sourceMaps.map, which the
//! fake hvigorw writes as a real version-3 map of the example's pages; a frame that cannot be
//! mapped says why.

use crate::common::lab::{installed_lab, KEY};
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
            "has no code at line 9 of src/main/ets/entryability/EntryAbility.ts: the build is not the one that crashed"
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
