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
//! What the screen shows: the foreground app's window (the last one started), holding the
//! widgets the device state's `"screen"` lists (`[{"type", "text", "id"}]`, one per row), by
//! default the stock template's page, `Text` "Hello World" (tests/fixtures/hello-app
//! `pages/Index.ets`); with no app running, the home screen. `"dump_layout_error": true` makes
//! it fail with the text `DumpUiHierarchy` gives when it finds no window ("Get window nodes
//! failed"). Attribute values other than type, text, id and bounds are plausible, not copied
//! from a device (GUESS).

use serde_json::{json, Map, Value};

use crate::device::Device;
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

const WIDTH: i64 = 1260;
const HEIGHT: i64 = 2720;
const ROW: i64 = 160;

pub fn dump_layout(words: &[String], device: &Device, out: &mut String) {
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

fn tree(device: &Device, only: Option<&str>) -> Value {
    let running = device.running().last();
    let bundle = running.and_then(|r| r["bundle"].as_str()).unwrap_or("com.ohos.sceneboard");
    let ability = running.and_then(|r| r["ability"].as_str()).unwrap_or("com.ohos.sceneboard.MainAbility");
    let mut windows = Vec::new();
    if only.is_none_or(|b| b == bundle) {
        windows.push(window(device, bundle, ability, running.is_some()));
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

/// What the window shows: the device state's `screen`, else the template's page or the home
/// screen.
fn widgets(device: &Device, app: bool) -> Vec<Value> {
    if let Some(list) = device.flag("screen").as_array() {
        return list.clone();
    }
    if app {
        vec![json!({"type": "Text", "text": "Hello World"})]
    } else {
        vec![json!({"type": "Text", "text": "Clock", "id": "clock"}), json!({"type": "Text", "text": "Settings"})]
    }
}

fn window(device: &Device, bundle: &str, ability: &str, app: bool) -> Value {
    let mut next = Counter(1);
    let leaves: Vec<Value> = widgets(device, app)
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let top = 400 + i as i64 * ROW;
            let attrs = widget(
                &mut next,
                &format!("ROOT,0,0,{i}"),
                w["type"].as_str().unwrap_or("Text"),
                w["text"].as_str().unwrap_or(""),
                w["id"].as_str().unwrap_or(""),
                (80, top, WIDTH - 80, top + ROW - 20),
            );
            json!({"attributes": attrs, "children": []})
        })
        .collect();
    let column = widget(&mut next, "ROOT,0,0", "Column", "", "", (0, 0, WIDTH, HEIGHT));
    let row = widget(&mut next, "ROOT,0", "Row", "", "", (0, 0, WIDTH, HEIGHT));
    let mut page = widget(&mut next, "ROOT", "root", "", "", (0, 0, WIDTH, HEIGHT));
    page.insert("abilityName".into(), json!(ability));
    page.insert("bundleName".into(), json!(bundle));
    page.insert("pagePath".into(), json!(if app { "pages/Index" } else { "" }));
    json!({"attributes": page, "children": [
        {"attributes": row, "children": [{"attributes": column, "children": leaves}]}
    ]})
}

struct Counter(i64);

fn widget(
    n: &mut Counter,
    hierarchy: &str,
    kind: &str,
    text: &str,
    id: &str,
    at: (i64, i64, i64, i64),
) -> Map<String, Value> {
    let (left, top, right, bottom) = at;
    let clickable = kind == "Button";
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
        ("focused", "false".into()),
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
        ("hint", String::new()),
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
