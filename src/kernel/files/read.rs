//! Reading files as numbered lines, with the checks every reader needs: regular file,
//! text not binary, size within bounds.

use std::fs::{File, Metadata};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::dir::Place;
use crate::kernel::digest::sha256_hex;
use crate::kernel::error::KernelError;

pub const DEFAULT_LIMIT: usize = 2000;
pub const MAX_LINE_CHARS: usize = 2000;
/// A read without offset/limit refuses files above this size, so nobody pulls a huge file
/// into a context by accident.
pub const WHOLE_READ_MAX_BYTES: u64 = 16 * 1024 * 1024;
/// Reads with an explicit range still stop here.
pub const RANGED_READ_MAX_BYTES: u64 = 4 * 1024 * 1024 * 1024;
/// How much of the start of a file decides whether it is binary.
pub const SNIFF_BYTES: usize = 8 * 1024;

/// Which lines to read (default: from the first, up to 2000).
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOptions {
    /// 1-based first line.
    pub offset: Option<usize>,
    /// How many lines at most.
    pub limit: Option<usize>,
}

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

/// Opens `real` for reading and checks it is a regular file.
pub fn open_regular(place: &Place, display: &str) -> Result<(File, Metadata), KernelError> {
    let file = place.dir.open_read(&place.name).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => KernelError::FileNotFound { path: display.to_string() },
        _ => KernelError::io("open", display, e),
    })?;
    let meta = file.metadata().map_err(|e| KernelError::io("inspect", display, e))?;
    if !meta.is_file() {
        let kind = if meta.is_dir() { "directory" } else { "special file" };
        return Err(KernelError::NotAFile { path: display.to_string(), kind });
    }
    Ok((file, meta))
}

/// Why the start of a file says it is not UTF-8 text, if it does.
pub fn binary_reason(head: &[u8]) -> Option<String> {
    if let Some(at) = memchr::memchr(0, head) {
        return Some(format!("NUL byte at offset {at}"));
    }
    match std::str::from_utf8(head) {
        Ok(_) => None,
        // A character cut by the end of the sniffed window is not evidence of binary data.
        Err(e) if e.error_len().is_none() && head.len() == SNIFF_BYTES => None,
        Err(e) => Some(format!("invalid UTF-8 at offset {}", e.valid_up_to())),
    }
}

pub fn check_text(head: &[u8], display: &str) -> Result<(), KernelError> {
    match binary_reason(&head[..head.len().min(SNIFF_BYTES)]) {
        Some(reason) => Err(KernelError::BinaryFile { path: display.to_string(), reason }),
        None => Ok(()),
    }
}

pub fn read_numbered(place: &Place, display: &str, opts: ReadOptions) -> Result<ReadOutput, KernelError> {
    let offset = opts.offset.unwrap_or(1);
    let limit = opts.limit.unwrap_or(DEFAULT_LIMIT);
    if offset == 0 || limit == 0 {
        return Err(KernelError::invalid("offset and limit start at 1 (offset is the first line to show)"));
    }
    let (file, meta) = open_regular(place, display)?;
    let ranged = opts.offset.is_some() || opts.limit.is_some();
    let max = if ranged { RANGED_READ_MAX_BYTES } else { WHOLE_READ_MAX_BYTES };
    if meta.len() > max {
        return Err(KernelError::TooLarge {
            path: display.to_string(),
            size: meta.len(),
            limit: max,
            hint: "Read it in pieces with offset and limit (for example offset=1, limit=2000).",
        });
    }
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    check_text(reader.fill_buf().map_err(|e| KernelError::io("read", display, e))?, display)?;
    let mut numbered = NumberedLines::new(offset, limit);
    let mut hasher = Sha256::new();
    // Lines are taken from the reader's buffer where they lie (hashed a buffer at a time);
    // only a line cut by the end of a buffer is copied, to be joined with its rest.
    let mut cut_line = Vec::new();
    loop {
        let buffer = reader.fill_buf().map_err(|e| KernelError::io("read", display, e))?;
        if buffer.is_empty() {
            break;
        }
        hasher.update(buffer);
        let mut rest = buffer;
        while let Some(newline) = memchr::memchr(b'\n', rest) {
            let (line, after) = rest.split_at(newline + 1);
            if cut_line.is_empty() {
                numbered.push(line);
            } else {
                cut_line.extend_from_slice(line);
                numbered.push(&cut_line);
                cut_line.clear();
            }
            rest = after;
        }
        cut_line.extend_from_slice(rest);
        let used = buffer.len();
        reader.consume(used);
    }
    if !cut_line.is_empty() {
        numbered.push(&cut_line);
    }
    let total = numbered.seen;
    if offset > total.max(1) {
        return Err(KernelError::invalid(format!(
            "offset {offset} is past the end of {display}, which has {total} lines"
        )));
    }
    Ok(numbered.finish(display, format!("{:x}", hasher.finalize())))
}

/// All of `file`, whose metadata says it holds `len` bytes, but never more than `limit` (it may
/// grow while it is read).
pub fn read_all(file: impl Read, len: u64, limit: u64) -> std::io::Result<Vec<u8>> {
    let mut bytes = crate::kernel::platform::file_buffers::for_file(len.min(limit) as usize);
    file.take(limit).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Reads a whole text file of at most `max` bytes; `hint` says what to do with a bigger one.
pub fn read_whole_text(place: &Place, display: &str, max: u64, hint: &'static str) -> Result<Vec<u8>, KernelError> {
    let (file, meta) = open_regular(place, display)?;
    if meta.len() > max {
        return Err(KernelError::TooLarge { path: display.to_string(), size: meta.len(), limit: max, hint });
    }
    let bytes = read_all(file, meta.len(), max).map_err(|e| KernelError::io("read", display, e))?;
    check_text(&bytes, display)?;
    Ok(bytes)
}

/// The text of a settings file that may not exist (`None` then): rein.toml, approvals.toml.
pub fn read_optional_text(path: &Path) -> std::io::Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Reads a whole text file into a string (for scripts that parse files themselves).
pub fn read_text(place: &Place, display: &str) -> Result<(String, String), KernelError> {
    let hint = "Read it in pieces with rein.fs.read and offset/limit.";
    let bytes = read_whole_text(place, display, WHOLE_READ_MAX_BYTES, hint)?;
    let sha = sha256_hex(&bytes);
    Ok((String::from_utf8_lossy(&bytes).into_owned(), sha))
}

/// `{n:>6}\t` without the formatting machinery (it runs once per line of every read).
fn push_line_number(content: &mut String, n: usize) {
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

struct NumberedLines {
    offset: usize,
    limit: usize,
    seen: usize,
    cut_any: bool,
    content: String,
}

impl NumberedLines {
    fn new(offset: usize, limit: usize) -> NumberedLines {
        NumberedLines { offset, limit, seen: 0, cut_any: false, content: String::new() }
    }

    fn push(&mut self, raw: &[u8]) {
        self.seen += 1;
        let n = self.seen;
        if n < self.offset || n >= self.offset.saturating_add(self.limit) {
            return;
        }
        let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        // The fast validator first: nearly every line is valid UTF-8.
        let text = match std::str::from_utf8(raw) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(raw),
        };
        if !self.content.is_empty() {
            self.content.push('\n');
        }
        push_line_number(&mut self.content, n);
        // A line of at most MAX_LINE_CHARS bytes has at most that many characters.
        let cut = if text.len() <= MAX_LINE_CHARS { None } else { text.char_indices().nth(MAX_LINE_CHARS) };
        match cut {
            None => self.content.push_str(&text),
            Some((cut, _)) => {
                self.cut_any = true;
                let chars = text.chars().count();
                self.content.push_str(&text[..cut]);
                self.content.push_str(&format!(" … [line cut: {chars} chars in all]"));
            }
        }
    }

    fn finish(self, display: &str, sha256: String) -> ReadOutput {
        let (start_line, end_line) = if self.seen < self.offset {
            (self.offset.min(self.seen), self.seen)
        } else {
            (self.offset, self.seen.min(self.offset + self.limit - 1))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn read(content: &[u8], opts: ReadOptions) -> Result<ReadOutput, KernelError> {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        std::fs::write(&p, content).unwrap();
        read_numbered(&Place::of_path(&p).unwrap(), "f.txt", opts)
    }

    #[test]
    fn numbers_lines_and_hashes_the_whole_file() {
        let out = read(b"alpha\r\nbeta\ngamma", ReadOptions::default()).unwrap();
        assert_eq!(out.content, "     1\talpha\n     2\tbeta\n     3\tgamma");
        assert_eq!((out.total_lines, out.start_line, out.end_line, out.truncated), (3, 1, 3, false));
        assert_eq!(out.sha256, format!("{:x}", Sha256::digest(b"alpha\r\nbeta\ngamma")));
    }

    #[test]
    fn offset_and_limit_select_a_window() {
        let text: String = (1..=10).map(|i| format!("l{i}\n")).collect();
        let out = read(text.as_bytes(), ReadOptions { offset: Some(4), limit: Some(3) }).unwrap();
        assert_eq!(out.content, "     4\tl4\n     5\tl5\n     6\tl6");
        assert_eq!((out.total_lines, out.start_line, out.end_line, out.truncated), (10, 4, 6, true));
        let past = read(text.as_bytes(), ReadOptions { offset: Some(11), limit: None });
        assert!(matches!(past, Err(KernelError::InvalidArgs { .. })));
    }

    #[test]
    fn line_numbers_are_right_aligned_in_six_columns_and_grow_past_them() {
        for n in [1, 9, 10, 99_999, 999_999, 1_000_000, 1_234_567_890] {
            let mut content = String::new();
            push_line_number(&mut content, n);
            assert_eq!(content, format!("{n:>6}\t"));
        }
    }

    #[test]
    fn empty_file_has_no_lines() {
        let out = read(b"", ReadOptions::default()).unwrap();
        assert_eq!((out.content.as_str(), out.total_lines, out.end_line), ("", 0, 0));
    }

    #[test]
    fn long_lines_are_cut_visibly() {
        let long = "é".repeat(MAX_LINE_CHARS + 5);
        let out = read(long.as_bytes(), ReadOptions::default()).unwrap();
        assert!(out.content.ends_with(&format!(" … [line cut: {} chars in all]", MAX_LINE_CHARS + 5)));
        assert!(out.truncated);
    }

    #[test]
    fn binary_content_is_refused() {
        assert!(matches!(read(b"abc\0def", ReadOptions::default()), Err(KernelError::BinaryFile { .. })));
        assert!(matches!(read(b"abc\xff\xfe", ReadOptions::default()), Err(KernelError::BinaryFile { .. })));
        let mut cut = vec![b'a'; SNIFF_BYTES - 1];
        cut.extend_from_slice("é".as_bytes());
        assert!(read(&cut, ReadOptions::default()).is_ok());
    }

    #[test]
    fn directories_and_missing_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = read_numbered(&Place::of_path(dir.path()).unwrap(), "d", ReadOptions::default()).unwrap_err();
        assert!(matches!(err, KernelError::NotAFile { kind: "directory", .. }));
        let err = read_numbered(&Place::of_path(&dir.path().join("nope")).unwrap(), "nope", ReadOptions::default())
            .unwrap_err();
        assert!(matches!(err, KernelError::FileNotFound { .. }));
    }

    #[test]
    fn lines_cut_by_the_end_of_a_buffer_read_whole() {
        // Lines of every length around the reader's 64 KiB buffer, one longer than it, CRLF
        // and a last line without its newline: the same lines and hash as reading it whole.
        let mut text = String::new();
        for i in 0..3000 {
            text.push_str(&"x".repeat(i % 97));
            text.push_str(if i % 5 == 0 { "\r\n" } else { "\n" });
        }
        text.push_str(&"y".repeat(70 * 1024));
        text.push_str("\nlast é");
        let out = read(text.as_bytes(), ReadOptions { offset: Some(1), limit: Some(1_000_000) }).unwrap();
        let expected: Vec<String> = text
            .split('\n')
            .enumerate()
            .map(|(i, line)| {
                let line = line.strip_suffix('\r').unwrap_or(line);
                let mut numbered = String::new();
                push_line_number(&mut numbered, i + 1);
                match line.char_indices().nth(MAX_LINE_CHARS) {
                    None => numbered + line,
                    Some((cut, _)) => format!("{numbered}{} … [line cut: {} chars in all]", &line[..cut], line.len()),
                }
            })
            .collect();
        assert_eq!(out.content, expected.join("\n"));
        assert_eq!(out.total_lines, 3002);
        assert_eq!(out.sha256, format!("{:x}", Sha256::digest(text.as_bytes())));
    }

    /// The end of the reader's 64 KiB buffer falling at every byte of a CRLF, of a 2- and a
    /// 4-byte character, of a byte that is not UTF-8 (past the sniffed head), of an empty line
    /// and of a file's last line: the lines and hash are those of the file split whole.
    #[test]
    fn a_buffer_end_inside_any_sequence_reads_as_the_file_split_whole() {
        let specials: [&[u8]; 6] = [b"\r\n", "\u{e9}".as_bytes(), "\u{1f980}".as_bytes(), b"\xff\xfe", b"\n\n", b""];
        for special in specials {
            for end in 65_530..65_542 {
                let mut text = b"x\n".repeat(10_000);
                text.resize(end - 2, b'y');
                text.extend_from_slice(special);
                text.extend_from_slice("z\u{1f980}\r\n".repeat(3).as_bytes());
                text.extend_from_slice(b"last");
                let opts = ReadOptions { offset: Some(9_990), limit: Some(50) };
                let mut whole = NumberedLines::new(9_990, 50);
                for line in text.split_inclusive(|byte| *byte == b'\n') {
                    whole.push(line);
                }
                let expected = whole.finish("f.txt", format!("{:x}", Sha256::digest(&text)));
                assert_eq!(read(&text, opts).unwrap(), expected, "{special:?} ending at {end}");
            }
        }
    }
}
