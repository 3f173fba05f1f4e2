//! Text as a person sees it. Whatever a script, a file or a program controls may hold
//! characters a screen acts on instead of showing — an escape sequence that clears the
//! terminal or moves the cursor back over a line, a carriage return that paints over one — or
//! that reorder or hide text (bidi overrides and isolates, zero-width characters). Every text
//! rein puts before a person (its prompts, the policy review, pack confirmations, MCP
//! elicitation messages, rule listings, the CLI's output) goes through [`line()`] or [`lines`]
//! first, so what the person reads is what is there.
//!
//! Shown escaped, as `\u{…}` (a tab, carriage return and line feed as `\t`, `\r`, `\n`):
//! - every control character: C0, DEL and C1 (general category Cc);
//! - the whole format category (Cf): bidi embeddings, overrides and isolates (U+202A–202E,
//!   U+2066–2069), the marks (U+200E, U+200F, U+061C), zero-width space and joiners
//!   (U+200B–200D), word joiner and invisible operators (U+2060–2064), U+FEFF, the soft hyphen,
//!   interlinear annotation, tags, the Arabic, Syriac and Egyptian format controls;
//! - line and paragraph separators (Zl, Zp), which some screens break lines at, and every
//!   space but U+0020 (Zs), which looks like a word boundary that is not one;
//! - what Unicode says to render as nothing although it is not in Cf
//!   (Default_Ignorable_Code_Point, DerivedCoreProperties.txt): the combining grapheme joiner,
//!   Hangul fillers, Khmer inherent vowels, Mongolian free variation selectors and the
//!   variation selectors;
//! - the Braille pattern blank (U+2800), which draws as a space but splits no word;
//! - surrogates, private use and unassigned code points (Cs, Co, Cn), whose look no one can
//!   know: a font may draw anything there, and a newer Unicode may make them format characters.
//!
//! The categories come from the `unicode-general-category` crate (Unicode 16.0).

use std::borrow::Cow;
use std::fmt::Write;
use std::path::Path;

use unicode_general_category::{get_general_category, GeneralCategory};

mod paths;
pub use paths::shown_path;

/// `text` as one line a person can trust: every character of the module's list escaped,
/// line breaks and tabs included. For a value shown inside a sentence or on one line (a
/// command, a path, a name).
pub fn line(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// `text` as lines a person can trust: like [`line()`], but a line feed stays a line break and a
/// tab stays a tab. For texts of several lines (a question, a diff, a file).
pub fn lines(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

/// `path` as one line a person can trust and recognise: the familiar form (on Windows without
/// the verbatim prefix rein opens paths with: `C:\ws`, not `\\?\C:\ws`), escaped like
/// [`line()`].
pub fn path(path: impl AsRef<Path>) -> String {
    line(&shown_path(path)).into_owned()
}

/// Whether `c` is shown escaped (see the module's list).
pub fn is_hidden(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    use GeneralCategory as G;
    match get_general_category(c) {
        G::Control | G::Format | G::LineSeparator | G::ParagraphSeparator | G::SpaceSeparator => true,
        G::Surrogate | G::PrivateUse | G::Unassigned => true,
        _ => ignorable_beyond_format(c) || c == '\u{2800}',
    }
}

/// The Default_Ignorable_Code_Point characters that are not in Cf or Cn (Unicode 16.0
/// DerivedCoreProperties.txt): a screen draws nothing for them.
fn ignorable_beyond_format(c: char) -> bool {
    matches!(
        c,
        '\u{034F}'                      // combining grapheme joiner
        | '\u{115F}'..='\u{1160}'       // Hangul choseong and jungseong fillers
        | '\u{17B4}'..='\u{17B5}'       // Khmer inherent vowels
        | '\u{180B}'..='\u{180D}'       // Mongolian free variation selectors
        | '\u{180F}'
        | '\u{3164}'                    // Hangul filler
        | '\u{FE00}'..='\u{FE0F}'       // variation selectors
        | '\u{FFA0}'                    // halfwidth Hangul filler
        | '\u{E0100}'..='\u{E01EF}' // variation selectors supplement
    )
}

fn escape(text: &str, keep_breaks: bool) -> Cow<'_, str> {
    let kept = |c: char| keep_breaks && (c == '\n' || c == '\t');
    if !text.chars().any(|c| is_hidden(c) && !kept(c)) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            c if kept(c) => shown.push(c),
            c => push_on_line(&mut shown, c),
        }
    }
    Cow::Owned(shown)
}

/// Adds `c` to `shown` as [`line()`] shows it: itself, or escaped when it is hidden. For the
/// escapers of the report formats, which show what they escape the way the terminal does.
pub fn push_on_line(shown: &mut String, c: char) {
    match c {
        c if !is_hidden(c) => shown.push(c),
        '\n' => shown.push_str("\\n"),
        '\r' => shown.push_str("\\r"),
        '\t' => shown.push_str("\\t"),
        other => {
            let _ = write!(shown, "\\u{{{:x}}}", other as u32);
        }
    }
}

/// `word` as a POSIX shell reads it back, and as a person can read it: plain words bare, others
/// in single quotes, and a word holding a character a screen would act on or hide
/// ([`is_hidden`]) in ANSI-C quotes (`$'\x1b…\u202e'`, which bash and zsh read
/// back exactly) — never raw.
pub fn shell_word(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=@:,+".contains(c)) {
        word.to_string()
    } else if word.chars().any(is_hidden) {
        let mut quoted = String::from("$'");
        for c in word.chars() {
            match c {
                '\\' | '\'' => {
                    quoted.push('\\');
                    quoted.push(c);
                }
                c if !is_hidden(c) => quoted.push(c),
                c if c.is_ascii() => quoted.push_str(&format!("\\x{:02x}", c as u32)),
                c if (c as u32) <= 0xffff => quoted.push_str(&format!("\\u{:04x}", c as u32)),
                c => quoted.push_str(&format!("\\U{:08x}", c as u32)),
            }
        }
        quoted.push('\'');
        quoted
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_screen_acts_on_is_shown_escaped() {
        assert_eq!(line("\u{1b}[2J\u{1b}csign-app"), "\\u{1b}[2J\\u{1b}csign-app");
        assert_eq!(line("a\rb\nc\td\u{7f}\u{9b}"), "a\\rb\\nc\\td\\u{7f}\\u{9b}");
        assert_eq!(lines("a\rb\nc\td\u{0}"), "a\\rb\nc\td\\u{0}");
        assert_eq!(line("evil\u{202e}gnp.exe"), "evil\\u{202e}gnp.exe");
    }

    #[test]
    fn what_reorders_or_hides_text_is_shown_escaped() {
        let hidden = [
            '\u{202a}',
            '\u{202b}',
            '\u{202c}',
            '\u{202d}',
            '\u{202e}',
            '\u{2066}',
            '\u{2067}',
            '\u{2068}',
            '\u{2069}',
            '\u{200b}',
            '\u{200c}',
            '\u{200d}',
            '\u{200e}',
            '\u{200f}',
            '\u{2060}',
            '\u{feff}',
            '\u{ad}',
            '\u{61c}',
            '\u{2028}',
            '\u{2029}',
            '\u{a0}',
            '\u{3000}',
            '\u{34f}',
            '\u{3164}',
            '\u{fe0f}',
            '\u{e0041}',
            '\u{e000}',
            '\u{e01ef}',
            '\u{13439}',
            '\u{378}',
            '\u{2800}',
        ];
        for c in hidden {
            assert!(is_hidden(c), "U+{:04X}", c as u32);
            assert_eq!(line(&c.to_string()), format!("\\u{{{:x}}}", c as u32));
        }
    }

    #[test]
    fn ordinary_text_is_left_as_it_is() {
        for text in ["hdc install -r entry/build/x.hap", "C:\\Users\\José\\app", "签名 ✓ ä", "\\u{1b} as text"] {
            assert!(matches!(line(text), Cow::Borrowed(_)), "{text}");
        }
        assert_eq!(line(&line("\u{1b}\u{202e}")), line("\u{1b}\u{202e}"), "escaping twice changes nothing");
    }
}
