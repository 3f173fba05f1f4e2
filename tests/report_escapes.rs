//! Text from outside rein cannot forge a report's structure (issue 35, hole 5): a recipe
//! argument, a step's name, an error's message and remedy, log lines and device rows holding
//! line breaks and markdown or HTML structure ("## launch", "| launch | verified |", task
//! boxes, remote images, `<li>`) give report.md (also the `recipe_*` tools' MCP text),
//! report.html, the JUnit XML and `rein runs show` / `rein runs list` on a terminal the same
//! structure as plain text does. Real parsers judge: pulldown-cmark with GitHub's extensions,
//! html5ever (`scraper`), roxmltree.

use pulldown_cmark::{Event, Options, Parser};
use serde_json::json;

use crate::common::{rein_json, Workspace};

/// What an agent (or an app, on the device) writes.
const FORGERY: &str = "x\n## launch\r\n| launch | verified |\n|---|---|\n- [ ] task\n\
    ![img](http://evil.example/x.png)\n<li>item</li>\n```\n1. one\n\u{202e}\u{1b}[2J";

/// A project recipe whose every text carries `text`: step names, the evidence, the failure's
/// message, file, remedy, log lines, crash and device rows (as the built-in recipes fill them
/// from hilog and the device), and the argument `note`.
fn recipe(text: &str) -> String {
    let lua: String = text.bytes().map(|b| format!("\\{b}")).collect();
    format!(
        r#"local P = "{lua}"
return {{ name = "forge", description = "text from outside in every field",
  params = {{ note = {{ type = "string" }} }},
  steps = {{
    {{ name = "launch" .. P, run = function(ctx) return {{ ok = true }} end,
      verify = function(ctx, out) ctx:evidence("pid 4242 alive " .. ctx.args.note) return true, "seen " .. P end }},
    {{ name = "install" .. P, run = function(ctx)
      rein.error("LAUNCH_FAILED", "crashed " .. ctx.args.note, {{ file = "f" .. P, line = 1, remedy = "do " .. P,
        log = {{ "06-15 10:00:00.000  2291  2291 I A00000/testTag: " .. P, "second " .. P }},
        crash = {{ error_name = "TypeError", error_message = P, file = "jscrash" .. P, stack = {{ "at " .. P }},
                   first_lines = {{ "Pid:2291 " .. P }} }},
        rows = {{ {{ target = "D" .. P, ok = true, evidence = "ev" .. P, screen = "sc" .. P }},
                  {{ target = "U" .. P, ok = false, code = "X", message = "m" .. P, remedy = "r" .. P }} }} }})
    end }},
    {{ name = "after" .. P, run = function() end }},
  }} }}"#
    )
}

/// Each format of a run whose outside texts are all `text`, and the terminal's lines.
struct Shown {
    md: String,
    html: String,
    junit: String,
    terminal: String,
    list: String,
}

fn run(text: &str) -> Shown {
    let ws = Workspace::new();
    ws.file("recipes/forge.lua", recipe(text));
    let args = json!({ "note": text }).to_string();
    let (status, out) = rein_json(&ws, &["recipe", "forge", &args]);
    assert_eq!(status, 1, "{out}");
    let run_id = out["error"]["details"]["run_id"].as_str().expect("a run id").to_string();
    let dir = ws.path(&format!(".rein/runs/{run_id}"));
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let show = |args: &[&str]| {
        let (status, out, err) = ws.human(args);
        assert_eq!(status, 0, "{args:?}: {err}");
        out
    };
    Shown {
        md: read("report.md"),
        html: read("report.html"),
        junit: show(&["runs", "show", &run_id, "--format", "junit"]),
        terminal: show(&["runs", "show", &run_id]),
        list: show(&["runs", "list"]),
    }
}

fn markdown_structure(md: &str) -> Vec<String> {
    let options = Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS | Options::ENABLE_STRIKETHROUGH;
    Parser::new_ext(md, options)
        .filter_map(|event| match event {
            Event::Text(_) | Event::Code(_) => None,
            other => Some(format!("{other:?}").split(['(', ' ', '{', '"']).next().unwrap_or_default().to_string()),
        })
        .collect()
}

fn html_structure(html: &str) -> Vec<String> {
    let document = scraper::Html::parse_document(html);
    document
        .tree
        .root()
        .descendants()
        .filter_map(|node| node.value().as_element().map(|e| format!("{} {}", node.ancestors().count(), e.name())))
        .collect()
}

fn junit_structure(xml: &str) -> Vec<String> {
    let document = roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("the JUnit XML parses: {e}\n{xml}"));
    document.descendants().filter(|n| n.is_element()).map(|n| n.tag_name().name().to_string()).collect()
}

#[test]
fn outside_text_forges_no_heading_row_task_image_or_line_in_any_report_format() {
    let plain = run("plain");
    let forged = run(FORGERY);
    let md = &forged.md;
    assert_eq!(markdown_structure(md), markdown_structure(&plain.md), "report.md:\n{md}");
    assert!(!md.lines().any(|l| l == "## launch" || l.starts_with("| launch |") || l.starts_with("- [ ]")), "{md}");
    assert_eq!(html_structure(&forged.html), html_structure(&plain.html), "report.html:\n{}", forged.html);
    assert_eq!(junit_structure(&forged.junit), junit_structure(&plain.junit), "JUnit:\n{}", forged.junit);
    for (name, shown, expected) in
        [("runs show", &forged.terminal, &plain.terminal), ("runs list", &forged.list, &plain.list)]
    {
        assert_eq!(shown.lines().count(), expected.lines().count(), "`rein {name}` on a terminal:\n{shown}");
        assert!(
            !shown.chars().any(|c| matches!(c, '\r' | '\u{1b}' | '\u{202e}')),
            "`rein {name}` shows what a screen acts on escaped: {shown:?}"
        );
    }
}

/// The built-in sign-install-launch on the fake device, the app's screen showing `ui_text` and
/// the run asked for `expect_text` (a recipe argument): the check fails, naming what the
/// screen shows. report.md, report.html and the terminal, as they came out.
fn launch_with_screen(ui_text: &str, expect_text: &str) -> Option<Shown> {
    let lab = crate::common::lab::lab()?;
    lab.one_device();
    lab.edit_device(crate::common::lab::KEY, |state| {
        state["screen"] = json!([{"type": "Text", "text": ui_text, "id": "title"}]);
    });
    let (status, out) = lab.recipe(&["--yes"], "sign-install-launch", json!({ "expect_text": expect_text }));
    assert_eq!((status, out["error"]["details"]["failure"]["code"].as_str()), (1, Some("VERIFY_FAILED")), "{out}");
    let run_id = out["error"]["details"]["run_id"].as_str().expect("a run id").to_string();
    let dir = lab.ws.path(&format!(".rein/runs/{run_id}"));
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let show = |args: &[&str]| {
        let (status, out, err) = lab.ws.human(args);
        assert_eq!(status, 0, "{args:?}: {err}");
        out
    };
    Some(Shown {
        md: read("report.md"),
        html: read("report.html"),
        junit: show(&["runs", "show", &run_id, "--format", "junit"]),
        terminal: show(&["runs", "show", &run_id]),
        list: show(&["runs", "list"]),
    })
}

#[test]
fn ui_text_on_the_device_and_the_text_asked_for_forge_nothing_in_the_built_in_recipes_report() {
    let Some(plain) = launch_with_screen("plain", "absent") else { return };
    let forged = launch_with_screen(FORGERY, &format!("absent{FORGERY}")).expect("the lab ran once already");
    assert_eq!(markdown_structure(&forged.md), markdown_structure(&plain.md), "report.md:\n{}", forged.md);
    assert_eq!(html_structure(&forged.html), html_structure(&plain.html), "report.html:\n{}", forged.html);
    assert_eq!(junit_structure(&forged.junit), junit_structure(&plain.junit), "JUnit:\n{}", forged.junit);
    assert_eq!(forged.terminal.lines().count(), plain.terminal.lines().count(), "{}", forged.terminal);
    assert!(forged.md.contains("\\#\\# launch"), "the screen's text is named, escaped: {}", forged.md);
}
