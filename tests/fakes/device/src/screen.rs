//! The screen as a model with cause and effect: which app is in the foreground, which of its
//! pages shows (a stack: a pushed page on top, Back pops it), the page's fields (`@State`),
//! what was typed into each text field and which one has the focus. The widgets come from the
//! installed app's pages (the fake hvigorw reads them from the project's `.ets` files:
//! host/hvigor_pages.rs) or, when a test sets it, the device state's `"screen"` list (static).
//! layout.rs shows the model as uitest's tree, ui_input.rs changes it.
//!
//! State: `"ui": {BUNDLE: {"stack": [page…], "vars": {page: {field: value}}, "fields": {"page#n":
//! text}, "focus": "page#n"}}`, made on first sight and dropped when the app stops. A running
//! record with `"background": true` is an app Home (or Back on its first page) sent away.

use serde_json::{json, Map, Value};

use crate::device::Device;

pub const WIDTH: i64 = 1260;
pub const HEIGHT: i64 = 2720;
const ROW: i64 = 160;

/// The widget rows' bounds: one row per widget, from the top, in source order.
pub fn row_bounds(i: usize) -> (i64, i64, i64, i64) {
    let top = 400 + i as i64 * ROW;
    (80, top, WIDTH - 80, top + ROW - 20)
}

/// The running record in the foreground: the last one started that was not sent away.
pub fn foreground(device: &Device) -> Option<&Value> {
    device.running().iter().rev().find(|r| r.get("background") != Some(&json!(true)))
}

/// Whether input reaches the screen: it is on and not locked (else uitest says `No Error` and
/// nothing happens: shared/HARMONY-VERIFY.md §3.1, measured by argent).
pub fn takes_input(device: &Device) -> bool {
    device.flag("screen_on") != &json!(false) && device.flag("screen_locked") != &json!(true)
}

/// What the foreground window shows: its page path ("" for the home screen) and its widgets,
/// rendered (`{"type", "text", "id", "hint"?, "focused", "clickable", "onClick"?}`).
pub struct Shown {
    pub bundle: Option<String>,
    pub page: String,
    pub widgets: Vec<Value>,
}

fn pages_of<'a>(device: &'a Device, bundle: &str) -> Option<&'a Value> {
    let app = device.installed().get(bundle)?;
    let module = app.get("module")?.as_str()?;
    app.get("modules")?.get(module)?.get("pages").filter(|p| p.is_object())
}

/// The app's UI state, made from its main page on first sight.
fn ui_of(device: &mut Device, bundle: &str) -> Option<Value> {
    if let Some(ui) = device.state.get("ui").and_then(|u| u.get(bundle)) {
        return Some(ui.clone());
    }
    let pages = pages_of(device, bundle)?.clone();
    let main = pages["main"].as_str()?.to_string();
    let vars: Map<String, Value> =
        pages["pages"].as_object()?.iter().map(|(name, p)| (name.clone(), p["state"].clone())).collect();
    let ui = json!({"stack": [main], "vars": vars, "fields": {}, "focus": null});
    save(device, bundle, ui.clone());
    Some(ui)
}

fn save(device: &mut Device, bundle: &str, ui: Value) {
    let all = device.state.entry("ui").or_insert_with(|| json!({}));
    all[bundle] = ui;
}

/// `${field}` in a template, from the page's fields.
fn render(template: &str, vars: &Value) -> String {
    let mut out = template.to_string();
    for (name, value) in vars.as_object().into_iter().flatten() {
        let shown = value.as_str().map(String::from).unwrap_or_else(|| value.to_string());
        out = out.replace(&format!("${{{name}}}"), &shown);
    }
    out
}

/// The foreground window and what it shows.
pub fn shown(device: &mut Device) -> Shown {
    let Some(bundle) = foreground(device).and_then(|r| r["bundle"].as_str()).map(String::from) else {
        let home =
            [json!({"type": "Text", "text": "Clock", "id": "clock"}), json!({"type": "Text", "text": "Settings"})];
        let widgets = device.flag("home_screen").as_array().cloned().unwrap_or(home.to_vec());
        return Shown { bundle: None, page: String::new(), widgets: widgets.iter().map(plain).collect() };
    };
    if let Some(list) = device.flag("screen").as_array() {
        let widgets = list.iter().map(plain).collect();
        return Shown { bundle: Some(bundle), page: "pages/Index".into(), widgets };
    }
    let Some(ui) = ui_of(device, &bundle) else {
        // An app built before pages were packed: the template's page.
        let widgets = vec![plain(&json!({"type": "Text", "text": "Hello World"}))];
        return Shown { bundle: Some(bundle), page: "pages/Index".into(), widgets };
    };
    let page = ui["stack"].as_array().and_then(|s| s.last()).and_then(Value::as_str).unwrap_or("").to_string();
    let pages = pages_of(device, &bundle).cloned().unwrap_or(Value::Null);
    let vars = &ui["vars"][&page];
    let widgets = pages["pages"][&page]["widgets"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(n, w)| {
            let mut shown = plain(w);
            let key = format!("{page}#{n}");
            if w["type"] == "TextInput" {
                let typed = ui["fields"].get(&key).and_then(Value::as_str).unwrap_or("");
                shown["text"] = json!(if w["password"] == json!(true) { masked(typed) } else { typed.to_string() });
                shown["focused"] = json!(ui["focus"] == json!(key));
            } else {
                shown["text"] = json!(render(w["text"].as_str().unwrap_or(""), vars));
            }
            shown
        })
        .collect();
    Shown { bundle: Some(bundle), page, widgets }
}

/// A password field's text as ArkUI reports it to accessibility, which uitest's tree shows:
/// `******` whatever it holds, nothing when empty (arkui_ace_engine
/// components_ng/pattern/text_field/text_field_accessibility_property.cpp `GetText`,
/// `DEFAULT_PASSWORD`, for `TextInputType::VISIBLE_PASSWORD`).
fn masked(typed: &str) -> String {
    if typed.is_empty() {
        String::new()
    } else {
        "******".to_string()
    }
}

/// A widget as listed, with the defaults: a Button, a TextInput and anything with an onClick
/// can be tapped.
fn plain(w: &Value) -> Value {
    let kind = w["type"].as_str().unwrap_or("Text");
    let clickable = matches!(kind, "Button" | "TextInput") || w.get("onClick").is_some();
    json!({
        "type": kind, "text": w["text"].as_str().unwrap_or(""), "id": w["id"].as_str().unwrap_or(""),
        "hint": w["hint"].as_str().unwrap_or(""), "focused": w["focused"] == json!(true),
        "clickable": clickable, "onClick": w.get("onClick").cloned().unwrap_or(json!([])),
    })
}

/// The row under (x, y), if any.
fn hit(x: i64, y: i64, count: usize) -> Option<usize> {
    (0..count).find(|&i| {
        let (l, t, r, b) = row_bounds(i);
        (l..r).contains(&x) && (t..b).contains(&y)
    })
}

/// A tap: a text field takes the focus; a widget's onClick runs (fields change, a page opens or
/// closes). Off every widget, nothing.
pub fn tap(device: &mut Device, x: i64, y: i64) {
    if !takes_input(device) || crate::system_dialog::tap(device, x, y) {
        return;
    }
    let shown = shown(device);
    let Some(bundle) = shown.bundle.clone() else { return };
    let Some(n) = hit(x, y, shown.widgets.len()) else { return };
    let Some(mut ui) = ui_of(device, &bundle) else { return };
    let widget = &shown.widgets[n];
    if widget["type"] == "TextInput" {
        ui["focus"] = json!(format!("{}#{n}", shown.page));
    } else {
        ui["focus"] = Value::Null;
    }
    let mut back = false;
    for effect in widget["onClick"].as_array().into_iter().flatten() {
        let vars = &mut ui["vars"][&shown.page];
        if let Some([field, by]) = effect.get("add").and_then(Value::as_array).map(Vec::as_slice) {
            let field = field.as_str().unwrap_or("");
            vars[field] = json!(vars[field].as_i64().unwrap_or(0) + by.as_i64().unwrap_or(0));
        } else if let Some([field, value]) = effect.get("set").and_then(Value::as_array).map(Vec::as_slice) {
            vars[field.as_str().unwrap_or("")] = value.clone();
        } else if let Some(page) = effect.get("push").and_then(Value::as_str) {
            ui["stack"].as_array_mut().expect("a stack").push(json!(page));
        } else if effect.get("back").is_some() {
            back = true;
        }
    }
    save(device, &bundle, ui);
    if back {
        key(device, BACK);
    }
}

/// Text typed at the focus: appended to the focused field; without one, nothing.
pub fn type_text(device: &mut Device, text: &str) {
    edit_focused(device, |field| field.push_str(text));
}

fn edit_focused(device: &mut Device, edit: impl FnOnce(&mut String)) {
    if !takes_input(device) || crate::system_dialog::key(device, None) {
        return;
    }
    let Some(bundle) = foreground(device).and_then(|r| r["bundle"].as_str()).map(String::from) else { return };
    let Some(mut ui) = ui_of(device, &bundle) else { return };
    let Some(focus) = ui["focus"].as_str().map(String::from) else { return };
    let mut text = ui["fields"][&focus].as_str().unwrap_or("").to_string();
    edit(&mut text);
    ui["fields"][&focus] = json!(text);
    save(device, &bundle, ui);
}

pub const HOME: i64 = 1;
pub const BACK: i64 = 2;
pub const POWER: i64 = 18;
const DEL: i64 = 2055;

/// A key (shared/HARMONY-VERIFY.md §3.1 key codes): Home sends the app away; Back closes the
/// top page, or sends the app away from its first; Power turns the screen off (or on); the
/// backspace deletes the focused field's last character. Other keys change nothing here.
pub fn key(device: &mut Device, code: i64) {
    if code == POWER {
        let on = device.flag("screen_on") != &json!(false);
        device.state.insert("screen_on".into(), json!(!on));
        return;
    }
    if !takes_input(device) || crate::system_dialog::key(device, Some(code)) {
        return;
    }
    match code {
        HOME => send_away(device),
        BACK => {
            let Some(bundle) = foreground(device).and_then(|r| r["bundle"].as_str()).map(String::from) else {
                return;
            };
            match ui_of(device, &bundle) {
                Some(mut ui) if ui["stack"].as_array().is_some_and(|s| s.len() > 1) => {
                    ui["stack"].as_array_mut().expect("a stack").pop();
                    ui["focus"] = Value::Null;
                    save(device, &bundle, ui);
                }
                _ => send_away(device),
            }
        }
        DEL => edit_focused(device, |field| {
            field.pop();
        }),
        _ => {}
    }
}

fn send_away(device: &mut Device) {
    let running = device.running_mut();
    if let Some(r) = running.iter_mut().rev().find(|r| r.get("background") != Some(&json!(true))) {
        r["background"] = json!(true);
    }
}
