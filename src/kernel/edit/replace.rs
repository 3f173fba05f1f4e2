//! The exact-match replace engine behind edit_file and multi_edit: pure, no I/O.
//!
//! `old_string` is matched byte for byte (never a pattern, never fuzzy) and `new_string` is
//! inserted literally. A leading UTF-8 BOM is kept and is never part of a match. In a file
//! whose line ending is CRLF, "\n" in both strings stands for "\r\n".

use std::borrow::Cow;
use std::ops::Range;

use memchr::memmem::Finder;
use serde::{Deserialize, Serialize};

use super::candidates::nearest_candidates;
use super::text::{locate_all, split_bom, to_crlf, uses_crlf, Location};
use crate::kernel::KernelError;

/// Locations reported for one edit or one OLD_STRING_NOT_UNIQUE refusal.
pub const MAX_LOCATIONS: usize = 20;
/// Counting overlapping occurrences for OLD_STRING_NOT_UNIQUE stops here, so a reported count
/// equal to this means "at least this many".
pub const MAX_COUNTED_OCCURRENCES: usize = 10_000;
/// Nearest spans offered when `old_string` is not found.
pub const MAX_CANDIDATES: usize = 3;

/// One exact replacement: `old_string` must occur exactly once (or, with `replace_all`, at
/// least once) and becomes `new_string`.
#[derive(Debug, Clone, Deserialize)]
pub struct Edit {
    /// The text to find, exactly as it is in the file.
    pub old_string: String,
    /// What it becomes.
    pub new_string: String,
    /// Replace every occurrence instead of refusing a second one.
    #[serde(default)]
    pub replace_all: bool,
}

/// What one edit did. Offsets are byte offsets in the whole file, a leading BOM included,
/// taken in the buffer as it was just before this edit.
#[derive(Debug, Clone, Serialize)]
pub struct EditReport {
    /// How many places it replaced.
    pub replacements: usize,
    /// Where.
    pub locations: Vec<Location>,
}

/// The edited content without a second copy of the file: the buffer the last edit saw, and
/// the byte ranges of it that edit replaced (sorted, non-overlapping), all with the same bytes.
#[derive(Debug)]
pub struct Spliced<'a> {
    pub base: Cow<'a, [u8]>,
    pub ranges: Vec<Range<usize>>,
    pub with: Vec<u8>,
}

impl Spliced<'_> {
    /// The new content, piece by piece, in order.
    pub fn chunks(&self) -> impl Iterator<Item = &[u8]> {
        let mut copied = 0;
        let mut pieces = Vec::with_capacity(self.ranges.len() * 2 + 1);
        for range in &self.ranges {
            pieces.push(&self.base[copied..range.start]);
            pieces.push(self.with.as_slice());
            copied = range.end;
        }
        pieces.push(&self.base[copied..]);
        pieces.into_iter().filter(|piece| !piece.is_empty())
    }

    pub(crate) fn len(&self) -> usize {
        let removed: usize = self.ranges.iter().map(|r| r.len()).sum();
        self.base.len() - removed + self.ranges.len() * self.with.len()
    }

    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len());
        self.chunks().for_each(|piece| out.extend_from_slice(piece));
        out
    }
}

#[derive(Debug)]
pub struct EditApplied<'a> {
    pub result: Spliced<'a>,
    pub reports: Vec<EditReport>,
}

/// Argument checks that need no file: EMPTY_OLD_STRING then NO_CHANGE, per edit in order.
/// With more than one edit, errors carry edit_index (0-based) via for_edit; a single edit has none.
/// An empty list of edits is INVALID_ARGS.
pub fn check_edits(edits: &[Edit]) -> Result<(), KernelError> {
    if edits.is_empty() {
        return Err(KernelError::invalid("edits is empty. Give at least one {old_string, new_string} pair."));
    }
    for (index, edit) in edits.iter().enumerate() {
        check_pair(&edit.old_string, &edit.new_string).map_err(|err| attribute(err, index, edits.len()))?;
    }
    Ok(())
}

/// Apply edits in order to the in-memory bytes. All or nothing: the first refusal is returned
/// (with its edit_index when there is more than one edit) and no content.
///
/// Reported offsets are byte offsets in the whole buffer, including a leading UTF-8 BOM, even
/// though the BOM itself never takes part in a match.
pub fn apply_edits<'a>(path: &str, original: &'a [u8], edits: &[Edit]) -> Result<EditApplied<'a>, KernelError> {
    check_edits(edits)?;
    // Decided once, from the file as read, so every edit of a multi-edit writes the same ending.
    // Only a text with a line break is changed by it: an edit within one line spares the
    // two passes over the file that counting its line endings takes.
    let breaks = edits.iter().any(|e| e.old_string.contains('\n') || e.new_string.contains('\n'));
    let crlf = breaks && uses_crlf(original);
    let body_start = split_bom(original).0.len();
    let mut current = Spliced { base: Cow::Borrowed(original), ranges: Vec::new(), with: Vec::new() };
    let mut reports = Vec::with_capacity(edits.len());
    for (index, edit) in edits.iter().enumerate() {
        // Each edit of a multi-edit sees the text the ones before it produced.
        if !current.ranges.is_empty() {
            current = Spliced { base: Cow::Owned(current.to_vec()), ranges: Vec::new(), with: Vec::new() };
        }
        let (replaced, report) = apply_edit(path, &current.base, body_start, edit, crlf)
            .map_err(|err| attribute(err, index, edits.len()))?;
        current.ranges = replaced.ranges;
        current.with = replaced.with;
        reports.push(report);
    }
    Ok(EditApplied { result: current, reports })
}

fn check_pair(old: &str, new: &str) -> Result<(), KernelError> {
    if old.is_empty() {
        Err(KernelError::EmptyOldString { edit_index: None })
    } else if old == new {
        Err(KernelError::NoChange { edit_index: None })
    } else {
        Ok(())
    }
}

/// A single edit reports no edit_index; in a multi-edit every refusal names its edit.
fn attribute(err: KernelError, index: usize, edit_count: usize) -> KernelError {
    if edit_count > 1 {
        err.for_edit(index)
    } else {
        err
    }
}

/// `text` written with the file's line ending.
fn with_file_line_endings(text: &str, crlf: bool) -> Cow<'_, str> {
    if crlf && text.contains('\n') {
        Cow::Owned(to_crlf(text))
    } else {
        Cow::Borrowed(text)
    }
}

fn apply_edit(
    path: &str,
    buffer: &[u8],
    body_start: usize,
    edit: &Edit,
    crlf: bool,
) -> Result<(Replaced, EditReport), KernelError> {
    let old = with_file_line_endings(&edit.old_string, crlf);
    let new = with_file_line_endings(&edit.new_string, crlf);
    // "a\n" and "a\r\n" are different arguments but the same text in a CRLF file.
    check_pair(&old, &new)?;
    let finder = Finder::new(old.as_bytes());
    let replaced = if edit.replace_all {
        replace_every(buffer, body_start, &finder, new.as_bytes())
    } else {
        replace_unique(buffer, body_start, &finder, new.as_bytes())
    };
    let replaced = replaced.map_err(|refusal| match refusal {
        Refusal::NotFound => not_found(path, &buffer[body_start..], &edit.old_string),
        Refusal::NotUnique { count, offsets } => KernelError::OldStringNotUnique {
            path: path.to_string(),
            edit_index: None,
            count,
            locations: locate_all(buffer, &offsets),
        },
    })?;
    let locations = locate_all(buffer, &replaced.offsets);
    let report = EditReport { replacements: replaced.ranges.len(), locations };
    Ok((replaced, report))
}

struct Replaced {
    /// Every replaced range of the buffer, in order.
    ranges: Vec<Range<usize>>,
    with: Vec<u8>,
    /// The first [`MAX_LOCATIONS`] replaced positions, in the buffer before the edit.
    offsets: Vec<usize>,
}

enum Refusal {
    NotFound,
    NotUnique { count: usize, offsets: Vec<usize> },
}

/// Replace the one occurrence of the needle, refusing when there are none or several.
/// Occurrences may overlap ("aa" occurs twice in "aaa").
fn replace_unique(buffer: &[u8], body_start: usize, finder: &Finder, new: &[u8]) -> Result<Replaced, Refusal> {
    let body = &buffer[body_start..];
    let mut offsets = Vec::new();
    let mut count = 0;
    let mut from = 0;
    while count < MAX_COUNTED_OCCURRENCES {
        let Some(found) = finder.find(&body[from..]) else {
            break;
        };
        let at = from + found;
        count += 1;
        if offsets.len() < MAX_LOCATIONS {
            offsets.push(body_start + at);
        }
        from = at + 1;
    }
    match count {
        0 => Err(Refusal::NotFound),
        1 => {
            let at = offsets[0];
            Ok(Replaced {
                ranges: vec![Range { start: at, end: at + finder.needle().len() }],
                with: new.to_vec(),
                offsets,
            })
        }
        _ => Err(Refusal::NotUnique { count, offsets }),
    }
}

/// Replace every non-overlapping occurrence, left to right.
fn replace_every(buffer: &[u8], body_start: usize, finder: &Finder, new: &[u8]) -> Result<Replaced, Refusal> {
    let old_len = finder.needle().len();
    let ranges: Vec<Range<usize>> =
        finder.find_iter(&buffer[body_start..]).map(|found| body_start + found..body_start + found + old_len).collect();
    if ranges.is_empty() {
        return Err(Refusal::NotFound);
    }
    let offsets = ranges.iter().take(MAX_LOCATIONS).map(|r| r.start).collect();
    Ok(Replaced { ranges, with: new.to_vec(), offsets })
}

fn not_found(path: &str, body: &[u8], old_string: &str) -> KernelError {
    let text = String::from_utf8_lossy(body);
    KernelError::OldStringNotFound {
        path: path.to_string(),
        edit_index: None,
        candidates: nearest_candidates(&text, old_string, MAX_CANDIDATES),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    fn edit(old: &str, new: &str) -> Edit {
        Edit { old_string: old.into(), new_string: new.into(), replace_all: false }
    }

    fn edit_all(old: &str, new: &str) -> Edit {
        Edit { replace_all: true, ..edit(old, new) }
    }

    fn apply<'a>(original: &'a str, edits: &[Edit]) -> Result<EditApplied<'a>, KernelError> {
        apply_edits("f.txt", original.as_bytes(), edits)
    }

    fn applied_text(original: &str, edits: &[Edit]) -> String {
        String::from_utf8(apply(original, edits).unwrap().result.to_vec()).unwrap()
    }

    /// The reports as JSON, the way a caller sees them.
    fn reports(original: &str, edits: &[Edit]) -> Value {
        serde_json::to_value(apply(original, edits).unwrap().reports).unwrap()
    }

    /// The refusal as a caller sees it: code and details.
    fn refusal(original: &str, edits: &[Edit]) -> Value {
        let err = apply(original, edits).unwrap_err();
        json!({"code": err.code().as_str(), "details": err.details()})
    }

    fn code_of(original: &str, edits: &[Edit]) -> Value {
        refusal(original, edits)["code"].clone()
    }

    #[test]
    fn replaces_the_unique_occurrence_and_reports_where() {
        let done = apply("one\ntwo\nthree\n", &[edit("two", "2")]).unwrap();
        assert_eq!(done.result.to_vec(), b"one\n2\nthree\n");
        assert_eq!(
            serde_json::to_value(&done.reports).unwrap(),
            json!([{"replacements": 1, "locations": [{"offset": 4, "line": 2, "column": 1}]}])
        );
    }

    #[test]
    fn replacement_text_is_literal() {
        let text = applied_text("x = a;\n", &[edit("a", "$& \\1 $1 ${0}")]);
        assert_eq!(text, "x = $& \\1 $1 ${0};\n");
        assert_eq!(applied_text("a.b\n", &[edit(".", "$&")]), "a$&b\n");
        assert_eq!(code_of("abc\n", &[edit("a.c", "x")]), "OLD_STRING_NOT_FOUND");
    }

    #[test]
    fn crlf_file_stays_crlf_when_arguments_use_lf() {
        let original = "fn a() {\r\n    1\r\n}\r\n";
        let edits = [edit("{\n    1\n}", "{\n    2\n    3\n}")];
        assert_eq!(applied_text(original, &edits), "fn a() {\r\n    2\r\n    3\r\n}\r\n");
        assert_eq!(reports(original, &edits)[0]["locations"], json!([{"offset": 7, "line": 1, "column": 8}]));
        assert_eq!(applied_text("a\r\nb\r\n", &[edit("a\r\nb", "b\r\na")]), "b\r\na\r\n");
    }

    #[test]
    fn lf_file_takes_arguments_as_given() {
        assert_eq!(applied_text("a\nb\n", &[edit("a\nb", "b\na")]), "b\na\n");
        let refused = refusal("a\nb\n", &[edit("a\r\nb", "x")]);
        assert_eq!(refused["code"], "OLD_STRING_NOT_FOUND");
        assert_eq!(refused["details"]["candidates"][0]["reason"], "line endings differ");
    }

    #[test]
    fn line_ending_only_difference_is_no_change_in_a_crlf_file() {
        let edits = [edit("a\nb", "a\r\nb")];
        assert_eq!(refusal("a\r\nb\r\n", &edits), json!({"code": "NO_CHANGE", "details": null}));
    }

    #[test]
    fn bom_is_kept_and_offsets_count_it() {
        let done = apply_edits("f", b"\xEF\xBB\xBFhello\nworld\n", &[edit("hello", "bye")]);
        let done = done.unwrap();
        assert_eq!(done.result.to_vec(), b"\xEF\xBB\xBFbye\nworld\n");
        let location = serde_json::to_value(done.reports[0].locations[0]).unwrap();
        assert_eq!(location, json!({"offset": 3, "line": 1, "column": 1}));
        let with_bom_char = apply_edits("f", b"\xEF\xBB\xBFhello", &[edit("\u{feff}hello", "x")]);
        assert_eq!(with_bom_char.unwrap_err().code().as_str(), "OLD_STRING_NOT_FOUND");
    }

    #[test]
    fn missing_final_newline_stays_missing() {
        assert_eq!(applied_text("a\nlast", &[edit("last", "end")]), "a\nend");
        let crlf = applied_text("a\r\nb\r\nlast", &[edit("b\nlast", "c\nend")]);
        assert_eq!(crlf, "a\r\nc\r\nend");
    }

    #[test]
    fn overlapping_occurrences_count_as_not_unique() {
        assert_eq!(
            refusal("aaa", &[edit("aa", "b")]),
            json!({"code": "OLD_STRING_NOT_UNIQUE", "details": {"path": "f.txt", "count": 2,
                "locations": [{"offset": 0, "line": 1, "column": 1},
                              {"offset": 1, "line": 1, "column": 2}]}})
        );
    }

    #[test]
    fn not_unique_counts_all_but_lists_twenty_locations() {
        let details = &refusal(&"x\n".repeat(25), &[edit("x", "y")])["details"];
        assert_eq!(details["count"], 25);
        assert_eq!(details["locations"].as_array().unwrap().len(), MAX_LOCATIONS);
        assert_eq!(details["locations"][19], json!({"offset": 38, "line": 20, "column": 1}));
    }

    #[test]
    fn counting_stops_at_the_cap() {
        let original = "a".repeat(MAX_COUNTED_OCCURRENCES + 50);
        let details = &refusal(&original, &[edit("a", "b")])["details"];
        assert_eq!(details["count"], MAX_COUNTED_OCCURRENCES);
    }

    #[test]
    fn replace_all_replaces_non_overlapping_left_to_right() {
        assert_eq!(applied_text("aaaaa", &[edit_all("aa", "b")]), "bba");
        assert_eq!(
            reports("aaaaa", &[edit_all("aa", "b")]),
            json!([{"replacements": 2, "locations": [{"offset": 0, "line": 1, "column": 1},
                                                     {"offset": 2, "line": 1, "column": 3}]}])
        );
        assert_eq!(reports("a b c", &[edit_all("b", "B")])[0]["replacements"], 1);
        assert_eq!(code_of("abc", &[edit_all("z", "y")]), "OLD_STRING_NOT_FOUND");
    }

    #[test]
    fn replace_all_counts_every_replacement_but_lists_twenty() {
        let original = "item\n".repeat(30);
        let edits = [edit_all("item", "thing")];
        assert_eq!(applied_text(&original, &edits), "thing\n".repeat(30));
        let report = &reports(&original, &edits)[0];
        assert_eq!(report["replacements"], 30);
        assert_eq!(report["locations"].as_array().unwrap().len(), MAX_LOCATIONS);
        assert_eq!(report["locations"][19], json!({"offset": 95, "line": 20, "column": 1}));
    }

    #[test]
    fn multi_edit_applies_in_order_on_the_intermediate_buffer() {
        let edits = [edit("alpha", "beta"), edit("beta\n", "gamma\ndelta\n"), edit("end", "END")];
        assert_eq!(applied_text("alpha\nend\n", &edits), "gamma\ndelta\nEND\n");
        let first_locations: Vec<Value> = reports("alpha\nend\n", &edits)
            .as_array()
            .unwrap()
            .iter()
            .map(|report| report["locations"][0].clone())
            .collect();
        assert_eq!(
            first_locations,
            vec![
                json!({"offset": 0, "line": 1, "column": 1}),
                json!({"offset": 0, "line": 1, "column": 1}),
                json!({"offset": 12, "line": 3, "column": 1}),
            ]
        );
    }

    #[test]
    fn multi_edit_is_all_or_nothing_and_names_the_failing_edit() {
        let failing = |original: &str, edits: &[Edit]| {
            let refusal = refusal(original, edits);
            (refusal["code"].clone(), refusal["details"]["edit_index"].clone())
        };
        let not_found = json!("OLD_STRING_NOT_FOUND");
        let edits = [edit("a", "b"), edit("missing", "x")];
        assert_eq!(failing("a\n", &edits), (not_found.clone(), json!(1)));
        // The second edit sees the first one's result, so "a" is gone by then.
        let edits = [edit("a", "b"), edit("a", "c")];
        assert_eq!(failing("a\n", &edits), (not_found.clone(), json!(1)));
        let edits = [edit("x", "y"), edit("b", "c")];
        assert_eq!(failing("b b\n", &edits), (not_found, json!(0)));
        let edits = [edit("a", "b"), edit("c", "d")];
        assert_eq!(failing("a c c\n", &edits), (json!("OLD_STRING_NOT_UNIQUE"), json!(1)));
    }

    #[test]
    fn argument_checks_come_first_and_in_order() {
        let check = |edits: &[Edit]| {
            let err = check_edits(edits).unwrap_err();
            json!({"code": err.code().as_str(), "details": err.details()})
        };
        assert_eq!(check(&[edit("", "x")]), json!({"code": "EMPTY_OLD_STRING", "details": null}));
        assert_eq!(check(&[edit("s", "s")]), json!({"code": "NO_CHANGE", "details": null}));
        let edits = [edit("a", "b"), edit("c", "c"), edit("", "x")];
        assert_eq!(check(&edits), json!({"code": "NO_CHANGE", "details": {"edit_index": 1}}));
        assert_eq!(check(&[])["code"], "INVALID_ARGS");
        // apply_edits checks the arguments before it looks at the content.
        assert_eq!(code_of("", &[edit("", "x")]), "EMPTY_OLD_STRING");
    }

    #[test]
    fn not_found_offers_candidates() {
        let original = "fn main() {\n    let total = 1;\n}\n";
        let details = &refusal(original, &[edit("let  total = 1;", "let total = 2;")])["details"];
        assert_eq!(details["candidates"][0]["line"], 2);
        assert_eq!(details["candidates"][0]["reason"], "whitespace differs");
    }

    #[test]
    fn edit_deserialises_with_replace_all_defaulting_to_false() {
        let parsed: Edit = serde_json::from_str(r#"{"old_string":"a","new_string":"b"}"#).unwrap();
        assert_eq!((parsed.old_string.as_str(), parsed.replace_all), ("a", false));
    }

    #[test]
    fn one_match_near_the_end_of_a_large_buffer() {
        let mut original = "filler line of text\n".repeat(400_000).into_bytes();
        original.extend_from_slice(b"needle\n");
        let done = apply_edits("big", &original, &[edit("needle", "thread")]).unwrap();
        assert_eq!(done.result.len(), original.len());
        assert!(done.result.to_vec().ends_with(b"filler line of text\nthread\n"));
        assert_eq!(done.reports[0].locations[0].line, 400_001);
    }
}
