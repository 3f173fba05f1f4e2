//! What an edit changed, described without a second copy of the file: the bytes before the
//! first change and after the last one are shared with the file as read.

use std::borrow::Cow;

use super::diff;
use super::replace::Spliced;
use super::text::Location;

pub struct Change {
    /// Leading bytes the old and new content share.
    pub prefix: usize,
    /// Trailing bytes they share (not overlapping `prefix`).
    pub suffix: usize,
    /// The new bytes between them.
    pub middle: Vec<u8>,
}

impl Change {
    pub fn of(before: &[u8], result: &Spliced) -> Change {
        match (&result.base, result.ranges.first(), result.ranges.last()) {
            // A single edit splices the file as read: the change spans its first to last range.
            (Cow::Borrowed(base), Some(first), Some(last)) if base.as_ptr() == before.as_ptr() => {
                let mut middle = Vec::new();
                let mut copied = first.start;
                for range in &result.ranges {
                    middle.extend_from_slice(&base[copied..range.start]);
                    middle.extend_from_slice(&result.with);
                    copied = range.end;
                }
                middle.extend_from_slice(&base[copied..last.end]);
                Change { prefix: first.start, suffix: before.len() - last.end, middle }
            }
            _ => {
                let after = result.to_vec();
                let prefix = diff::common_prefix_len(before, &after);
                let suffix = diff::common_suffix_len(&before[prefix..], &after[prefix..]);
                Change { prefix, suffix, middle: after[prefix..after.len() - suffix].to_vec() }
            }
        }
    }

    /// The unified diff; `located`, the edit's first location when the caller has it, spares
    /// counting the lines before the change again when it is where the change starts.
    pub fn diff(&self, path: &str, before: &[u8], located: Option<&Location>) -> String {
        let lines_before_prefix = located.filter(|l| l.offset == self.prefix).map(|l| l.line - 1);
        diff::unified_diff_of_change(path, before, self.prefix, self.suffix, &self.middle, lines_before_prefix)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::edit::replace::{apply_edits, Edit};

    fn edit(old: &str, new: &str, all: bool) -> Edit {
        Edit { old_string: old.into(), new_string: new.into(), replace_all: all }
    }

    #[test]
    fn describes_single_multi_and_replace_all_edits_exactly() {
        let plain: &[u8] = b"alpha\nbeta\ngamma\nbeta\ndelta\n";
        // A BOM (no column, no line) and CRLF endings, the change past the context's lines.
        let marked: &[u8] = b"\xEF\xBB\xBFa\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng\r\n";
        let cases = [
            (plain, vec![edit("gamma", "GAMMA", false)]),
            (plain, vec![edit("beta", "b", true)]),
            (plain, vec![edit("alpha", "a", false), edit("delta", "d", false)]),
            (marked, vec![edit("f", "F", false)]),
            (marked, vec![edit("e\nf", "E\nF", false)]),
            (marked, vec![edit("a", "A", false)]),
        ];
        for (before, edits) in cases {
            let applied = apply_edits("f", before, &edits).unwrap();
            let after = applied.result.to_vec();
            let change = Change::of(before, &applied.result);
            let rebuilt = [&before[..change.prefix], &change.middle, &before[before.len() - change.suffix..]].concat();
            assert_eq!(rebuilt, after);
            assert_eq!(change.diff("f", before, None), diff::unified_diff("f", before, &after));
            let first = applied.reports[0].locations.first();
            assert_eq!(change.diff("f", before, first), diff::unified_diff("f", before, &after), "{first:?}");
        }
    }
}
