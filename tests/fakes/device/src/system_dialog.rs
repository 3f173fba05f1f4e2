//! A window of system UI over the app, as a test sets it: a permission or USB-debugging dialog,
//! the notification shade or the control centre (`"system_dialog": {"bundle": B, "texts": […],
//! "buttons": […], "bounds": [l, t, r, b]?}`; full-screen when no bounds are given, as a modal
//! dialog's dimmed backdrop is). `aa dump -l` does not change: the app's ability stays
//! FOREGROUND (ability_record.cpp states; a window over it is no ability of its own). uitest's
//! tree lists it first: windows go topmost first (testfwk_arkxtest @4eea31c core/ui_driver.cpp
//! `DumpWindowsInfo` over windows sorted by `windowLayer_` descending). Its rows' geometry is the
//! fake's own (GUESS).
//!
//! It takes what reaches it: a tap on a button answers it (`"system_dialog_answer"`: the button's
//! text) and closes it; a tap elsewhere in it does nothing; keys and typed text go to a
//! full-screen one, not to the app (Back closes it unanswered; Enter presses its last button:
//! GUESS).

use serde_json::{json, Value};

use crate::device::Device;
use crate::screen::{HEIGHT, WIDTH};

const ENTER: i64 = 2054;
const BACK: i64 = 2;
const ROW: i64 = 160;

/// The dialog on screen: its bundle, bounds and rows (`{"type", "text"}`, with their bounds).
pub struct Dialog {
    pub bundle: String,
    pub bounds: (i64, i64, i64, i64),
    pub rows: Vec<(Value, (i64, i64, i64, i64))>,
}

pub fn shown(device: &Device) -> Option<Dialog> {
    let d = device.state.get("system_dialog").filter(|d| d.is_object())?;
    let bundle = d["bundle"].as_str().unwrap_or("com.ohos.systemui").to_string();
    let bounds = match d["bounds"].as_array().map(|b| b.iter().filter_map(Value::as_i64).collect::<Vec<_>>()) {
        Some(b) if b.len() == 4 => (b[0], b[1], b[2], b[3]),
        _ => (0, 0, WIDTH, HEIGHT),
    };
    let full = bounds == (0, 0, WIDTH, HEIGHT);
    let first_top = if full { 1040 } else { bounds.1 + 20 };
    let texts = d["texts"].as_array().into_iter().flatten().map(|t| json!({"type": "Text", "text": t}));
    let buttons =
        d["buttons"].as_array().into_iter().flatten().map(|t| json!({"type": "Button", "text": t, "clickable": true}));
    let rows = texts
        .chain(buttons)
        .enumerate()
        .map(|(i, w)| {
            let top = first_top + i as i64 * ROW;
            (w, (bounds.0 + 40, top, bounds.2 - 40, top + ROW - 20))
        })
        .collect();
    Some(Dialog { bundle, bounds, rows })
}

fn answer(device: &mut Device, with: &str) {
    device.state.remove("system_dialog");
    device.state.insert("system_dialog_answer".into(), json!(with));
}

/// A tap: true when the dialog took it (it lies inside the dialog's window).
pub fn tap(device: &mut Device, x: i64, y: i64) -> bool {
    let Some(dialog) = shown(device) else { return false };
    let (l, t, r, b) = dialog.bounds;
    if !((l..r).contains(&x) && (t..b).contains(&y)) {
        return false;
    }
    let hit = dialog
        .rows
        .iter()
        .find(|(w, (l, t, r, b))| w["type"] == "Button" && (*l..*r).contains(&x) && (*t..*b).contains(&y));
    if let Some((w, _)) = hit {
        answer(device, w["text"].as_str().unwrap_or(""));
    }
    true
}

/// A key or typed text (`None`): true when the dialog took it (a full-screen one has the focus;
/// a smaller panel leaves it with the app).
pub fn key(device: &mut Device, code: Option<i64>) -> bool {
    let Some(dialog) = shown(device).filter(|d| d.bounds == (0, 0, WIDTH, HEIGHT)) else { return false };
    match code {
        Some(BACK) => {
            device.state.remove("system_dialog");
        }
        Some(ENTER) => {
            let last = dialog.rows.iter().rev().find(|(w, _)| w["type"] == "Button");
            if let Some(text) = last.and_then(|(w, _)| w["text"].as_str()).map(String::from) {
                answer(device, &text);
            }
        }
        _ => {}
    }
    true
}
