//! The question a person sees when screen input asks (`ui_input`): what the input does, in
//! words read from the command line itself (`a tap at (630, 790)`, `the key Back`), and what is
//! in front of the device as rein itself last read it (`aa dump -l`, [`Foregrounds`]). Both come
//! from what the kernel sees — the words that will be sent and the device's own listing — never
//! from what a tool says, so an agent cannot make the question describe other input or another
//! app than the one the input reaches. Typed text is not repeated here: the command shown with
//! the question carries it, scrubbed when it is a secret.

use super::grammar::hdc::device_words;
use super::ui_input::Foregrounds;

/// Why screen input asks, for the command `args` (an `hdc … shell uitest uiInput …` line).
pub fn why_touch(args: &[String], foregrounds: &Foregrounds) -> String {
    let words = device_words(args).unwrap_or_default();
    let input = words.get(2..).map(action).unwrap_or_else(|| "input".to_string());
    let front = match foregrounds.in_front(args) {
        Some(bundles) if bundles.is_empty() => {
            "on the home screen or system UI (rein just read that no app is in front)".to_string()
        }
        Some(bundles) => format!("on {}, which rein just read is in front", bundles.join(", ")),
        None => "and rein has not just read what is in front of the device".to_string(),
    };
    format!("it touches the device's screen: {input}, {front}")
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
        let seen = Foregrounds::default();
        let tap = args("-t K shell uitest uiInput click 630 790");
        assert_eq!(
            why_touch(&tap, &seen),
            "it touches the device's screen: a tap at (630, 790), and rein has not just read what is in front of the device"
        );
        seen.observe(
            &args("-t K shell aa dump -l"),
            "AbilityRecord ID #1\nbundle name [com.bank]\nstate #FOREGROUND \n",
        );
        assert_eq!(
            why_touch(&tap, &seen),
            "it touches the device's screen: a tap at (630, 790), on com.bank, which rein just read is in front"
        );
        let power = why_touch(&args("-t K shell uitest uiInput keyEvent 18"), &seen);
        assert!(power.contains("the key Power (code 18)"), "{power}");
        let typed = why_touch(&args("-t K shell uitest uiInput text hunter2"), &seen);
        assert!(!typed.contains("hunter2"), "the text is the command's to show, scrubbed there: {typed}");
    }
}
