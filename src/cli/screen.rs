//! Every text the `rein` command writes for a person goes through here: results, failures,
//! listings, progress, logs, JSON and the terminal's questions. What tools, files, packs and
//! programs put in a text may hold what a screen acts on or hides (an escape sequence that
//! clears the screen, a carriage return that paints over a line, a bidi override); here it is
//! shown escaped ([`rein::visible`]). Only rein's own styles pass: the SGR sequences of
//! `render::style` (bold, dim, italic and the foreground colours rein uses), never one that
//! hides text (conceal, a background colour, reverse video), moves the cursor or does anything
//! else. Use [`say!`] and [`tell!`] instead of `println!` and `eprintln!` (a test in
//! `tests/human_output.rs` finds any print macro outside this file).

use std::borrow::Cow;
use std::io::{self, Write};

/// Writes a line on stdout through [`shown`] (colour dropped where stdout is no terminal).
macro_rules! say {
    () => { $crate::cli::screen::out("") };
    ($($arg:tt)*) => { $crate::cli::screen::out(&format!($($arg)*)) };
}

/// Writes a line on stderr through [`shown`] (colour dropped where stderr is no terminal).
macro_rules! tell {
    ($($arg:tt)*) => { $crate::cli::screen::err(&format!($($arg)*)) };
}

pub(crate) use {say, tell};

/// The SGR parameters rein's own styles use: reset, bold, dim, italic, their ends, and the
/// foreground colours red, green, yellow, blue, magenta, cyan and the default one.
const OWN_STYLES: [&str; 14] = ["", "0", "1", "2", "3", "22", "23", "31", "32", "33", "34", "35", "36", "39"];

/// `text` as it may reach a screen: rein's own styles kept, everything else a screen would act
/// on or hide shown escaped. Line breaks and tabs stay.
pub fn shown(text: &str) -> Cow<'_, str> {
    if !text.contains('\u{1b}') {
        return rein::visible::lines(text);
    }
    let mut result = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\u{1b}') {
        result.push_str(&rein::visible::lines(&rest[..at]));
        let after = &rest[at..];
        match own_style(after) {
            Some(len) => {
                result.push_str(&after[..len]);
                rest = &after[len..];
            }
            None => {
                result.push_str(&rein::visible::lines("\u{1b}"));
                rest = &after[1..];
            }
        }
    }
    result.push_str(&rein::visible::lines(rest));
    Cow::Owned(result)
}

/// The length of the SGR sequence `text` starts with, when all its parameters are rein's own.
fn own_style(text: &str) -> Option<usize> {
    let body = text.strip_prefix("\u{1b}[")?;
    let end = body.find(|c: char| !(c.is_ascii_digit() || c == ';'))?;
    if !body[end..].starts_with('m') || !body[..end].split(';').all(|p| OWN_STYLES.contains(&p)) {
        return None;
    }
    Some(2 + end + 1)
}

/// A line on stdout.
pub fn out(text: &str) {
    let mut stdout = anstream::stdout().lock();
    let _ = writeln!(stdout, "{}", shown(text));
}

/// `text` on stdout as it is, without a line break of its own (a report, a man page).
pub fn print(text: &str) {
    let mut stdout = anstream::stdout().lock();
    let _ = write!(stdout, "{}", shown(text));
}

/// A line on stderr.
pub fn err(text: &str) {
    let mut stderr = anstream::stderr().lock();
    let _ = writeln!(stderr, "{}", shown(text));
}

/// `text` written to `to` as it is (a question at the terminal), through [`shown`].
pub fn write(to: &mut impl Write, text: &str) -> io::Result<()> {
    to.write_all(shown(text).as_bytes())?;
    to.flush()
}

/// `value` as compact JSON whose strings hold nothing a screen acts on or hides: such a
/// character is written as its `\uXXXX` escape, which every JSON reader reads back as the same
/// character (serde_json escapes only the C0 controls).
pub fn json(value: &impl serde::Serialize) -> String {
    let mut bytes = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut bytes, EscapeHidden);
    if value.serialize(&mut serializer).is_err() {
        return "null".to_string();
    }
    String::from_utf8(bytes).unwrap_or_default()
}

/// `value` as indented JSON, escaped like [`json`]: outside its strings JSON holds only ASCII
/// punctuation, letters, digits, spaces and line breaks, so every other character a screen
/// would act on or hide is inside a string, where its `\uXXXX` escape reads back the same.
pub fn json_pretty(value: &impl serde::Serialize) -> String {
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".to_string());
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if c != '\n' && rein::visible::is_hidden(c) {
            for unit in c.encode_utf16(&mut [0; 2]) {
                escaped.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            escaped.push(c);
        }
    }
    escaped
}

/// serde_json's compact formatter, escaping what [`rein::visible::is_hidden`] names.
struct EscapeHidden;

impl serde_json::ser::Formatter for EscapeHidden {
    fn write_string_fragment<W: ?Sized + Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        let mut start = 0;
        for (at, c) in fragment.char_indices().filter(|(_, c)| rein::visible::is_hidden(*c)) {
            writer.write_all(&fragment.as_bytes()[start..at])?;
            for unit in c.encode_utf16(&mut [0; 2]) {
                write!(writer, "\\u{unit:04x}")?;
            }
            start = at + c.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
}

/// stderr for the log lines of `tracing`, each through [`shown`] (the formatter writes a whole
/// line at a time).
pub struct LogWriter;

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        io::stderr().lock().write_all(shown(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_reins_own_styles_reach_the_screen() {
        let own = "\u{1b}[1m+ hdc install\u{1b}[0m \u{1b}[2m|\u{1b}[0m \u{1b}[1m\u{1b}[31merror\u{1b}[0m";
        assert_eq!(shown(own), own);
        let hostile =
            "\u{1b}[8mhidden\u{1b}[0m \u{1b}[2J\u{1b}c \u{1b}M\r \u{1b}[30;40m \u{1b}]0;title\u{7} x\u{202e}y";
        assert_eq!(
            shown(hostile),
            "\\u{1b}[8mhidden\u{1b}[0m \\u{1b}[2J\\u{1b}c \\u{1b}M\\r \\u{1b}[30;40m \\u{1b}]0;title\\u{7} x\\u{202e}y"
        );
        assert_eq!(shown("two\n\tlines"), "two\n\tlines");
    }

    #[test]
    fn pretty_json_escapes_what_a_screen_would_act_on_and_reads_back_the_same() {
        let value = serde_json::json!({"a": ["x\u{1b}[2J\u{7f}\u{9b}\u{202e}\u{e0041}\n"]});
        let text = json_pretty(&value);
        assert!(!text.chars().any(|c| c != '\n' && rein::visible::is_hidden(c)), "{text}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
    }

    #[test]
    fn json_escapes_what_a_screen_would_act_on_and_reads_back_the_same() {
        let value = serde_json::json!(["a\u{1b}[2J\u{7f}\u{9b}\u{202e}\u{1f600}\u{e0041}", 1]);
        let text = json(&value);
        assert_eq!(text, r#"["a\u001b[2J\u007f\u009b\u202e😀\udb40\udc41",1]"#);
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
    }
}
