//! Unified diffs of a change, cheap when a small part of a large file changed: only the changed
//! window (whole lines plus context) is handed to the diff algorithm.

use std::ops::Range;
use std::time::Duration;

use memchr::{memchr_iter, memrchr_iter};
use similar::{Algorithm, ChangeTag, DiffOp, TextDiff};

const CONTEXT_LINES: usize = 3;
const DIFF_TIMEOUT: Duration = Duration::from_secs(2);
/// Diff text past this many bytes is dropped and counted in a final line.
pub const MAX_DIFF_BYTES: usize = 256 * 1024;

/// A unified diff (`--- a/<path>`, `+++ b/<path>`, hunks with 3 lines of context) from `before`
/// to `after`, or an empty string when they are equal. Lines are shown without their "\n" or
/// "\r\n"; invalid UTF-8 is shown lossily.
pub fn unified_diff(path: &str, before: &[u8], after: &[u8]) -> String {
    if before == after {
        return String::new();
    }
    let prefix = common_prefix_len(before, after);
    let suffix = common_suffix_len(&before[prefix..], &after[prefix..]);
    unified_diff_of_change(path, before, prefix, suffix, &after[prefix..after.len() - suffix], None)
}

/// The same diff when the caller already knows the change: `after` is `before` with the bytes
/// between its first `prefix` and last `suffix` bytes replaced by `middle`. Only that part of
/// `after` needs to exist, so a small edit of a huge file never copies the file.
/// `lines_before_prefix`, when the caller counted them already (the edit's location), is the
/// number of line breaks in `before[..prefix]`: the diff then does not count them again.
pub fn unified_diff_of_change(
    path: &str,
    before: &[u8],
    prefix: usize,
    suffix: usize,
    middle: &[u8],
    lines_before_prefix: Option<usize>,
) -> String {
    if before.len() - prefix - suffix == 0 && middle.is_empty() {
        return String::new();
    }
    let window = ChangedWindow::new(before, prefix, suffix, lines_before_prefix);
    let old_text = String::from_utf8_lossy(&before[window.old.clone()]);
    let mut new_bytes = Vec::with_capacity(window.old.len() + middle.len());
    new_bytes.extend_from_slice(&before[window.old.start..prefix]);
    new_bytes.extend_from_slice(middle);
    new_bytes.extend_from_slice(&before[before.len() - suffix..window.old.end]);
    let new_text = String::from_utf8_lossy(&new_bytes);
    let diff = TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .timeout(DIFF_TIMEOUT)
        .diff_lines(old_text.as_ref(), new_text.as_ref());
    let mut out = CappedText::new(MAX_DIFF_BYTES);
    out.push_line(&["--- a/", path]);
    out.push_line(&["+++ b/", path]);
    for ops in diff.grouped_ops(CONTEXT_LINES) {
        render_hunk(&mut out, &diff, &ops, window.lines_before);
    }
    out.finish()
}

/// The part of `before` worth diffing: everything between the common prefix and common suffix,
/// widened to whole lines plus context. Outside it both buffers are byte-identical.
struct ChangedWindow {
    old: Range<usize>,
    /// Lines before the window (the same in both buffers).
    lines_before: usize,
}

impl ChangedWindow {
    fn new(before: &[u8], prefix: usize, suffix: usize, lines_before_prefix: Option<usize>) -> ChangedWindow {
        // Back past the start of the first changed line, then CONTEXT_LINES more.
        let start = memrchr_iter(b'\n', &before[..prefix]).nth(CONTEXT_LINES).map_or(0, |at| at + 1);
        // Through the end of the last changed line, then CONTEXT_LINES more; the tail is
        // common to both buffers, so the same length ends both windows on a line boundary.
        let tail = &before[before.len() - suffix..];
        let tail_kept = memchr_iter(b'\n', tail).nth(CONTEXT_LINES).map_or(tail.len(), |at| at + 1);
        ChangedWindow {
            old: start..before.len() - suffix + tail_kept,
            lines_before: match lines_before_prefix {
                // The few breaks between the window's start and the change, taken off.
                Some(known) => known - memchr_iter(b'\n', &before[start..prefix]).count(),
                None => memchr_iter(b'\n', &before[..start]).count(),
            },
        }
    }
}

// Compare in blocks so that memcmp does the bulk of a 64 MiB comparison.
const BLOCK: usize = 4096;

pub fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    let equal_blocks = a.chunks(BLOCK).zip(b.chunks(BLOCK)).take_while(|(x, y)| x == y).count();
    let equal = (equal_blocks * BLOCK).min(a.len()).min(b.len());
    let rest = a[equal..].iter().zip(&b[equal..]);
    equal + rest.take_while(|(x, y)| x == y).count()
}

pub fn common_suffix_len(a: &[u8], b: &[u8]) -> usize {
    let equal_blocks = a.rchunks(BLOCK).zip(b.rchunks(BLOCK)).take_while(|(x, y)| x == y).count();
    let equal = (equal_blocks * BLOCK).min(a.len()).min(b.len());
    let (a, b) = (&a[..a.len() - equal], &b[..b.len() - equal]);
    equal + a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count()
}

fn render_hunk(out: &mut CappedText, diff: &TextDiff<str>, ops: &[DiffOp], lines_before: usize) {
    let (Some(first), Some(last)) = (ops.first(), ops.last()) else {
        return;
    };
    let old = first.old_range().start..last.old_range().end;
    let new = first.new_range().start..last.new_range().end;
    let old = hunk_range(old, lines_before);
    let new = hunk_range(new, lines_before);
    out.push_line(&["@@ -", &old, " +", &new, " @@"]);
    for op in ops {
        for change in diff.iter_changes(op) {
            let sign = match change.tag() {
                ChangeTag::Equal => " ",
                ChangeTag::Delete => "-",
                ChangeTag::Insert => "+",
            };
            let value = change.value();
            match value.strip_suffix('\n') {
                Some(line) => out.push_line(&[sign, line.strip_suffix('\r').unwrap_or(line)]),
                None => {
                    out.push_line(&[sign, value]);
                    out.push_line(&["\\ No newline at end of file"]);
                }
            }
        }
    }
}

/// `start,len` of a hunk side in 1-based lines, the way diff(1) writes it: `start` alone when
/// the length is 1, and the line before the range when it is empty.
fn hunk_range(range: Range<usize>, lines_before: usize) -> String {
    let start = range.start + lines_before;
    match range.len() {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        len => format!("{},{len}", start + 1),
    }
}

/// Text that stops growing at a byte limit and counts what it dropped.
struct CappedText {
    text: String,
    limit: usize,
    dropped: usize,
}

impl CappedText {
    fn new(limit: usize) -> CappedText {
        CappedText { text: String::new(), limit, dropped: 0 }
    }

    fn push_line(&mut self, parts: &[&str]) {
        let len = parts.iter().map(|part| part.len()).sum::<usize>() + 1;
        // Once a line is dropped every later one is too, so the diff never has holes.
        if self.dropped > 0 || self.text.len() + len > self.limit {
            self.dropped += len;
            return;
        }
        parts.iter().for_each(|part| self.text.push_str(part));
        self.text.push('\n');
    }

    fn finish(mut self) -> String {
        if self.dropped > 0 {
            self.text.push_str(&format!("... diff truncated ({} more bytes)\n", self.dropped));
        }
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn similar_diff(before: &str, after: &str) -> String {
        similar::udiff::unified_diff(Algorithm::Myers, before, after, 3, Some(("a/f", "b/f")))
    }

    fn numbered(count: usize) -> String {
        (1..=count).map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn common_prefix_and_suffix_cross_block_boundaries() {
        let a = vec![7u8; 3 * BLOCK + 5];
        let mut b = a.clone();
        b[BLOCK + 3] = 0;
        assert_eq!(common_prefix_len(&a, &b), BLOCK + 3);
        assert_eq!(common_suffix_len(&a, &b), 2 * BLOCK + 1);
        assert_eq!(common_prefix_len(&a, &a[..BLOCK]), BLOCK);
        assert_eq!(common_suffix_len(&a, &a[1..]), a.len() - 1);
        assert_eq!(common_prefix_len(b"", b"x"), 0);
    }

    #[test]
    fn equal_inputs_give_an_empty_diff() {
        assert_eq!(unified_diff("f", b"same\n", b"same\n"), "");
    }

    #[test]
    fn one_line_change_has_header_context_and_line_numbers() {
        let before = numbered(10);
        let after = before.replace("line 5\n", "line five\n");
        let expected = "\
--- a/f
+++ b/f
@@ -2,7 +2,7 @@
 line 2
 line 3
 line 4
-line 5
+line five
 line 6
 line 7
 line 8
";
        assert_eq!(unified_diff("f", before.as_bytes(), after.as_bytes()), expected);
    }

    #[test]
    fn change_at_line_5000_of_a_generated_file_has_the_right_numbers() {
        let before = numbered(10_000);
        let after = before.replace("line 5000\n", "line 5000 changed\nline 5000b\n");
        let diff = unified_diff("gen.txt", before.as_bytes(), after.as_bytes());
        let expected = "\
--- a/gen.txt
+++ b/gen.txt
@@ -4997,7 +4997,8 @@
 line 4997
 line 4998
 line 4999
-line 5000
+line 5000 changed
+line 5000b
 line 5001
 line 5002
 line 5003
";
        assert_eq!(diff, expected);
        assert_eq!(diff.replace("gen.txt", "f"), similar_diff(&before, &after));
    }

    #[test]
    fn matches_similar_full_diff_on_small_inputs() {
        let base = numbered(40);
        let cases: Vec<(String, String)> = vec![
            (base.clone(), base.replace("line 1\n", "first\n")),
            (base.clone(), base.replace("line 40\n", "last")),
            (base.clone(), base.replace("line 40\n", "")),
            (base.clone(), format!("new top\n{base}")),
            (base.clone(), format!("{base}new bottom\n")),
            (base.clone(), base.replace("line 3\n", "").replace("line 30\n", "thirty\n")),
            (base.clone(), base.replace("line 10\n", "ten\n").replace("line 14\n", "fourteen\n")),
            (base.clone(), base.replace("line 20\nline 21\n", "")),
            (base.clone(), base.replace("line 7", "line 7 and more")),
            (base.trim_end().to_string(), base.clone()),
            ("a".to_string(), "b".to_string()),
            (String::new(), "x\n".to_string()),
            ("x\n".to_string(), String::new()),
            ("a\nb\n".to_string(), "a\nXb\n".to_string()),
            ("a\nb".to_string(), "a\nXb".to_string()),
        ];
        for (before, after) in cases {
            assert_eq!(
                unified_diff("f", before.as_bytes(), after.as_bytes()),
                similar_diff(&before, &after),
                "before {before:?} after {after:?}"
            );
        }
    }

    #[test]
    fn matches_similar_full_diff_on_generated_edits() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |bound: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % bound as u64) as usize
        };
        for round in 0..300 {
            let mut lines: Vec<String> = (0..next(30)).map(|i| format!("line {i}")).collect();
            let before = lines.join("\n") + if round % 3 == 0 { "" } else { "\n" };
            for change in 0..=next(3) {
                let at = next(lines.len() + 1);
                match next(3) {
                    0 if at < lines.len() => drop(lines.remove(at)),
                    1 if at < lines.len() => lines[at].push_str(" changed"),
                    _ => lines.insert(at, format!("new {round} {change}")),
                }
            }
            let after = lines.join("\n") + if round % 5 == 0 { "" } else { "\n" };
            let ours = unified_diff("f", before.as_bytes(), after.as_bytes());
            assert_eq!(ours, similar_diff(&before, &after), "{before:?} -> {after:?}");
        }
    }

    #[test]
    fn missing_final_newline_is_marked() {
        let diff = unified_diff("f", b"a\nb\n", b"a\nc");
        assert_eq!(diff, "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\\ No newline at end of file\n");
    }

    #[test]
    fn crlf_lines_are_shown_without_their_terminator() {
        let diff = unified_diff("f", b"a\r\nb\r\nc\r\n", b"a\r\nB\r\nc\r\n");
        assert_eq!(diff, "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    }

    #[test]
    fn invalid_utf8_is_shown_lossily() {
        let diff = unified_diff("f", b"ok\n\xFF\n", b"ok\n\xFE!\n");
        assert_eq!(diff, "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n ok\n-\u{FFFD}\n+\u{FFFD}!\n");
    }

    #[test]
    fn large_diffs_are_truncated_with_a_count() {
        let before = "top\n".to_string();
        let after: String = (0..20_000).map(|i| format!("top\nnew line number {i}\n")).collect();
        let diff = unified_diff("f", before.as_bytes(), after.as_bytes());
        let full = similar_diff(&before, &after);
        let (kept, last) = diff.trim_end().rsplit_once('\n').unwrap();
        assert!(diff.len() <= MAX_DIFF_BYTES + 100);
        assert!(full.starts_with(kept));
        let dropped = full.len() - kept.len() - 1;
        assert_eq!(last, format!("... diff truncated ({dropped} more bytes)"));
    }
}
