//! The question a person sees when screen input asks (`ui_input`): what the input does, in
//! words read from the command line itself (`a tap at (630, 790)`, `the key Back`), and what is
//! in front of the device as rein itself last read it (`aa dump -l`, [`Foregrounds`]). Both come
//! from what the kernel sees — the words that will be sent and the device's own listing — never
//! from what a tool says, so an agent cannot make the question describe other input or another
//! app than the one the input reaches. Typed text is not repeated here: the command shown with
//! the question carries it, scrubbed when it is a secret.
//!
//! What the input lands on comes from the screen rein itself read (`ui_screens`: the tree the
//! kernel received), matched against the point in the command: the widget there (its type,
//! text and id) and whose window it is, or the window in front for a key.

use super::grammar::hdc::device_words;
use super::ui_input::{aims, Aim, Foregrounds};
use super::ui_screens::{Screen, Screens, Widget};

/// The longest widget text the question shows.
const TEXT_SHOWN: usize = 40;

/// Why screen input asks, for the command `args` (an `hdc … shell uitest uiInput …` line).
pub fn why_touch(args: &[String], foregrounds: &Foregrounds, screens: &Screens) -> String {
    let words = device_words(args).unwrap_or_default();
    let input = words.get(2..).map(action).unwrap_or_else(|| "input".to_string());
    let front = match foregrounds.in_front(args) {
        Some(bundles) if bundles.is_empty() => {
            "on the home screen or system UI (rein just read that no app is in front)".to_string()
        }
        Some(bundles) => format!("on {}, which rein just read is in front", bundles.join(", ")),
        None => "and rein has not just read what is in front of the device".to_string(),
    };
    let lands = match screens.fresh(args) {
        Some(screen) => lands_on(args, &screen),
        None => "rein has not just read the screen, so where it lands is not known".to_string(),
    };
    format!("it touches the device's screen: {input}, {front}; {lands}")
}

/// A widget in words: `Button "Tap me" #tap`.
fn widget(w: &Widget) -> String {
    let mut out = if w.kind.is_empty() { "a widget".to_string() } else { w.kind.clone() };
    if !w.text.is_empty() {
        // The app's own words: quoted, escaped, cut.
        let text: String = w.text.chars().take(TEXT_SHOWN).collect();
        let cut = if text.len() < w.text.len() { "…" } else { "" };
        out.push_str(&format!(" \"{}{cut}\"", text.escape_debug()));
    }
    if !w.id.is_empty() {
        let id: String = w.id.chars().take(TEXT_SHOWN).collect();
        out.push_str(&format!(" #{}", id.escape_debug()));
    }
    out
}

/// What the input lands on, on the screen rein read.
fn lands_on(args: &[String], screen: &Screen) -> String {
    let window = |w: Option<&super::ui_screens::Window>| match w {
        Some(w) if !w.bundle.is_empty() => format!("{}'s window", w.bundle),
        Some(_) => "a window of no app".to_string(),
        None => "no window".to_string(),
    };
    let Some(aims) = aims(args) else {
        return "rein does not place this input on the screen it read".to_string();
    };
    let mut said = Vec::new();
    for aim in aims {
        said.push(match aim {
            Aim::Point(x, y) | Aim::SwipeFrom(x, y) => {
                let edge = if matches!(aim, Aim::SwipeFrom(..)) && screen.at_edge(x, y) {
                    " (the screen's edge, where a swipe opens system UI)"
                } else {
                    ""
                };
                let on = screen.widget_at(x, y).map(|w| format!("{} in ", widget(w))).unwrap_or_default();
                format!("at ({x}, {y}){edge} rein read {on}{}", window(screen.window_at(x, y)))
            }
            Aim::Front => {
                let front = screen.window_in_front();
                // Keys and typed text go to the focus: a window holding it elsewhere is named.
                let elsewhere: Vec<String> = screen
                    .focused_windows()
                    .filter(|w| front.is_none_or(|f| f.bundle != w.bundle))
                    .map(|w| window(Some(w)))
                    .collect();
                let focus = if elsewhere.is_empty() {
                    String::new()
                } else {
                    format!(", and the focus is in {}", elsewhere.join(", "))
                };
                format!("the window in front is {}{focus}", window(front))
            }
        });
    }
    said.join("; ")
}

/// `uitest uiInput`'s subcommand and arguments (shared/HARMONY-VERIFY.md §3.1) in words.
fn action(words: &[String]) -> String {
    let w = |i: usize| words.get(i).map(String::as_str).unwrap_or("?");
    match w(0) {
        "click" => format!("a tap at ({}, {})", w(1), w(2)),
        "doubleClick" => format!("a double tap at ({}, {})", w(1), w(2)),
        "longClick" => format!("a long press at ({}, {})", w(1), w(2)),
        "swipe" | "fling" | "drag" => format!("a {} from ({}, {}) to ({}, {})", w(0), w(1), w(2), w(3), w(4)),
        "dircFling" => format!("a fling in direction {}", w(1)),
        "text" => "typing text (as the command shows it)".to_string(),
        "inputText" => format!("typing text at ({}, {}) (as the command shows it)", w(1), w(2)),
        "keyEvent" => {
            let keys: Vec<String> = words[1..].iter().map(|k| key_name(k)).collect();
            format!("the key {}", keys.join(" + "))
        }
        other => format!("uiInput {other}"),
    }
}

/// A key as uitest takes it: `Home`, `Back`, `Power`, or a code (hypium `KeyCode`).
fn key_name(word: &str) -> String {
    let name = match word {
        "18" => "Power (code 18)",
        "2054" => "Enter (code 2054)",
        "2055" => "Backspace (code 2055)",
        _ => return word.to_string(),
    };
    name.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_question_says_the_input_and_what_rein_read_in_front_not_what_a_tool_claims() {
        let (seen, screens) = (Foregrounds::default(), Screens::default());
        let tap = args("-t K shell uitest uiInput click 630 790");
        assert_eq!(
            why_touch(&tap, &seen, &screens),
            "it touches the device's screen: a tap at (630, 790), and rein has not just read what is in front of the device; rein has not just read the screen, so where it lands is not known"
        );
        seen.observe(
            &args("-t K shell aa dump -l"),
            "AbilityRecord ID #1\nbundle name [com.bank]\nstate #FOREGROUND \n",
        );
        assert!(why_touch(&tap, &seen, &screens).starts_with(
            "it touches the device's screen: a tap at (630, 790), on com.bank, which rein just read is in front;"
        ),);
        let power = why_touch(&args("-t K shell uitest uiInput keyEvent 18"), &seen, &screens);
        assert!(power.contains("the key Power (code 18)"), "{power}");
        let typed = why_touch(&args("-t K shell uitest uiInput text hunter2"), &seen, &screens);
        assert!(!typed.contains("hunter2"), "the text is the command's to show, scrubbed there: {typed}");
    }

    #[test]
    fn the_question_names_the_widget_and_the_window_rein_read_at_the_point() {
        let (seen, screens) = (Foregrounds::default(), Screens::default());
        let tree = r#"{"attributes":{"bounds":"[0,0][1260,2720]"},"children":[
            {"attributes":{"bundleName":"com.ohos.systemui","bounds":"[0,1000][1260,1700]"},"children":[
              {"attributes":{"type":"Button","text":"Allow\n","id":"ok","bounds":"[120,1200][1140,1340]"},"children":[]}]},
            {"attributes":{"bundleName":"com.example.hello","bounds":"[0,0][1260,2720]"},"children":[
              {"attributes":{"type":"Button","text":"Tap me","id":"tap","bounds":"[80,720][1180,860]"},"children":[]}]}]}"#;
        screens.seen(&args("-t K shell aa dump -l"), Screen::parse(tree.as_bytes()).unwrap());
        let on = |line: &str| why_touch(&args(line), &seen, &screens);
        assert!(
            on("-t K shell uitest uiInput click 630 790")
                .ends_with("; at (630, 790) rein read Button \"Tap me\" #tap in com.example.hello's window"),
            "{}",
            on("-t K shell uitest uiInput click 630 790")
        );
        assert!(on("-t K shell uitest uiInput click 630 1270")
            .ends_with("rein read Button \"Allow\\n\" #ok in com.ohos.systemui's window"));
        assert!(on("-t K shell uitest uiInput keyEvent Back")
            .ends_with("; the window in front is com.ohos.systemui's window"));
        let edge = on("-t K shell uitest uiInput swipe 630 5 630 790 600");
        assert!(edge.contains("at (630, 5) (the screen's edge, where a swipe opens system UI)"), "{edge}");
        // A key goes to the focus: a window below the centre holding it is named, not only the
        // app at the centre (which alone would make the question look like the app's own).
        let sheet = r#"{"attributes":{"bounds":"[0,0][1260,2720]"},"children":[
            {"attributes":{"bundleName":"com.other","bounds":"[0,2000][1260,2720]"},"children":[
              {"attributes":{"type":"TextInput","text":"","id":"pw","focused":"true","bounds":"[80,2100][1180,2200]"},"children":[]}]},
            {"attributes":{"bundleName":"com.example.hello","bounds":"[0,0][1260,2720]"},"children":[]}]}"#;
        screens.seen(&args("-t K shell aa dump -l"), Screen::parse(sheet.as_bytes()).unwrap());
        let key = on("-t K shell uitest uiInput keyEvent 2054");
        assert!(
            key.ends_with(
                "; the window in front is com.example.hello's window, and the focus is in com.other's window"
            ),
            "{key}"
        );
    }
}
