//! `uitest dumpLayout [-p PATH] [-b BUNDLE]`, as `openharmony/testfwk_arkxtest` uitest writes
//! and prints it (@4eea31c): server/server_main.cpp `DumpLayout` (default path
//! `/data/local/tmp/layout_<microseconds>.json`; `DumpLayout saved to:<path>` on success,
//! `DumpLayout failed:<message>` otherwise, through `PrintToConsole`, i.e. `std::cout << … <<
//! std::endl`), core/ui_driver.cpp `DumpUiHierarchy` (a root whose `attributes` hold every
//! attribute before `hierarchy` empty except `bounds`, the windows' merged bounds; one child per
//! window, `-b` keeping only that bundle's, each given `abilityName`, `bundleName`, `pagePath`),
//! core/dump_handler.cpp `DFSMarshalWidget` (`{"attributes": …, "children": […]}`) and
//! core/ui_model.cpp `WrapperWidgetToJson` (every attribute of `ATTR_NAMES` up to `hierarchy`,
//! then `visible`, `hashcode`, `hint`: all strings). nlohmann::json keeps keys sorted and
//! `dump(-1)` writes one line with no spaces, as serde_json's `to_string` does.
//!
//! What the screen shows is screen.rs's model: the foreground app's window (its current page's
//! widgets, one per row) or, with no app in the foreground, the home screen. `"dump_layout_error":
//! true` makes it fail with the text `DumpUiHierarchy` gives when it finds no window ("Get window
//! nodes failed"). Attribute values other than type, text, id, bounds, focused, clickable and hint
//! are plausible, not copied
//! from a device (GUESS).

use serde_json::{json, Map, Value};

use crate::device::Device;
use crate::screen::{self, row_bounds, HEIGHT, WIDTH};
use crate::words::flag;

/// `ATTR_NAMES` of core/ui_model.h up to and without `hierarchy`, in order.
const ATTRS: [&str; 26] = [
    "accessibilityId",
    "id",
    "text",
    "key",
    "description",
    "type",
    "bounds",
    "enabled",
    "focused",
    "selected",
    "clickable",
    "longClickable",
    "scrollable",
    "checkable",
    "checked",
    "hostWindowId",
    "displayId",
    "origBounds",
    "zIndex",
    "opacity",
    "backgroundColor",
    "backgroundImage",
    "blur",
    "hitTestBehavior",
    "clip",
    "originalText",
];

pub fn dump_layout(words: &[String], device: &mut Device, out: &mut String) {
    let micros = chrono::Local::now().timestamp_micros();
    let path = flag(words, "-p").map(String::from).unwrap_or(format!("/data/local/tmp/layout_{micros}.json"));
    if device.flag("dump_layout_error") == &json!(true) {
        out.push_str("DumpLayout failed:Get window nodes failed\n");
        return;
    }
    let tree = tree(device, flag(words, "-b"));
    match device.write_file(&path, tree.to_string().as_bytes()) {
        Ok(()) => out.push_str(&format!("DumpLayout saved to:{path}\n")),
        // ApiCallErr(ERR_INVALID_INPUT, "Error path:" + path + strerror(errno)).
        Err(e) => out.push_str(&format!("DumpLayout failed:Error path:{path}{}\n", strerror(&e))),
    }
}

fn strerror(e: &std::io::Error) -> String {
    let text = e.to_string();
    text.split(" (os error").next().unwrap_or(&text).to_string()
}

fn tree(device: &mut Device, only: Option<&str>) -> Value {
    let running = screen::foreground(device).cloned();
    let bundle = running.as_ref().and_then(|r| r["bundle"].as_str()).unwrap_or("com.ohos.sceneboard").to_string();
    let ability =
        running.as_ref().and_then(|r| r["ability"].as_str()).unwrap_or("com.ohos.sceneboard.MainAbility").to_string();
    let shown = screen::shown(device);
    let mut windows = Vec::new();
    if let Some(dialog) = crate::system_dialog::shown(device).filter(|d| only.is_none_or(|b| b == d.bundle)) {
        windows.push(dialog_window(&dialog));
    }
    if only.is_none_or(|b| b == bundle) {
        windows.push(window(&shown, &bundle, &ability));
    }
    let mut root = Map::new();
    for name in ATTRS {
        root.insert(name.into(), json!(""));
    }
    root.insert(
        "bounds".into(),
        json!(if windows.is_empty() { bounds(0, 0, 0, 0) } else { bounds(0, 0, WIDTH, HEIGHT) }),
    );
    json!({"attributes": root, "children": windows})
}

fn window(shown: &screen::Shown, bundle: &str, ability: &str) -> Value {
    let mut next = Counter(1);
    let leaves: Vec<Value> = shown
        .widgets
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let attrs = widget(&mut next, &format!("ROOT,0,0,{i}"), w, row_bounds(i));
            json!({"attributes": attrs, "children": []})
        })
        .collect();
    let column = widget(&mut next, "ROOT,0,0", &json!({"type": "Column"}), (0, 0, WIDTH, HEIGHT));
    let row = widget(&mut next, "ROOT,0", &json!({"type": "Row"}), (0, 0, WIDTH, HEIGHT));
    let mut page = widget(&mut next, "ROOT", &json!({"type": "root"}), (0, 0, WIDTH, HEIGHT));
    page.insert("abilityName".into(), json!(ability));
    page.insert("bundleName".into(), json!(bundle));
    page.insert("pagePath".into(), json!(shown.page));
    json!({"attributes": page, "children": [
        {"attributes": row, "children": [{"attributes": column, "children": leaves}]}
    ]})
}

/// A system dialog's window (`system_dialog`): its rows inside its bounds.
fn dialog_window(dialog: &crate::system_dialog::Dialog) -> Value {
    let mut next = Counter(900);
    let rows: Vec<Value> = dialog
        .rows
        .iter()
        .enumerate()
        .map(|(i, (w, at))| json!({"attributes": widget(&mut next, &format!("ROOT,{i}"), w, *at), "children": []}))
        .collect();
    let (l, t, r, b) = dialog.bounds;
    let mut root = widget(&mut next, "ROOT", &json!({"type": "root"}), (l, t, r, b));
    root.insert("abilityName".into(), json!(""));
    root.insert("bundleName".into(), json!(dialog.bundle));
    root.insert("pagePath".into(), json!(""));
    json!({"attributes": root, "children": rows})
}

struct Counter(i64);

fn widget(n: &mut Counter, hierarchy: &str, w: &Value, at: (i64, i64, i64, i64)) -> Map<String, Value> {
    let text = w["text"].as_str().unwrap_or("");
    let kind = w["type"].as_str().unwrap_or("Text");
    let id = w["id"].as_str().unwrap_or("");
    let (left, top, right, bottom) = at;
    let clickable = w["clickable"] == json!(true);
    let mut attrs = Map::new();
    for name in ATTRS {
        attrs.insert(name.into(), json!(""));
    }
    let values = [
        ("accessibilityId", n.0.to_string()),
        ("id", id.to_string()),
        ("text", text.to_string()),
        ("type", kind.to_string()),
        ("bounds", bounds(left, top, right, bottom)),
        ("origBounds", bounds(left, top, right, bottom)),
        ("enabled", "true".into()),
        ("focused", (w["focused"] == json!(true)).to_string()),
        ("selected", "false".into()),
        ("clickable", clickable.to_string()),
        ("longClickable", "false".into()),
        ("scrollable", "false".into()),
        ("checkable", "false".into()),
        ("checked", "false".into()),
        ("hostWindowId", "14".into()),
        ("displayId", "0".into()),
        ("zIndex", "0".into()),
        ("opacity", "1.000000".into()),
        ("backgroundColor", "#00000000".into()),
        ("blur", "0.000000".into()),
        ("hitTestBehavior", "Default".into()),
        ("clip", "false".into()),
        ("originalText", text.to_string()),
        ("hierarchy", hierarchy.to_string()),
        ("visible", "true".into()),
        ("hashcode", format!("{}", 2_104_001 + n.0)),
        ("hint", w["hint"].as_str().unwrap_or("").to_string()),
    ];
    for (name, value) in values {
        attrs.insert(name.into(), json!(value));
    }
    n.0 += 1;
    attrs
}

fn bounds(left: i64, top: i64, right: i64, bottom: i64) -> String {
    format!("[{left},{top}][{right},{bottom}]")
}
