//! Spans of a file that resemble an `old_string` that was not found, so the caller can correct
//! its `old_string`. They are shown, never applied.

use std::time::Duration;

use memchr::{memchr_iter, memmem};
use similar::TextDiff;

pub use crate::kernel::reported::Candidate;

/// Above this many file lines only the whitespace-insensitive search runs.
pub const MAX_SIMILAR_SCAN_LINES: usize = 200_000;
/// Above this many file bytes only the whitespace-insensitive search runs.
pub const MAX_SIMILAR_SCAN_BYTES: usize = 64 * 1024 * 1024;
/// Above this many `old_string` lines only the whitespace-insensitive search runs.
pub const MAX_SIMILAR_OLD_LINES: usize = 200;
pub const MIN_SIMILARITY: f64 = 0.5;
const MAX_TEXT_LINES: usize = 20;
const MAX_TEXT_CHARS: usize = 2000;
/// Windows ranked by the cheap bigram score that go on to the exact ratio.
const PREFILTER_KEEP: usize = 10;
/// Best windows that do not overlap each other, also ranked exactly.
const PREFILTER_SPREAD: usize = 5;
/// Texts longer than this together are compared word by word rather than char by char, to
/// bound memory (a line-by-line ratio would be 0 for a span with a typo on every line).
const CHAR_DIFF_LIMIT: usize = 64 * 1024;
/// Time for one exact ratio; past it `similar` approximates, so a hopeless pair stays cheap.
const RATIO_TIMEOUT: Duration = Duration::from_millis(25);

/// Up to `max` spans of whole lines in `content` most like `old`, best first: spans equal to
/// `old` once whitespace is ignored, then the most similar windows of as many lines as `old`
/// (similarity >= [`MIN_SIMILARITY`]). Spans never overlap one another.
pub fn nearest_candidates(content: &str, old: &str, max: usize) -> Vec<Candidate> {
    if max == 0 || old.trim().is_empty() {
        return Vec::new();
    }
    let lines = Lines::new(content);
    let old_lf = old.replace("\r\n", "\n");
    let old_lf = old_lf.strip_suffix('\n').unwrap_or(&old_lf);
    let mut found = whitespace_matches(&lines, old_lf, max);
    let old_line_count = old_lf.split('\n').count();
    let small_enough = lines.len() <= MAX_SIMILAR_SCAN_LINES
        && content.len() <= MAX_SIMILAR_SCAN_BYTES
        && old_line_count <= MAX_SIMILAR_OLD_LINES;
    if small_enough {
        found.extend(similar_windows(&lines, old_lf, old_line_count));
    }
    pick_distinct(found, max)
}

/// A file's lines, without their "\n" or "\r\n".
struct Lines<'a> {
    content: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(content: &'a str) -> Lines<'a> {
        let mut starts = Vec::new();
        if !content.is_empty() {
            starts.push(0);
        }
        let breaks = memchr_iter(b'\n', content.as_bytes()).map(|at| at + 1);
        starts.extend(breaks.filter(|&start| start < content.len()));
        Lines { content, starts }
    }

    fn len(&self) -> usize {
        self.starts.len()
    }

    fn get(&self, index: usize) -> &'a str {
        let end = self.starts.get(index + 1).copied().unwrap_or(self.content.len());
        let line = &self.content[self.starts[index]..end];
        let line = line.strip_suffix('\n').unwrap_or(line);
        line.strip_suffix('\r').unwrap_or(line)
    }

    /// Lines `first..=last` (0-based) joined with "\n".
    fn join(&self, first: usize, last: usize) -> String {
        (first..=last).map(|i| self.get(i)).collect::<Vec<_>>().join("\n")
    }

    /// A candidate for lines `first..=last` (0-based), its text kept short.
    fn candidate(&self, first: usize, last: usize, similarity: f64, reason: &str) -> Candidate {
        let shown_last = last.min(first + MAX_TEXT_LINES - 1);
        let mut text = self.join(first, shown_last);
        if let Some((cut, _)) = text.char_indices().nth(MAX_TEXT_CHARS) {
            text.truncate(cut);
        }
        Candidate { line: first + 1, end_line: last + 1, text, similarity, reason: reason.to_string() }
    }
}

fn is_kept(c: &char) -> bool {
    !c.is_whitespace()
}

/// Appends the UTF-8 of `text` without its whitespace.
fn squash_into(out: &mut Vec<u8>, text: &str) {
    // Most lines are ASCII; skipping char decoding for them halves the scan of a large file.
    if text.is_ascii() {
        out.extend(text.bytes().filter(|&b| !char::from(b).is_whitespace()));
    } else {
        for c in text.chars().filter(is_kept) {
            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
    }
}

/// Spans whose text, all whitespace removed, contains `old` (LF line breaks, no final one)
/// with all whitespace removed.
fn whitespace_matches(lines: &Lines, old: &str, max: usize) -> Vec<Candidate> {
    let mut needle = Vec::new();
    squash_into(&mut needle, old);
    if needle.is_empty() {
        return Vec::new();
    }
    let mut squashed = Vec::with_capacity(lines.content.len());
    let mut squashed_starts = Vec::with_capacity(lines.len());
    for index in 0..lines.len() {
        squashed_starts.push(squashed.len());
        squash_into(&mut squashed, lines.get(index));
    }
    // The line holding squashed byte `at`: the last line starting at or before it (lines that
    // squash to nothing start at the same place as the next one and hold nothing).
    let line_of = |at: usize| squashed_starts.partition_point(|&start| start <= at) - 1;
    memmem::find_iter(&squashed, &needle)
        .map(|at| (line_of(at), line_of(at + needle.len() - 1)))
        .take(max * 4)
        .map(|(first, last)| {
            // Lines are compared without "\r", so a match there means only line endings differ.
            let reason =
                if lines.join(first, last).contains(old) { "line endings differ" } else { "whitespace differs" };
            lines.candidate(first, last, 1.0, reason)
        })
        .collect()
}

/// The windows of `k` lines most similar to `old`, by `similar`'s ratio, best first.
fn similar_windows(lines: &Lines, old: &str, k: usize) -> Vec<Candidate> {
    let k = k.min(lines.len());
    if k == 0 {
        return Vec::new();
    }
    let scores = super::bigrams::bigram_scores(lines.len(), |i| lines.get(i), old, k);
    let wanted = old.trim();
    let mut ranked: Vec<Candidate> = prefilter(&scores, k)
        .into_iter()
        .filter_map(|first| {
            let last = first + k - 1;
            let window = lines.join(first, last);
            let score =
                if k == 1 { similarity_within(wanted, window.trim()) } else { similarity(wanted, window.trim()) };
            (score >= MIN_SIMILARITY).then(|| lines.candidate(first, last, score, "similar text"))
        })
        .collect();
    ranked.sort_by(|a, b| b.similarity.total_cmp(&a.similarity).then(a.line.cmp(&b.line)));
    ranked
}

fn similarity(a: &str, b: &str) -> f64 {
    let mut config = TextDiff::configure();
    config.timeout(RATIO_TIMEOUT);
    let diff = if a.len() + b.len() > CHAR_DIFF_LIMIT { config.diff_words(a, b) } else { config.diff_chars(a, b) };
    // Three decimals are all a reader can use, and they keep the JSON short.
    (f64::from(diff.ratio()) * 1000.0).round() / 1000.0
}

/// Longest one-line `old_string` looked for inside a longer line, and the longest such line:
/// the search compares `old` with every stretch of the line as long as it.
const WITHIN_OLD_MAX: usize = 80;
const WITHIN_LINE_MAX: usize = 400;

/// How like `wanted` (one line) the most similar stretch of `line` is: a short `old_string`
/// with a typo (`Hello Wrld`) is a small part of its line, so the whole line alone would never
/// look similar enough.
fn similarity_within(wanted: &str, line: &str) -> f64 {
    let whole = similarity(wanted, line);
    let n = wanted.chars().count();
    let starts: Vec<usize> = line.char_indices().map(|(at, _)| at).chain([line.len()]).collect();
    if !(4..=WITHIN_OLD_MAX).contains(&n) || starts.len() > WITHIN_LINE_MAX || starts.len() <= n + 1 {
        return whole;
    }
    // Stretches one character shorter and longer too: the typo may have dropped or added one.
    let mut best = whole;
    for (i, &from) in starts.iter().enumerate() {
        for len in [n - 1, n, n + 1] {
            if let Some(&to) = starts.get(i + len) {
                best = best.max(similarity(wanted, &line[from..to]));
            }
        }
    }
    best
}

/// Window starts worth ranking exactly: the best by bigram score, plus the best few that do not
/// overlap each other, so that neighbours of one good spot do not crowd out a second spot.
fn prefilter(scores: &[f32], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).filter(|&i| scores[i] > 0.0).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    let mut picked: Vec<usize> = order.iter().copied().take(PREFILTER_KEEP).collect();
    let mut spread: Vec<usize> = Vec::new();
    for &first in &order {
        if spread.len() == PREFILTER_SPREAD {
            break;
        }
        if spread.iter().all(|&other| first.abs_diff(other) >= k) {
            spread.push(first);
            if !picked.contains(&first) {
                picked.push(first);
            }
        }
    }
    picked
}

/// Best candidates first, skipping any that overlaps one already taken.
fn pick_distinct(found: Vec<Candidate>, max: usize) -> Vec<Candidate> {
    let mut picked: Vec<Candidate> = Vec::new();
    for candidate in found {
        if picked.len() == max {
            break;
        }
        let overlaps = |other: &Candidate| candidate.line <= other.end_line && other.line <= candidate.end_line;
        if !picked.iter().any(overlaps) {
            picked.push(candidate);
        }
    }
    picked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered_lines(count: usize) -> String {
        (1..=count).map(|i| format!("let value_{i} = compute({i}, {});\n", i * 7)).collect()
    }

    #[test]
    fn finds_a_span_that_differs_only_in_whitespace() {
        let content = "fn main() {\n    let x = f(a, b);\n    println!(\"{x}\");\n}\n";
        let found = nearest_candidates(content, "let x = f(a,b);\nprintln!(\"{x}\");", 3);
        assert_eq!(found[0].line, 2);
        assert_eq!(found[0].end_line, 3);
        assert_eq!(found[0].reason, "whitespace differs");
        assert_eq!(found[0].similarity, 1.0);
        assert_eq!(found[0].text, "    let x = f(a, b);\n    println!(\"{x}\");");
    }

    #[test]
    fn whitespace_match_can_join_lines_the_file_splits() {
        let content = "call(\n    first,\n    second,\n);\n";
        let found = nearest_candidates(content, "call(first, second,);", 3);
        assert_eq!((found[0].line, found[0].end_line), (1, 4));
        assert_eq!(found[0].reason, "whitespace differs");
    }

    #[test]
    fn reports_line_endings_when_only_they_differ() {
        let content = "a\r\nb\r\nc\r\n";
        let found = nearest_candidates(content, "a\nb", 3);
        assert_eq!((found[0].line, found[0].end_line), (1, 2));
        assert_eq!(found[0].reason, "line endings differ");
    }

    #[test]
    fn finds_a_line_with_a_one_character_typo() {
        let content = numbered_lines(300);
        let found = nearest_candidates(&content, "let value_150 = compute(150, 1051);", 3);
        assert_eq!(found[0].line, 150);
        assert_eq!(found[0].end_line, 150);
        assert_eq!(found[0].text, "let value_150 = compute(150, 1050);");
        assert_eq!(found[0].reason, "similar text");
        assert!(found[0].similarity > 0.9, "{}", found[0].similarity);
        assert!(found.iter().all(|c| c.similarity >= MIN_SIMILARITY));
        assert!(found.len() <= 3);
    }

    #[test]
    fn finds_a_short_old_string_with_a_typo_inside_a_longer_line() {
        let content = "@Entry\nstruct Index {\n  @State message: string = 'Hello World';\n  build() {}\n}\n";
        let found = nearest_candidates(content, "Hello Wrld", 3);
        assert_eq!(found[0].line, 3, "{found:?}");
        assert_eq!(found[0].text, "  @State message: string = 'Hello World';");
        assert!(found[0].similarity >= 0.9, "{}", found[0].similarity);
        assert!(nearest_candidates(content, "Goodbye Moon", 3).is_empty(), "unrelated text still finds nothing");
    }

    #[test]
    fn finds_a_multi_line_span_with_a_typo() {
        let content = numbered_lines(100);
        let old = "let value_41 = compute(41, 287);\nlet valeu_42 = compute(42, 294);\n";
        let found = nearest_candidates(&content, old, 3);
        assert_eq!((found[0].line, found[0].end_line), (41, 42));
        assert_eq!(found[0].reason, "similar text");
    }

    #[test]
    fn candidates_are_best_first_and_do_not_overlap() {
        let content = numbered_lines(100);
        let found = nearest_candidates(&content, "let value_41 = compute(41, 28);\nlet value_42", 3);
        for pair in found.windows(2) {
            assert!(pair[0].end_line < pair[1].line || pair[1].end_line < pair[0].line);
            if pair[0].reason == pair[1].reason {
                assert!(pair[0].similarity >= pair[1].similarity);
            }
        }
    }

    #[test]
    fn unrelated_text_gives_no_candidates() {
        let content = numbered_lines(50);
        assert!(nearest_candidates(&content, "#[derive(Debug)]\nstruct Zebra;", 3).is_empty());
        assert!(nearest_candidates(&content, "  \n ", 3).is_empty());
        assert!(nearest_candidates("", "anything", 3).is_empty());
    }

    #[test]
    fn long_spans_are_shown_short() {
        let content = "x\n".repeat(50);
        let found = nearest_candidates(&content, &"x ".repeat(30), 1);
        assert_eq!((found[0].line, found[0].end_line), (1, 30));
        assert_eq!(found[0].text.lines().count(), MAX_TEXT_LINES);
        let long_line = "y".repeat(5000);
        let found = nearest_candidates(&long_line, &format!(" {long_line}"), 1);
        assert_eq!(found[0].text.chars().count(), MAX_TEXT_CHARS);
    }

    #[test]
    fn huge_files_get_only_the_whitespace_search() {
        let content = "same line\n".repeat(MAX_SIMILAR_SCAN_LINES + 1) + "needle ( x )\n";
        let found = nearest_candidates(&content, "needle(x)", 3);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].line, MAX_SIMILAR_SCAN_LINES + 2);
        assert!(nearest_candidates(&content, "same lime", 3).is_empty());
    }
}
