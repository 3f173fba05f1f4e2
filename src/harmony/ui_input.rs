//! Touching a device's screen (`hdc shell uitest uiInput …`) is allowed without a question only
//! while the project's own app is in front of that device: what a tap does is then the project's
//! code, which the person let rein build and install. On another app, the home screen or system
//! UI a person decides; `Power` (by name or by its code) always asks.
//!
//! "In front" is what rein itself read from the device: the output of an `hdc … shell aa dump
//! -l` the kernel ran (ability records in state FOREGROUND, as `app_launch` reads them:
//! prelude/harmony/foreground.lua), no older than [`FRESH`]. Nothing a tool says counts: a tool
//! may lie, the device's own listing is what the kernel saw it print.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::grammar::hdc::device_words as shell_words_of;
use super::installed::device_key;
use super::ui_screens::{Screen, Window, FRESH};

/// `Power`'s key code (shared/HARMONY-VERIFY.md §3.1: hypium `KeyCode.POWER`, hmdriver2).
const POWER_CODE: &str = "18";

/// The bundles seen in front of a device, and when.
type Seen = (Vec<String>, Instant);

/// What rein last saw in front of each device: `<server>/<target>` → [`Seen`].
#[derive(Debug, Clone, Default)]
pub struct Foregrounds(Arc<Mutex<HashMap<String, Seen>>>);

/// A touch of the screen: `Some(true)` when it presses Power.
pub fn touch(args: &[String]) -> Option<bool> {
    let words = shell_words_of(args)?;
    if words.len() < 3 || words[0] != "uitest" || words[1] != "uiInput" {
        return None;
    }
    let power = words[2] == "keyEvent" && words[3..].iter().any(|w| w == "Power" || w == POWER_CODE);
    Some(power)
}

/// Whether the command line runs uitest at all (its calls on one device must not overlap).
pub fn runs_uitest(args: &[String]) -> bool {
    shell_words_of(args).is_some_and(|w| w.first().is_some_and(|p| p == "uitest"))
}

/// The bundles `aa dump -l` shows in state FOREGROUND (ability_record.cpp `DumpAbilityState`:
/// `bundle name [B]`, then `state #FOREGROUND  start time […]`).
pub fn foreground_bundles(output: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut bundle: Option<String> = None;
    for line in output.lines() {
        let line = line.trim();
        if line.starts_with("AbilityRecord ID #") {
            bundle = None;
        } else if let Some(rest) = line.strip_prefix("bundle name [") {
            bundle = rest.strip_suffix(']').map(String::from);
        } else if line.starts_with("state #FOREGROUND ") || line == "state #FOREGROUND" {
            found.extend(bundle.clone());
        }
    }
    found
}

/// Where an input lands: a point, the start of a swipe (which must not be at an edge), or the
/// window in front (a key, text typed at the focus, a fling from the display's middle).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aim {
    Point(i64, i64),
    SwipeFrom(i64, i64),
    Front,
}

/// Where the `uitest uiInput` line `args` lands (shared/HARMONY-VERIFY.md §3.1's arguments);
/// None for a shape rein does not place: another subcommand, a word that is no number, or a
/// `displayId` (the screen rein reads is the default display's).
pub fn aims(args: &[String]) -> Option<Vec<Aim>> {
    let words = shell_words_of(args)?;
    let input = words.get(2..)?;
    let n = |i: usize| input.get(i).and_then(|w| w.parse::<i64>().ok());
    let point = || Some(Aim::Point(n(1)?, n(2)?));
    match (input.first()?.as_str(), input.len()) {
        ("click" | "doubleClick" | "longClick", 3) | ("inputText", 4) => Some(vec![point()?]),
        ("swipe" | "drag", 5 | 6) | ("fling", 5..=7) => {
            let rest: Option<Vec<i64>> = (5..input.len()).map(n).collect();
            rest?;
            Some(vec![Aim::SwipeFrom(n(1)?, n(2)?), Aim::Point(n(3)?, n(4)?)])
        }
        ("keyEvent", 2) if ["Home", "Back"].contains(&input[1].as_str()) => Some(vec![Aim::Front]),
        ("keyEvent", 2..=4) => {
            let codes: Option<Vec<i64>> = (1..input.len()).map(n).collect();
            codes.map(|_| vec![Aim::Front])
        }
        ("text", 2) => Some(vec![Aim::Front]),
        ("dircFling", 2..=4) => (1..input.len()).map(n).collect::<Option<Vec<i64>>>().map(|_| vec![Aim::Front]),
        _ => None,
    }
}

/// Whether every place the input lands on `screen` is a window of an app `own` names: the
/// topmost window at each point; for a key or typed text the window in front and every window
/// holding the focus; a swipe from an edge never is.
pub fn lands_within(args: &[String], screen: &Screen, own: &dyn Fn(&str) -> bool) -> bool {
    let owned = |window: Option<&Window>| window.is_some_and(|w| own(&w.bundle));
    aims(args).is_some_and(|aims| {
        aims.iter().all(|aim| match *aim {
            Aim::Point(x, y) => owned(screen.window_at(x, y)),
            Aim::SwipeFrom(x, y) => !screen.at_edge(x, y) && owned(screen.window_at(x, y)),
            Aim::Front => owned(screen.window_in_front()) && screen.focused_windows().all(|w| own(&w.bundle)),
        })
    })
}

impl Foregrounds {
    /// Learns from a finished hdc run: an `aa dump -l` says what is in front of its device.
    pub fn observe(&self, args: &[String], stdout: &str) {
        let is_dump = shell_words_of(args).is_some_and(|w| w == ["aa", "dump", "-l"]);
        let Some(device) = device_key(args).filter(|_| is_dump) else { return };
        let seen = (foreground_bundles(stdout), Instant::now());
        self.0.lock().unwrap_or_else(|e| e.into_inner()).insert(device, seen);
    }

    /// What is in front of the command's device, as read within [`FRESH`]; `None` when rein has
    /// not read it lately.
    pub fn in_front(&self, args: &[String]) -> Option<Vec<String>> {
        let device = device_key(args)?;
        let all = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let (bundles, at) = all.get(&device)?;
        (at.elapsed() <= FRESH).then(|| bundles.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn power_by_name_or_code_is_power_and_other_input_is_not() {
        assert_eq!(touch(&args("-t K shell uitest uiInput keyEvent Power")), Some(true));
        assert_eq!(touch(&args("-t K shell uitest uiInput keyEvent 2072 18")), Some(true));
        assert_eq!(touch(&args("-t K shell uitest uiInput keyEvent Back")), Some(false));
        assert_eq!(touch(&args("-t K shell uitest uiInput click 10 10")), Some(false));
        assert_eq!(touch(&args("-t K shell uitest dumpLayout -p /data/local/tmp/rein-ui-1.json")), None);
        assert_eq!(touch(&args("-t K shell aa dump -l")), None);
    }

    #[test]
    fn input_lands_at_its_points_or_on_the_window_in_front_and_unknown_shapes_land_nowhere() {
        let aims_of = |line: &str| aims(&args(&format!("-t K shell uitest uiInput {line}")));
        assert_eq!(aims_of("click 630 790"), Some(vec![Aim::Point(630, 790)]));
        assert_eq!(aims_of("swipe 1 2 3 4 600"), Some(vec![Aim::SwipeFrom(1, 2), Aim::Point(3, 4)]));
        assert_eq!(aims_of("keyEvent Back"), Some(vec![Aim::Front]));
        assert_eq!(aims_of("keyEvent 2072 2038"), Some(vec![Aim::Front]));
        assert_eq!(aims_of("text hello"), Some(vec![Aim::Front]));
        for unplaced in ["click 630 790 1", "click 630 x", "keyEvent Back 1", "swipe 1 2 3 4 600 1", "text a 1", "help"]
        {
            assert_eq!(aims_of(unplaced), None, "{unplaced}");
        }
        let tree = r#"{"attributes":{"bounds":"[0,0][1000,2000]"},"children":[
            {"attributes":{"bundleName":"com.ohos.systemui","bounds":"[0,1500][1000,2000]"},"children":[]},
            {"attributes":{"bundleName":"com.a","bounds":"[0,0][1000,2000]"},"children":[]}]}"#;
        let screen = Screen::parse(tree.as_bytes()).unwrap();
        let own = |b: &str| b == "com.a";
        let lands = |line: &str| lands_within(&args(&format!("-t K shell uitest uiInput {line}")), &screen, &own);
        assert!(lands("click 500 500") && lands("keyEvent Back") && lands("swipe 500 1000 500 400 600"));
        assert!(!lands("click 500 1600"), "under the panel");
        assert!(!lands("swipe 500 1000 500 1600 600"), "ends on the panel");
        assert!(!lands("swipe 500 20 500 1000 600"), "from the top edge");
        assert!(!lands("click 500 500 1"), "a display id");
    }

    /// Keys and typed text go where the focus is, not to the window at the display's centre: a
    /// foreign window below the centre whose text field has the focus (a floating window, a
    /// system sheet) takes them while the project's app fills the centre.
    #[test]
    fn keys_and_text_land_nowhere_when_a_foreign_window_holds_the_focus() {
        let tree = |focused_in_panel: bool| {
            format!(
                r#"{{"attributes":{{"bounds":"[0,0][1000,2000]"}},"children":[
                {{"attributes":{{"bundleName":"com.other","bounds":"[0,1500][1000,2000]"}},"children":[
                    {{"attributes":{{"type":"TextInput","text":"","bounds":"[0,1600][1000,1700]","focused":"{focused_in_panel}"}},"children":[]}}]}},
                {{"attributes":{{"bundleName":"com.a","bounds":"[0,0][1000,2000]"}},"children":[
                    {{"attributes":{{"type":"TextInput","text":"","bounds":"[0,100][1000,200]","focused":"{}"}},"children":[]}}]}}]}}"#,
                !focused_in_panel
            )
        };
        let own = |b: &str| b == "com.a";
        for (focused_in_panel, expected) in [(true, false), (false, true)] {
            let screen = Screen::parse(tree(focused_in_panel).as_bytes()).unwrap();
            let lands = |line: &str| lands_within(&args(&format!("-t K shell uitest uiInput {line}")), &screen, &own);
            for line in ["text secret", "keyEvent 2054", "keyEvent Back"] {
                assert_eq!(lands(line), expected, "{line}, the panel focused: {focused_in_panel}");
            }
            assert!(lands("click 500 500"), "a tap lands where it is aimed");
        }
    }

    #[test]
    fn a_dump_of_the_devices_missions_says_what_is_in_front_of_that_device_only() {
        let dump = "    Mission ID #1  mission name #[#com.a:entry:EntryAbility]\n      AbilityRecord ID #1\n        bundle name [com.a]\n        state #BACKGROUND  start time [1]\n    Mission ID #2\n      AbilityRecord ID #2\n        bundle name [com.b]\n        state #FOREGROUND  start time [2]\n";
        let seen = Foregrounds::default();
        seen.observe(&args("-t K shell aa dump -l"), dump);
        assert_eq!(seen.in_front(&args("-t K shell uitest uiInput click 1 1")), Some(vec!["com.b".to_string()]));
        assert_eq!(seen.in_front(&args("-t OTHER shell uitest uiInput click 1 1")), None);
        seen.observe(&args("-t K shell aa dump -a"), "bundle name [com.c]\nstate #FOREGROUND \n");
        assert_eq!(seen.in_front(&args("-t K shell uitest uiInput click 1 1")), Some(vec!["com.b".to_string()]));
    }
}
