//! The screen as rein itself last read it on each device: the `uitest dumpLayout` tree the kernel
//! received, never a tool's account of it. `aa dump -l` names the project's app in front even
//! while a system dialog, the notification shade or the control centre covers it; the tree
//! lists every window, topmost first (testfwk_arkxtest @4eea31c core/ui_driver.cpp
//! `DumpUiHierarchy` → `DumpWindowsInfo`, the windows sorted by `windowLayer_` descending:
//! `WindowCacheCompareGreater`), each with its `bundleName` and `bounds`. So screen input is
//! judged where it lands: the topmost window at the point must be the project's (`ui_input`).
//!
//! A tree counts only when the kernel saw both halves on one device: `uitest dumpLayout -p P`
//! (exactly that: `-b`, `-w` or `-d` would leave windows out) printing `DumpLayout saved to:P`,
//! then `file recv P <transit>/<name>` of that file, with no other command naming `P` seen in
//! between (a `file send` or a second dump over it). The transit folder is rein's
//! (`harmony::received`). The tree read stands for [`FRESH`].

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::grammar::hdc::{command_of, device_words};
use super::installed::device_key;
use super::received::recv_into_transit;
use crate::kernel::files::read::{open_unwaited, read_all, Links};
use crate::kernel::scope::protected::RECEIVED_DIR;

/// How long a read of the device (its screen, what is in front) stands for the input after it:
/// a read, then the action.
pub const FRESH: Duration = Duration::from_secs(10);

/// How many of those command lines are kept (a call reads the screen a few times).
const TOUCHED_KEPT: usize = 256;
/// The largest tree rein reads (a busy screen's tree is a few hundred KB).
const TREE_LIMIT: u64 = 16 * 1024 * 1024;

/// A swipe that starts this close to a display edge (in percent of the display's width or
/// height) opens system UI: the notification shade and control centre from the top, the home
/// and recent-apps gestures from the bottom, Back from the sides. rein's own margin, not a
/// documented HarmonyOS size (GUESS: wider than the status bar and the side gesture areas).
const EDGE_PERCENT: i64 = 5;

/// `[left, top, right, bottom]`.
pub type Bounds = [i64; 4];

/// A widget of a window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Widget {
    pub kind: String,
    pub text: String,
    pub id: String,
    pub bounds: Bounds,
    /// It has the input focus (uitest's `focused` attribute): keys and typed text go to it.
    pub focused: bool,
}

/// A window, as the tree lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    pub bundle: String,
    pub bounds: Bounds,
    /// In document order (a child after its parent).
    pub widgets: Vec<Widget>,
}

/// A screen: the display (the root's merged bounds) and its windows, topmost first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Screen {
    pub display: Bounds,
    pub windows: Vec<Window>,
}

fn bounds_of(attributes: &Value) -> Option<Bounds> {
    let text = attributes["bounds"].as_str()?;
    let numbers: Vec<i64> = text
        .split(|c: char| !(c.is_ascii_digit() || c == '-'))
        .filter(|s| !s.is_empty())
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    let [l, t, r, b] = numbers[..] else { return None };
    Some([l, t, r, b])
}

fn inside(bounds: &Bounds, x: i64, y: i64) -> bool {
    x >= bounds[0] && x < bounds[2] && y >= bounds[1] && y < bounds[3]
}

fn text_of(attributes: &Value, name: &str) -> String {
    attributes[name].as_str().unwrap_or("").to_string()
}

fn collect(node: &Value, widgets: &mut Vec<Widget>) {
    let attributes = &node["attributes"];
    if attributes["visible"].as_str() != Some("false") {
        if let Some(bounds) = bounds_of(attributes) {
            let id = Some(text_of(attributes, "id")).filter(|i| !i.is_empty()).unwrap_or(text_of(attributes, "key"));
            let focused = attributes["focused"].as_str() == Some("true");
            widgets.push(Widget {
                kind: text_of(attributes, "type"),
                text: text_of(attributes, "text"),
                id,
                bounds,
                focused,
            });
        }
    }
    for child in node["children"].as_array().into_iter().flatten() {
        collect(child, widgets);
    }
}

impl Screen {
    /// The tree uitest wrote (core/dump_handler.cpp `DFSMarshalWidget`: `{"attributes": {…},
    /// "children": […]}`, the root's children the windows); None for anything else.
    pub fn parse(json: &[u8]) -> Option<Screen> {
        let tree: Value = serde_json::from_slice(json).ok()?;
        let display = bounds_of(&tree["attributes"])?;
        let mut windows = Vec::new();
        for child in tree["children"].as_array()? {
            let attributes = &child["attributes"];
            let mut widgets = Vec::new();
            for inner in child["children"].as_array().into_iter().flatten() {
                collect(inner, &mut widgets);
            }
            windows.push(Window { bundle: text_of(attributes, "bundleName"), bounds: bounds_of(attributes)?, widgets });
        }
        Some(Screen { display, windows })
    }

    /// The topmost window at (x, y).
    pub fn window_at(&self, x: i64, y: i64) -> Option<&Window> {
        self.windows.iter().find(|w| inside(&w.bounds, x, y))
    }

    /// The window a key or typed text reaches: the topmost one at the display's center (a
    /// dialog, the shade or the control centre covers it).
    pub fn window_in_front(&self) -> Option<&Window> {
        let [l, t, r, b] = self.display;
        self.window_at((l + r) / 2, (t + b) / 2)
    }

    /// The windows holding a focused widget: where keys and typed text go, wherever the
    /// window lies (a floating window or a sheet below the display's centre).
    pub fn focused_windows(&self) -> impl Iterator<Item = &Window> {
        self.windows.iter().filter(|w| w.widgets.iter().any(|widget| widget.focused))
    }

    /// The widget at (x, y) in the topmost window there: the innermost that says something (a
    /// text or an id), else the innermost.
    pub fn widget_at(&self, x: i64, y: i64) -> Option<&Widget> {
        let window = self.window_at(x, y)?;
        let under: Vec<&Widget> = window.widgets.iter().filter(|w| inside(&w.bounds, x, y)).collect();
        under.iter().rev().find(|w| !w.text.is_empty() || !w.id.is_empty()).or(under.last()).copied()
    }

    /// Whether (x, y) lies at an edge of the display, where a swipe opens system UI.
    pub fn at_edge(&self, x: i64, y: i64) -> bool {
        let [l, t, r, b] = self.display;
        let (dx, dy) = ((r - l) * EDGE_PERCENT / 100, (b - t) * EDGE_PERCENT / 100);
        x < l + dx || x >= r - dx || y < t + dy || y >= b - dy
    }
}

/// What rein read of each device's screen.
#[derive(Debug, Clone, Default)]
pub struct Screens {
    /// The workspace (the transit folder is at its root); None: nothing is ever read.
    workspace: Option<PathBuf>,
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    /// Device file → device of a dump that printed it was saved there, not yet received.
    dumped: HashMap<String, String>,
    /// Recent command lines of other commands that named a file rein receives under
    /// (`rein-…`): a dumped file one of them names is never read as a tree.
    touched: VecDeque<String>,
    /// Device → the screen last read and when.
    read: HashMap<String, (Screen, Instant)>,
}

impl State {
    fn was_touched(&self, path: &str) -> bool {
        self.touched.iter().any(|line| line.contains(path))
    }
}

/// `uitest dumpLayout -p P`'s `P`, for exactly that command line.
fn dump_path(args: &[String]) -> Option<String> {
    match device_words(args)?.as_slice() {
        [uitest, dump, p, path] if uitest == "uitest" && dump == "dumpLayout" && p == "-p" => Some(path.clone()),
        _ => None,
    }
}

impl Screens {
    pub fn new(workspace: &Path) -> Screens {
        Screens { workspace: Some(workspace.to_path_buf()), state: Default::default() }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Before an hdc command runs: one that names a dumped file other than the dump and its
    /// receipt makes that file untrusted.
    pub fn before(&self, args: &[String]) {
        if dump_path(args).is_some() || recv_into_transit(args).is_some() {
            return;
        }
        let line = args.join(" ");
        if !line.contains("rein-") {
            return;
        }
        let mut state = self.lock();
        if state.touched.len() == TOUCHED_KEPT {
            state.touched.pop_front();
        }
        state.touched.push_back(line);
    }

    /// Learns from a finished hdc run: a dump, then its receipt.
    pub fn observe(&self, args: &[String], stdout: &str) {
        let Some(device) = device_key(args) else { return };
        if let Some(path) = dump_path(args) {
            let saved = stdout.lines().any(|l| l.trim_end() == format!("DumpLayout saved to:{path}"));
            let mut state = self.lock();
            if saved && !state.was_touched(&path) {
                state.dumped.insert(path, device);
            } else {
                state.dumped.remove(&path);
            }
            return;
        }
        let (Some((remote, name)), Some(workspace)) = (recv_into_transit(args), self.workspace.as_ref()) else {
            return;
        };
        if command_of(args).map(|(c, _)| c) != Some("file recv") {
            return;
        }
        let mut state = self.lock();
        let from_dump = state.dumped.remove(remote).is_some_and(|d| d == device);
        if !from_dump || state.was_touched(remote) {
            return;
        }
        let Some(screen) = read_tree(&workspace.join(RECEIVED_DIR).join(name)) else { return };
        state.read.insert(device, (screen, Instant::now()));
    }

    /// Takes `screen` as just read on the device of `args` (tests of what reads it).
    #[cfg(test)]
    pub fn seen(&self, args: &[String], screen: Screen) {
        self.lock().read.insert(device_key(args).expect("a device command"), (screen, Instant::now()));
    }

    /// The screen of the command's device, as read within [`FRESH`].
    pub fn fresh(&self, args: &[String]) -> Option<Screen> {
        let device = device_key(args)?;
        let state = self.lock();
        let (screen, at) = state.read.get(&device)?;
        (at.elapsed() <= FRESH).then(|| screen.clone())
    }
}

/// The received tree (a regular file with one name, links not followed: as `received` takes it).
fn read_tree(path: &Path) -> Option<Screen> {
    let file = open_unwaited(path, Links::Refuse).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > TREE_LIMIT {
        return None;
    }
    Screen::parse(&read_all(file, meta.len(), TREE_LIMIT).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    fn window(bundle: &str, bounds: &str, widgets: &str) -> String {
        format!(r#"{{"attributes":{{"bundleName":"{bundle}","bounds":"{bounds}"}},"children":[{widgets}]}}"#)
    }

    fn tree() -> String {
        let dialog = window(
            "com.ohos.systemui",
            "[0,0][1260,2720]",
            r#"{"attributes":{"type":"Button","text":"Allow","id":"","bounds":"[120,1200][1140,1340]"},"children":[]}"#,
        );
        let app = window(
            "com.example.hello",
            "[0,0][1260,2720]",
            r#"{"attributes":{"type":"Column","text":"","bounds":"[0,0][1260,2720]"},"children":[{"attributes":{"type":"Button","text":"Tap me","id":"tap","bounds":"[80,720][1180,860]"},"children":[]}]}"#,
        );
        format!(r#"{{"attributes":{{"bounds":"[0,0][1260,2720]"}},"children":[{dialog},{app}]}}"#)
    }

    #[test]
    fn the_topmost_window_at_the_point_owns_it_and_edges_are_edges() {
        let screen = Screen::parse(tree().as_bytes()).unwrap();
        assert_eq!(screen.window_at(630, 790).unwrap().bundle, "com.ohos.systemui", "the dialog covers the app");
        assert_eq!(screen.widget_at(630, 1270).unwrap().text, "Allow");
        let app_only = Screen { windows: screen.windows[1..].to_vec(), ..screen.clone() };
        assert_eq!(app_only.widget_at(630, 790).unwrap().id, "tap", "the innermost widget that says something");
        assert_eq!(app_only.window_in_front().unwrap().bundle, "com.example.hello");
        assert!(screen.at_edge(630, 10) && screen.at_edge(5, 1000) && screen.at_edge(630, 2700));
        assert!(!screen.at_edge(630, 1360));
    }

    #[test]
    fn only_a_dump_the_kernel_ran_and_received_untouched_is_the_screen() {
        let ws = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(ws.path().join(RECEIVED_DIR)).unwrap();
        let name = "rein-ui-0123456789abcdef0123456789abcdef.json";
        std::fs::write(ws.path().join(RECEIVED_DIR).join(name), tree()).unwrap();
        let remote = format!("/data/local/tmp/{name}");
        let dump = args(&format!("-t K shell uitest dumpLayout -p {remote}"));
        let recv = args(&format!("-t K file recv {remote} {RECEIVED_DIR}/{name}"));
        let tap = args("-t K shell uitest uiInput click 1 1");
        let saved = format!("DumpLayout saved to:{remote}\n");

        let screens = Screens::new(ws.path());
        screens.observe(&recv, "FileTransfer finish");
        assert_eq!(screens.fresh(&tap), None, "a file rein did not see dumped");
        screens.observe(&dump, &saved);
        screens.observe(&recv, "FileTransfer finish");
        assert_eq!(screens.fresh(&tap).unwrap().windows.len(), 2);
        assert_eq!(screens.fresh(&args("-t OTHER shell uitest uiInput click 1 1")), None, "another device");

        let screens = Screens::new(ws.path());
        screens.observe(&dump, &saved);
        let over = args(&format!("-t K file send forged.json {remote}"));
        screens.before(&over);
        screens.observe(&recv, "FileTransfer finish");
        assert_eq!(screens.fresh(&tap), None, "a file sent over the dump is not the screen");

        let screens = Screens::new(ws.path());
        let partial = args(&format!("-t K shell uitest dumpLayout -p {remote} -b com.example.hello"));
        screens.observe(&partial, &saved);
        screens.observe(&recv, "FileTransfer finish");
        assert_eq!(screens.fresh(&tap), None, "a dump of one bundle's windows leaves the dialog out");
    }
}
