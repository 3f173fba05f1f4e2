//! Tests of `numbered`: line numbers, and a line taken in parts reading as the line whole.

use super::*;

#[test]
fn line_numbers_are_right_aligned_in_six_columns_and_grow_past_them() {
    for n in [1, 9, 10, 99_999, 999_999, 1_000_000, 1_234_567_890] {
        let mut content = String::new();
        push_line_number(&mut content, n);
        assert_eq!(content, format!("{n:>6}\t"));
    }
}

/// The window `line` shows when pushed whole, and when cut at each of `cuts` into parts.
fn whole_and_in_parts(line: &[u8], cuts: &[usize]) -> (ReadOutput, ReadOutput) {
    let mut whole = NumberedLines::new(1, 10);
    whole.push(line);
    let mut parts = NumberedLines::new(1, 10);
    let mut at = 0;
    for &cut in cuts {
        parts.push_part(&line[at..cut]);
        at = cut;
    }
    parts.push_last_part(&line[at..]);
    (whole.finish("f", String::new()), parts.finish("f", String::new()))
}

/// Lines with CRLF, characters of every width, bytes that are not UTF-8 (alone, in runs, a
/// character's start without its end) and lengths around the shown characters: cut anywhere
/// (once, and at every pair of places for the short ones), a line reads as it does whole.
#[test]
fn a_line_in_parts_reads_as_the_line_whole_wherever_it_is_cut() {
    let long_mix = "aé\u{1f980}\u{800}".repeat(MAX_LINE_CHARS / 3);
    let lines: Vec<Vec<u8>> = vec![
        b"plain\n".to_vec(),
        b"crlf\r\n".to_vec(),
        b"cr\rinside\r\r\n".to_vec(),
        b"no newline at the end".to_vec(),
        "\u{e9}\u{1f980}\u{800}x\n".as_bytes().to_vec(),
        b"\xff\xfe\xe0\x80\xf0\x90\x80A\xc3\n".to_vec(),
        b"ends in a begun character \xf0\x9f\xa6".to_vec(),
        b"ends in a begun character before CRLF \xe2\x82\r\n".to_vec(),
        [long_mix.as_bytes(), b"\xff tail\r\n"].concat(),
        "é".repeat(MAX_LINE_CHARS).into_bytes(),
        "é".repeat(MAX_LINE_CHARS + 1).into_bytes(),
        [&"x".repeat(MAX_LINE_CHARS - 1).into_bytes()[..], b"\xe2\x82\xac\xff\n"].concat(),
    ];
    for line in &lines {
        // A part ends before the newline: the last part holds it.
        let end = line.len() - usize::from(line.ends_with(b"\n"));
        for cut in 0..=end {
            let (whole, parts) = whole_and_in_parts(line, &[cut]);
            assert_eq!(parts, whole, "{:?} cut at {cut}", String::from_utf8_lossy(line));
        }
        if line.len() < 64 {
            for first in 0..=end {
                for second in first..=end {
                    let (whole, parts) = whole_and_in_parts(line, &[first, second]);
                    assert_eq!(parts, whole, "{:?} cut at {first} and {second}", String::from_utf8_lossy(line));
                }
            }
        }
        let every_byte: Vec<usize> = (1..=end).collect();
        let (whole, parts) = whole_and_in_parts(line, &every_byte);
        assert_eq!(parts, whole, "{:?} cut at every byte", String::from_utf8_lossy(line));
    }
}

/// A line of 64 MiB in parts of 64 KiB (a read's buffer): what is kept of it stays the shown
/// characters and less than one part, and its characters are all counted.
#[test]
fn a_line_of_many_parts_keeps_only_what_it_shows() {
    let part = "é".repeat(32 * 1024);
    let mut numbered = NumberedLines::new(1, 1);
    for _ in 0..1024 {
        numbered.push_part(part.as_bytes());
        let kept = numbered.parts.as_ref().unwrap();
        assert!(kept.pending.len() <= 4, "{} bytes pending", kept.pending.len());
        assert!(kept.pending.capacity() <= part.len() + 4, "{} bytes held", kept.pending.capacity());
        assert_eq!(kept.shown.chars().count(), MAX_LINE_CHARS);
    }
    numbered.push_last_part(b"\n");
    let out = numbered.finish("f", String::new());
    assert!(
        out.content.ends_with(&format!(" … [line cut: {} chars in all]", 32 * 1024 * 1024)),
        "{}",
        &out.content[..40]
    );
    assert!(out.truncated);
}

/// Lines outside the window are counted, never decoded or kept, whole or in parts.
#[test]
fn a_line_outside_the_window_is_only_counted() {
    let mut numbered = NumberedLines::new(2, 1);
    numbered.push_part(b"first, never shown");
    assert!(numbered.parts.is_none());
    numbered.push_last_part(b"\n");
    numbered.push_part(b"sec");
    numbered.push_last_part(b"ond\n");
    numbered.push(b"third\n");
    let out = numbered.finish("f", String::new());
    assert_eq!((out.content.as_str(), out.total_lines, out.truncated), ("     2\tsecond", 3, true));
}

/// A limit as large as a `usize` holds (a caller asking for "everything from here") past the
/// first line: the window ends at the last line, not where `offset + limit` wrapped around.
#[test]
fn a_window_of_the_largest_limit_ends_at_the_last_line() {
    let mut numbered = NumberedLines::new(2, usize::MAX);
    for line in [&b"one\n"[..], b"two\n", b"three"] {
        numbered.push(line);
    }
    let out = numbered.finish("f", String::new());
    assert_eq!((out.start_line, out.end_line, out.truncated), (2, 3, false));
    assert_eq!(out.content, "     2\ttwo\n     3\tthree");
}
