//! Tests of `read`: numbering, windows, caps, and lines cut by the reader's buffer.

use super::*;
use crate::kernel::files::numbered::{push_line_number, MAX_LINE_CHARS};

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
    let err =
        read_numbered(&Place::of_path(&dir.path().join("nope")).unwrap(), "nope", ReadOptions::default()).unwrap_err();
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

/// A reader standing for a file that keeps growing while it is read (a program of a call
/// running beside this one still writing it): `pattern` over and over, `stop` bytes in all.
struct Growing {
    pattern: &'static [u8],
    given: u64,
    stop: u64,
}

impl Read for Growing {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min((self.stop - self.given) as usize);
        for (i, byte) in buf[..n].iter_mut().enumerate() {
            *byte = self.pattern[(self.given as usize + i) % self.pattern.len()];
        }
        self.given += n as u64;
        Ok(n)
    }
}

/// Its size was checked against the cap when it was opened; it is read no further than the
/// cap either, whole lines or one line that never ends: TOO_LARGE, and no more than the cap
/// read (nor held for the line).
#[test]
fn a_file_growing_past_the_cap_while_it_is_read_is_too_large() {
    let max = 1 << 20;
    for pattern in [&b"x"[..], b"line\n"] {
        let mut growing = Growing { pattern, given: 0, stop: 8 * max };
        let err = number_lines(&mut growing, "f.txt", 1, DEFAULT_LIMIT, max).unwrap_err();
        assert!(matches!(err, KernelError::TooLarge { limit, .. } if limit == max), "{err:?}");
        assert!(growing.given <= max + 1, "read {} bytes of a file capped at {max}", growing.given);
    }
}

/// A source whose every other read is interrupted by a signal, as a read of a network file
/// system can be.
struct Interrupted<'a> {
    bytes: &'a [u8],
    next_fails: bool,
}

impl Read for Interrupted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.next_fails = !self.next_fails;
        if !self.next_fails {
            return Err(std::io::ErrorKind::Interrupted.into());
        }
        let n = buf.len().min(self.bytes.len()).min(5);
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

#[test]
fn a_read_interrupted_by_a_signal_is_read_again() {
    let text = b"alpha\nbeta\ngamma delta\n";
    let out = number_lines(Interrupted { bytes: text, next_fails: true }, "f.txt", 1, 10, 1000).unwrap();
    assert_eq!(out.content, "     1\talpha\n     2\tbeta\n     3\tgamma delta");
    assert_eq!(out.sha256, format!("{:x}", Sha256::digest(text)));
}

/// Settings files: missing is None; a link is followed for home files and refused for the
/// project's policy files; a FIFO is refused without waiting for a writer, and a file past
/// 1 MiB is refused, whichever.
#[test]
#[cfg(unix)]
fn settings_are_plain_bounded_files_and_links_only_where_followed() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    std::fs::write(at("plain.toml"), "a = 1\n").unwrap();
    std::os::unix::fs::symlink(at("plain.toml"), at("link.toml")).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(at("fifo.toml")).status().unwrap().success());
    std::fs::File::create(at("big.toml")).unwrap().set_len(SETTINGS_LIMIT + 1).unwrap();
    for links in [Links::Follow, Links::Refuse] {
        assert_eq!(read_optional_text(&at("missing.toml"), links).unwrap(), None);
        assert_eq!(read_optional_text(&at("plain.toml"), links).unwrap().as_deref(), Some("a = 1\n"));
        for refused in ["fifo.toml", "big.toml"] {
            let err = read_optional_text(&at(refused), links).unwrap_err();
            assert!(err.to_string().contains("plain file"), "{refused}: {err}");
        }
    }
    assert_eq!(read_optional_text(&at("link.toml"), Links::Follow).unwrap().as_deref(), Some("a = 1\n"));
    let err = read_optional_text(&at("link.toml"), Links::Refuse).unwrap_err();
    assert!(err.to_string().contains("it is a link"), "{err}");
}

/// A source handing out `chunks` in turn (each at most what the reader asks for), so the
/// reader's buffer ends wherever a chunk does.
struct Chunked<'a> {
    bytes: &'a [u8],
    sizes: std::vec::IntoIter<usize>,
}

impl Read for Chunked<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.sizes.next().unwrap_or(usize::MAX).min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// xorshift64*: the same pieces every run, no dependency.
struct Pseudo(u64);

impl Pseudo {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize % n
    }
}

/// A file of pieces that are hard to cut: characters of every width, bytes that are not UTF-8
/// (alone, in runs, a character begun), lone `\r`, `\r\r\n`, empty lines, lines of exactly
/// 1999/2000/2001 characters and lines longer than the reader's buffer. Its first line is plain
/// so the sniffed head (the first chunk) is text.
fn tricky_file(pseudo: &mut Pseudo) -> Vec<u8> {
    let pieces: [&[u8]; 18] = [
        b"a",
        "\u{e9}".as_bytes(),
        "\u{800}".as_bytes(),
        "\u{1f980}".as_bytes(),
        b"\xff",
        b"\x80\x80",
        b"\xf0\x9f\xa6",
        b"\xe2\x82",
        b"\xc3",
        b"\xed\xa0\x80",
        b"\r",
        b"\r\n",
        b"\r\r\n",
        b"\n",
        b"\n\n",
        b"\xe2\x82\r\n",
        b"\xf0\x9f\xa6\r",
        b"\xf4\x90\x80\x80",
    ];
    let mut file = b"head\n".to_vec();
    for _ in 0..pseudo.below(300) {
        match pseudo.below(40) {
            0 => file.extend_from_slice(&b"x".repeat(1999 + pseudo.below(3))),
            1 => file.extend_from_slice("\u{e9}".repeat(1999 + pseudo.below(3)).as_bytes()),
            2 => file.extend_from_slice("\u{1f980}".repeat(17_000 + pseudo.below(3)).as_bytes()),
            _ => file.extend_from_slice(pieces[pseudo.below(pieces.len())]),
        }
    }
    if pseudo.below(2) == 0 {
        file.push(b'\n');
    }
    file
}

/// Chunk sizes cutting `len` bytes anywhere: a byte, a few, a hundred or a whole buffer.
fn chunk_sizes(pseudo: &mut Pseudo, len: usize) -> Vec<usize> {
    let mut sizes = vec![5];
    let mut total = 5;
    while total < len {
        let size = match pseudo.below(4) {
            0 => 1 + pseudo.below(5),
            1 => 1 + pseudo.below(100),
            2 => 1 + pseudo.below(5000),
            _ => 64 * 1024,
        };
        sizes.push(size);
        total += size;
    }
    sizes
}

/// What a read of `file` gave before lines came in parts: the file split whole on `\n`, each
/// line decoded by `from_utf8_lossy` (`None`: the offset is past the end).
fn read_as_split_whole(file: &[u8], offset: usize, limit: usize) -> Option<ReadOutput> {
    let mut lines: Vec<&[u8]> = file.split_inclusive(|byte| *byte == b'\n').collect();
    let total = lines.len();
    if offset > total.max(1) {
        return None;
    }
    let end = total.min(offset.saturating_add(limit) - 1);
    lines.truncate(end);
    let mut shown = Vec::new();
    let mut cut_any = false;
    for (i, raw) in lines.iter().enumerate().skip(offset - 1) {
        let raw = raw.strip_suffix(b"\n").unwrap_or(raw);
        let text = String::from_utf8_lossy(raw.strip_suffix(b"\r").unwrap_or(raw));
        let chars = text.chars().count();
        let mut line = format!("{:>6}\t{}", i + 1, text.chars().take(MAX_LINE_CHARS).collect::<String>());
        if chars > MAX_LINE_CHARS {
            cut_any = true;
            line.push_str(&format!(" … [line cut: {chars} chars in all]"));
        }
        shown.push(line);
    }
    let (start_line, end_line) = if total < offset { (total, total) } else { (offset, end) };
    Some(ReadOutput {
        path: "f.txt".into(),
        content: shown.join("\n"),
        total_lines: total,
        start_line,
        end_line,
        truncated: end_line < total || cut_any,
        sha256: format!("{:x}", Sha256::digest(file)),
    })
}

/// Differential: random tricky files, cut by the reader anywhere, and windows from the first
/// line to past the last (huge limits too) read exactly as the file split whole did.
#[test]
fn a_file_cut_anywhere_by_the_reader_reads_as_the_file_split_whole() {
    let mut pseudo = Pseudo(0x9e37_79b9_7f4a_7c15);
    for round in 0..400 {
        let file = tricky_file(&mut pseudo);
        let sizes = chunk_sizes(&mut pseudo, file.len());
        let lines = file.split_inclusive(|byte| *byte == b'\n').count();
        let offset = [1, 2, 1 + pseudo.below(lines + 2), lines, usize::MAX][pseudo.below(5)].max(1);
        let limit = [1, 1 + pseudo.below(lines + 1), DEFAULT_LIMIT, usize::MAX][pseudo.below(4)];
        let source = Chunked { bytes: &file, sizes: sizes.clone().into_iter() };
        let read = number_lines(source, "f.txt", offset, limit, RANGED_READ_MAX_BYTES);
        match read_as_split_whole(&file, offset, limit) {
            Some(expected) => assert_eq!(read.unwrap(), expected, "round {round}: offset {offset}, limit {limit}"),
            None => assert!(matches!(read, Err(KernelError::InvalidArgs { .. })), "round {round}: {read:?}"),
        }
    }
}
