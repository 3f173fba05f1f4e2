//! A unified diff, coloured on a terminal: additions green, removals red, hunks cyan.

use super::style::{paint, BAD, GOOD, HEAD, HUNK};
use crate::cli::screen::say;

pub fn print(diff: &str) {
    for line in diff.lines() {
        let shown = if line.starts_with("+++") || line.starts_with("---") {
            paint(HEAD, line)
        } else if line.starts_with('+') {
            paint(GOOD, line)
        } else if line.starts_with('-') {
            paint(BAD, line)
        } else if line.starts_with("@@") {
            paint(HUNK, line)
        } else {
            line.to_string()
        };
        say!("{shown}");
    }
}
