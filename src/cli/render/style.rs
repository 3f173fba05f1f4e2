//! Colour for people at a terminal. Everything is printed through anstream, which drops the
//! escapes when the stream is not a terminal, when `NO_COLOR` is set or `TERM=dumb`, so a pipe
//! or a file never gets them.

use anstyle::{AnsiColor, Style};

pub const GOOD: Style = Style::new().fg_color(Some(anstyle::Color::Ansi(AnsiColor::Green)));
pub const BAD: Style = Style::new().fg_color(Some(anstyle::Color::Ansi(AnsiColor::Red))).bold();
pub const WARN: Style = Style::new().fg_color(Some(anstyle::Color::Ansi(AnsiColor::Yellow)));
pub const DIM: Style = Style::new().dimmed();
pub const HEAD: Style = Style::new().bold();
pub const HUNK: Style = Style::new().fg_color(Some(anstyle::Color::Ansi(AnsiColor::Cyan)));

/// `text` in `style`; whatever in `text` a screen would act on or hide is shown escaped, so a
/// painted value never carries styles of its own.
pub fn paint(style: Style, text: impl std::fmt::Display) -> String {
    format!("{style}{}{style:#}", rein::visible::lines(&text.to_string()))
}

/// A run, step or check status in its colour: green when it worked, red when it did not.
pub fn status(word: &str) -> String {
    let style = match word {
        "verified" | "succeeded" | "ok" | "reused" | "passed" => GOOD,
        "failed" | "FAIL" | "cancelled" | "MISSING" => BAD,
        "skipped" => DIM,
        _ => Style::new(),
    };
    paint(style, word)
}
