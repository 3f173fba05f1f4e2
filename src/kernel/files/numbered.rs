//! The window of numbered lines a read shows, built line by line: whole lines as they lie in
//! the reader's buffer, and a line the buffer's end cuts in parts. A line is never held whole
//! for that: a ranged read may meet one line of gigabytes (a build script makes a sparse file
//! of one line in a moment), so a part is decoded as it comes, and only what is shown of the
//! line (its first [`MAX_LINE_CHARS`] characters) is kept, with a count of the rest.

use serde::Serialize;

/// How many characters of a line a read shows; the rest is counted.
pub const MAX_LINE_CHARS: usize = 2000;

/// Lines of a text file, numbered: the result `read_file` gives.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadOutput {
    /// The file, as the caller named it.
    pub path: String,
    /// `{n:>6}\t{line}` per line, joined by `\n`.
    pub content: String,
    /// How many lines the file has.
    pub total_lines: usize,
    /// The first line read (1-based).
    pub start_line: usize,
    /// The last line read.
    pub end_line: usize,
    /// True when lines exist after `end_line` or a line was cut at MAX_LINE_CHARS.
    pub truncated: bool,
    /// The sha256 of the whole file (what `expected_sha256` compares with).
    pub sha256: String,
}

pub struct NumberedLines {
    offset: usize,
    limit: usize,
    /// Lines seen so far, the one in parts not included.
    seen: usize,
    cut_any: bool,
    content: String,
    /// The line coming in parts, when it is in the window.
    parts: Option<LineParts>,
}

impl NumberedLines {
    pub fn new(offset: usize, limit: usize) -> NumberedLines {
        NumberedLines { offset, limit, seen: 0, cut_any: false, content: String::new(), parts: None }
    }

    fn in_window(&self, n: usize) -> bool {
        n >= self.offset && n < self.offset.saturating_add(self.limit)
    }

    /// A whole line: its newline included, or the file's last line.
    pub fn push(&mut self, raw: &[u8]) {
        self.seen += 1;
        if !self.in_window(self.seen) {
            return;
        }
        let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        // The fast validator first: nearly every line is valid UTF-8.
        let text = match std::str::from_utf8(raw) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(raw),
        };
        // A line of at most MAX_LINE_CHARS bytes has at most that many characters.
        let cut = if text.len() <= MAX_LINE_CHARS { None } else { text.char_indices().nth(MAX_LINE_CHARS) };
        match cut {
            None => self.show(&text, None),
            Some((cut, _)) => self.show(&text[..cut], Some(text.chars().count())),
        }
    }

    /// A part of a line whose end is not read yet.
    pub fn push_part(&mut self, raw: &[u8]) {
        if self.in_window(self.seen + 1) {
            self.parts.get_or_insert_with(LineParts::default).take(raw, false);
        }
    }

    /// The last part of a line begun by [`NumberedLines::push_part`]: up to and with its newline,
    /// or empty at the end of the file.
    pub fn push_last_part(&mut self, raw: &[u8]) {
        self.seen += 1;
        if let Some(mut parts) = self.parts.take() {
            parts.take(raw, true);
            let all = (parts.chars > MAX_LINE_CHARS).then_some(parts.chars);
            self.show(&parts.shown, all);
        }
    }

    /// Adds line `self.seen`: `text`, or its first characters when it has `all` in all.
    fn show(&mut self, text: &str, all: Option<usize>) {
        if !self.content.is_empty() {
            self.content.push('\n');
        }
        push_line_number(&mut self.content, self.seen);
        self.content.push_str(text);
        if let Some(chars) = all {
            self.cut_any = true;
            self.content.push_str(&format!(" … [line cut: {chars} chars in all]"));
        }
    }

    /// How many lines were seen.
    pub fn seen(&self) -> usize {
        self.seen
    }

    pub fn finish(self, display: &str, sha256: String) -> ReadOutput {
        let (start_line, end_line) = if self.seen < self.offset {
            (self.offset.min(self.seen), self.seen)
        } else {
            // Saturating: a limit near usize::MAX means "to the end", not a wrapped window.
            (self.offset, self.seen.min(self.offset.saturating_add(self.limit) - 1))
        };
        ReadOutput {
            path: display.to_string(),
            content: self.content,
            total_lines: self.seen,
            start_line,
            end_line,
            truncated: end_line < self.seen || self.cut_any,
            sha256,
        }
    }
}

/// A line decoded part by part as `String::from_utf8_lossy` decodes it whole (one U+FFFD for
/// each piece of it that is not UTF-8), keeping its first [`MAX_LINE_CHARS`] characters and
/// counting all of them.
#[derive(Default)]
struct LineParts {
    shown: String,
    chars: usize,
    /// Bytes whose meaning the next part decides: a character begun and not finished, or a
    /// `\r` that may be the end of the line's CRLF. At most four.
    pending: Vec<u8>,
}

impl LineParts {
    fn take(&mut self, raw: &[u8], last: bool) {
        self.pending.extend_from_slice(raw);
        let mut end = self.pending.len();
        if last {
            let line = &self.pending[..end];
            let line = line.strip_suffix(b"\n").unwrap_or(line);
            end = line.strip_suffix(b"\r").unwrap_or(line).len();
        } else if self.pending.last() == Some(&b'\r') {
            end -= 1;
        }
        let mut used = 0;
        for chunk in self.pending[..end].utf8_chunks() {
            let (valid, invalid) = (chunk.valid(), chunk.invalid());
            if self.chars < MAX_LINE_CHARS {
                let room = MAX_LINE_CHARS - self.chars;
                let keep = valid.char_indices().nth(room).map_or(valid.len(), |(at, _)| at);
                self.shown.push_str(&valid[..keep]);
            }
            self.chars += valid.chars().count();
            used += valid.len();
            // A character the part's end cut: the next part finishes it (or shows it is not one).
            let unfinished = !last
                && used + invalid.len() == end
                && std::str::from_utf8(invalid).is_err_and(|e| e.error_len().is_none());
            if invalid.is_empty() || unfinished {
                continue;
            }
            if self.chars < MAX_LINE_CHARS {
                self.shown.push(char::REPLACEMENT_CHARACTER);
            }
            self.chars += 1;
            used += invalid.len();
        }
        // What is left is at most a character begun and a `\r`: the buffer never holds more than
        // one part.
        self.pending.drain(..used);
    }
}

/// `{n:>6}\t` without the formatting machinery (it runs once per line of every read).
pub fn push_line_number(content: &mut String, n: usize) {
    let mut digits = [b' '; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    let start = at.min(digits.len() - 6);
    // Only ASCII digits and spaces were written.
    content.push_str(std::str::from_utf8(&digits[start..]).unwrap_or_default());
    content.push('\t');
}

#[cfg(test)]
#[path = "numbered_tests.rs"]
mod tests;
