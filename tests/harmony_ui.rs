//! What is on the device's screen: a proven launch keeps its screenshot, UI tree and that tree's
//! text in the run's folder (and report.html shows them), `expect_text` checks a text is on
//! screen, `ui_dump` and `ui_find` answer agents; every device scratch file rein made is removed
//! again, and evidence that cannot be taken is named, never claimed.

use std::path::Path;

use crate::common::lab::{lab, step, Lab, KEY};
use serde_json::{json, Value};

const BUNDLE: &str = "com.example.hello";

fn run(lab: &Lab, args: Value) -> (i32, Value, Value) {
    let (status, out) = lab.recipe(&["--yes"], "sign-install-launch", args);
    let report = lab.report(&out);
    (status, out, report)
}

fn run_folder(lab: &Lab, report: &Value) -> std::path::PathBuf {
    lab.ws.path(&format!(".rein/runs/{}", report["run_id"].as_str().unwrap()))
}

fn attachments(report: &Value) -> Vec<(String, String)> {
    step(report, "screen")["attachments"]
        .as_array()
        .map(|a| a.iter().map(|x| (x["kind"].as_str().unwrap().into(), x["path"].as_str().unwrap().into())).collect())
        .unwrap_or_default()
}

fn evidence(report: &Value) -> Vec<String> {
    step(report, "screen")["evidence"].as_array().unwrap().iter().map(|e| e.as_str().unwrap().to_string()).collect()
}

/// rein's scratch files left on the device, and in the workspace's transit folder.
fn leftovers(lab: &Lab) -> Vec<String> {
    let mut left = Vec::new();
    let device_tmp = lab.device_root(KEY).join("data/local/tmp");
    for dir in [device_tmp, lab.ws.path(".rein-received")] {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            left.push(entry.path().display().to_string());
        }
    }
    left
}

/// Bad arguments: INVALID_ARGS, and rein's exit status for them.
fn refused(lab: &Lab, tool: &str, args: Value) {
    let (status, out) = lab.call(&[], tool, args);
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_ARGS")), "{out}");
}

fn an_app_on_screen(lab: &Lab, screen: Value) {
    lab.one_device();
    lab.device(
        KEY,
        json!({"running": [{"bundle": BUNDLE, "ability": "EntryAbility", "pid": 4000, "started_at": 1.0, "foreground_at": 1.5}],
               "screen": screen}),
    );
}

#[test]
fn a_proven_launch_keeps_its_screen_in_the_run_folder_and_the_page_shows_it() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    let (status, out, report) = run(&lab, json!({}));
    assert_eq!(status, 0, "{out}");
    assert_eq!(step(&report, "screen")["status"], json!("verified"), "{report:#}");
    let run_id = report["run_id"].as_str().unwrap();
    let folder = format!(".rein/runs/{run_id}");
    assert_eq!(
        attachments(&report),
        [
            ("screenshot".to_string(), format!("{folder}/screen.jpeg")),
            ("ui_tree".to_string(), format!("{folder}/layout.json")),
            ("ui_text".to_string(), format!("{folder}/layout.txt")),
        ]
    );
    let dir = run_folder(&lab, &report);
    assert_eq!(&std::fs::read(dir.join("screen.jpeg")).unwrap()[..3], &[0xFF, 0xD8, 0xFF], "a JPEG");
    let tree: Value = serde_json::from_slice(&std::fs::read(dir.join("layout.json")).unwrap()).unwrap();
    assert_eq!(tree["children"][0]["attributes"]["bundleName"], json!(BUNDLE), "uitest's tree as written");
    let text = std::fs::read_to_string(dir.join("layout.txt")).unwrap();
    assert_eq!(
        text, "window com.example.hello EntryAbility pages/Index\nText \"Hello World\" [80,400][1180,540]\n",
        "the compact form"
    );
    assert_eq!(
        evidence(&report),
        [
            "the launched app's screen is kept".to_string(),
            format!("screenshot {folder}/screen.jpeg (1276x2848)"),
            format!("UI tree {folder}/layout.json (4 nodes), as text {folder}/layout.txt"),
        ]
    );
    let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(page.contains("src=\"data:image/jpeg;base64,/9j/"), "the page embeds the screenshot");
    assert!(page.contains("Text &quot;Hello World&quot; [80,400][1180,540]"), "and the tree's text: {page}");
    // Unique scratch names on the device, received, then removed there and from the transit folder.
    let hdc = lab.command_lines("hdc");
    let shot =
        hdc.iter().find(|c| c.contains("shell snapshot_display -f /data/local/tmp/rein-screen-")).expect("a shot");
    let remote = shot.rsplit(' ').next().unwrap();
    assert!(hdc.iter().any(|c| c.contains(&format!("file recv {remote} .rein-received/rein-screen-"))), "{hdc:#?}");
    assert!(hdc.iter().any(|c| c.ends_with(&format!("shell rm -f {remote}"))), "{hdc:#?}");
    let dump = hdc.iter().find(|c| c.contains("shell uitest dumpLayout -p /data/local/tmp/rein-ui-")).expect("a dump");
    let remote = dump.rsplit(' ').next().unwrap();
    assert!(hdc.iter().any(|c| c.ends_with(&format!("shell rm -f {remote}"))), "{hdc:#?}");
    assert_eq!(leftovers(&lab), Vec::<String>::new(), "nothing of rein's stays on the device or in transit");
}

#[test]
fn expect_text_passes_on_screen_and_a_failure_names_what_the_screen_shows() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    let (status, out, report) = run(&lab, json!({"expect_text": "Hello"}));
    assert_eq!(status, 0, "{out}");
    assert_eq!(evidence(&report)[0], "\"Hello\" is on screen: Text \"Hello World\" at [80,400][1180,540]");
    let (status, out, report) = run(&lab, json!({"expect_text": "Goodbye"}));
    assert_eq!(status, 1, "{out}");
    let failure = &report["failure"];
    assert_eq!((failure["step"].as_str(), failure["code"].as_str()), (Some("screen"), Some("VERIFY_FAILED")));
    let message = failure["message"].as_str().unwrap();
    assert!(
        message.starts_with("step screen ran but its verify did not pass: no widget on screen shows \"Goodbye\"; the screen shows \"Hello World\" (.rein/runs/"),
        "{message}"
    );
    assert_eq!(step(&report, "launch")["status"], json!("verified"), "the launch itself stays proven");
    assert!(run_folder(&lab, &report).join("screen.jpeg").exists(), "a failed check keeps the screen it saw");
    assert_eq!(attachments(&report).len(), 3, "{report:#}");
}

#[test]
fn evidence_that_cannot_be_taken_is_named_and_the_proven_launch_stands() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.device(KEY, json!({"dump_layout_error": true}));
    let (status, out, report) = run(&lab, json!({}));
    assert_eq!(status, 0, "a proven launch is not undone by a missing tree: {out}");
    let ev = evidence(&report);
    assert_eq!(ev[2], "no UI tree: UI_DUMP_FAILED: uitest dumpLayout failed: Get window nodes failed", "{ev:?}");
    let kinds: Vec<String> = attachments(&report).into_iter().map(|(k, _)| k).collect();
    assert_eq!(kinds, ["screenshot"], "only what was taken is claimed");
    assert!(!run_folder(&lab, &report).join("layout.json").exists());
    assert_eq!(leftovers(&lab), Vec::<String>::new());
    // When the text must be checked, a missing tree fails: nothing shows the text is there.
    let (status, _, report) = run(&lab, json!({"expect_text": "Hello World"}));
    assert_eq!(status, 1);
    assert_eq!(
        report["failure"]["message"],
        json!("step screen ran but its verify did not pass: \"Hello World\" cannot be checked: the UI tree was not taken (UI_DUMP_FAILED: uitest dumpLayout failed: Get window nodes failed)")
    );
}

#[test]
fn ui_dump_gives_the_screen_in_a_few_lines_without_asking() {
    let Some(lab) = lab() else { return };
    an_app_on_screen(
        &lab,
        json!([{"type": "Text", "text": "Sign in", "id": "title"}, {"type": "TextInput", "id": "user"},
               {"type": "Button", "text": "OK", "id": "ok"}]),
    );
    // No --yes: dumpLayout to rein's name, its recv into the transit folder and rm are allowed.
    let dump = lab.ok(&[], "ui_dump", json!({}));
    assert_eq!(
        dump["text"],
        json!(
            "window com.example.hello EntryAbility pages/Index\n\
             Text \"Sign in\" #title [80,400][1180,540]\n\
             TextInput #user [80,560][1180,700] tap\n\
             Button \"OK\" #ok [80,720][1180,860] tap\n"
        )
    );
    assert_eq!(dump["windows"], json!([{"bundle": BUNDLE, "ability": "EntryAbility", "page": "pages/Index"}]));
    assert_eq!(dump["nodes"], json!(6), "root, row, column and the three widgets");
    let other = lab.ok(&[], "ui_dump", json!({"bundle": "com.other.app"}));
    assert_eq!(other["text"], json!("(nothing on screen shows text)\n"), "-b keeps that bundle's windows only");
    assert!(lab.command_lines("hdc").iter().any(|c| c.contains(" -b com.other.app")));
    assert_eq!(leftovers(&lab), Vec::<String>::new());
}

#[test]
fn ui_find_says_found_not_found_and_ambiguous() {
    let Some(lab) = lab() else { return };
    an_app_on_screen(
        &lab,
        json!([{"type": "Text", "text": "Delete 2 files?"}, {"type": "Button", "text": "OK", "id": "confirm"},
               {"type": "Button", "text": "OK", "id": "ok2"}, {"type": "Button", "text": "Cancel"}]),
    );
    let one = lab.ok(&[], "ui_find", json!({"text": "Cancel"}));
    assert_eq!(
        (one["found"].as_bool(), one["count"].as_u64(), one["ambiguous"].as_bool()),
        (Some(true), Some(1), Some(false))
    );
    assert_eq!(
        one["matches"][0],
        json!({"type": "Button", "text": "Cancel", "id": "", "bounds": "[80,880][1180,1020]",
               "center": {"x": 630, "y": 950}, "clickable": true, "bundle": BUNDLE})
    );
    let by_id = lab.ok(&[], "ui_find", json!({"id": "confirm"}));
    assert_eq!(by_id["matches"][0]["bounds"], json!("[80,560][1180,700]"));
    let both = lab.ok(&[], "ui_find", json!({"text": "OK", "type": "Button"}));
    assert_eq!((both["count"].as_u64(), both["ambiguous"].as_bool()), (Some(2), Some(true)), "{both}");
    let part = lab.ok(&[], "ui_find", json!({"text": "2 files", "contains": true}));
    assert_eq!(part["matches"][0]["text"], json!("Delete 2 files?"));
    let none = lab.ok(&[], "ui_find", json!({"text": "Retry"}));
    assert_eq!(none["found"], json!(false));
    assert_eq!(none["on_screen"], json!(["Delete 2 files?", "OK", "Cancel"]), "what was there instead");
    let whole = lab.ok(&[], "ui_find", json!({"text": "2 files"}));
    assert_eq!(whole["found"], json!(false), "a part of a text is no match unless contains is set");
    refused(&lab, "ui_find", json!({}));
}

#[test]
fn a_device_scratch_name_of_rein_is_the_only_kind_rein_takes_from_transit() {
    let Some(lab) = lab() else { return };
    let transit = lab.ws.path(".rein-received");
    std::fs::create_dir_all(&transit).unwrap();
    std::fs::write(lab.ws.path("notes.txt"), "mine\n").unwrap();
    let tool = r#"return { name = "take", description = "takes", params = { name = { type = "string" } },
      run = function(args) return { bytes = #rein.fs.take_received(args.name) } end }"#;
    std::fs::create_dir_all(lab.ws.path("tools")).unwrap();
    std::fs::write(lab.ws.path("tools/take.lua"), tool).unwrap();
    for name in ["../notes.txt", "notes.txt", "rein-x.txt", "rein-../../notes.json"] {
        refused(&lab, "take", json!({"name": name}));
    }
    assert!(Path::new(&lab.ws.path("notes.txt")).exists(), "a project file is never taken");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(lab.ws.path("notes.txt"), transit.join("rein-link.json")).unwrap();
        let (status, out) = lab.call(&[], "take", json!({"name": "rein-link.json"}));
        assert_ne!(status, 0, "a link in the transit folder is not followed: {out}");
        assert_eq!(std::fs::read_to_string(lab.ws.path("notes.txt")).unwrap(), "mine\n");
    }
}
