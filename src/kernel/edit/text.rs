//! Small facts about file bytes that reading and editing share: hashes, the UTF-8 BOM, line
//! endings, line counts, and turning byte offsets into line/column locations.

use memchr::{memchr_iter, memmem, memrchr};

pub use crate::kernel::reported::Location;

pub const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Splits a leading UTF-8 BOM off: `(bom, rest)`, where `bom` is empty when there is none.
pub fn split_bom(bytes: &[u8]) -> (&[u8], &[u8]) {
    let bom_len = if bytes.starts_with(UTF8_BOM) { UTF8_BOM.len() } else { 0 };
    bytes.split_at(bom_len)
}

/// Whether the file's line ending is CRLF: it has at least one "\r\n" and no more bare "\n"
/// breaks than CRLF ones.
pub fn uses_crlf(bytes: &[u8]) -> bool {
    let crlf = memmem::find_iter(bytes, b"\r\n").count();
    let breaks = memchr_iter(b'\n', bytes).count();
    crlf > 0 && crlf >= breaks - crlf
}

/// `s` with every line break written as "\r\n" (existing "\r\n" stay as they are).
pub fn to_crlf(s: &str) -> String {
    s.replace("\r\n", "\n").replace('\n', "\r\n")
}

/// Number of lines: a final line without a terminator counts, an empty file has none.
#[cfg(test)]
pub fn count_lines(bytes: &[u8]) -> usize {
    let breaks = memchr_iter(b'\n', bytes).count();
    match bytes.last() {
        None | Some(b'\n') => breaks,
        Some(_) => breaks + 1,
    }
}

/// Characters in `bytes`, counting every byte that does not continue a UTF-8 sequence (so
/// invalid bytes count one each).
fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

/// Turns byte offsets into [`Location`]s (1-based line, 1-based column in characters).
///
/// It walks forward from the offset it located last, so a sorted run of offsets costs one pass
/// over the bytes up to the last of them. A leading UTF-8 BOM is not counted as a column.
pub struct LineLocator<'a> {
    bytes: &'a [u8],
    body_start: usize,
    pos: usize,
    line: usize,
    column: usize,
}

impl<'a> LineLocator<'a> {
    pub fn new(bytes: &'a [u8]) -> LineLocator<'a> {
        let body_start = split_bom(bytes).0.len();
        LineLocator { bytes, body_start, pos: body_start, line: 1, column: 1 }
    }

    /// The location of byte `offset`. Offsets past the end are located at the end; an offset
    /// before the previous one restarts from the top of the buffer (correct, but slower).
    pub fn locate(&mut self, offset: usize) -> Location {
        let target = offset.clamp(self.body_start, self.bytes.len());
        if target < self.pos {
            self.pos = self.body_start;
            self.line = 1;
            self.column = 1;
        }
        let span = &self.bytes[self.pos..target];
        match memrchr(b'\n', span) {
            Some(last_break) => {
                self.line += memchr_iter(b'\n', span).count();
                self.column = 1 + char_count(&span[last_break + 1..]);
            }
            None => self.column += char_count(span),
        }
        self.pos = target;
        Location { offset, line: self.line, column: self.column }
    }
}

/// Locations of sorted `offsets` in `bytes`.
pub fn locate_all(bytes: &[u8], offsets: &[usize]) -> Vec<Location> {
    let mut locator = LineLocator::new(bytes);
    offsets.iter().map(|&offset| locator.locate(offset)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(offset: usize, line: usize, column: usize) -> Location {
        Location { offset, line, column }
    }

    #[test]
    fn bom_is_split_off_only_at_the_start() {
        assert_eq!(split_bom(b"\xEF\xBB\xBFhi"), (UTF8_BOM, &b"hi"[..]));
        assert_eq!(split_bom(b"hi\xEF\xBB\xBF"), (&b""[..], &b"hi\xEF\xBB\xBF"[..]));
        assert_eq!(split_bom(b""), (&b""[..], &b""[..]));
    }

    #[test]
    fn crlf_needs_at_least_as_many_crlf_breaks_as_bare_ones() {
        assert!(uses_crlf(b"a\r\nb\r\n"));
        assert!(uses_crlf(b"a\r\nb\n"));
        assert!(!uses_crlf(b"a\r\nb\nc\n"));
        assert!(!uses_crlf(b"a\nb\n"));
        assert!(!uses_crlf(b"no breaks"));
        assert!(!uses_crlf(b"lone\rcr\n"));
        assert!(!uses_crlf(b""));
    }

    #[test]
    fn to_crlf_converts_bare_breaks_and_keeps_crlf() {
        assert_eq!(to_crlf("a\nb\r\nc"), "a\r\nb\r\nc");
        assert_eq!(to_crlf("a\r\n"), "a\r\n");
        assert_eq!(to_crlf("no breaks"), "no breaks");
    }

    #[test]
    fn count_lines_counts_an_unterminated_last_line() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"a"), 1);
        assert_eq!(count_lines(b"a\n"), 1);
        assert_eq!(count_lines(b"a\nb"), 2);
        assert_eq!(count_lines(b"\n\n"), 2);
    }

    #[test]
    fn locations_have_one_based_lines_and_char_columns() {
        let text = "ab\né€x\n\nz".as_bytes();
        let offsets = [0, 1, 3, 5, 8, 9, 10, 11];
        assert_eq!(
            locate_all(text, &offsets),
            vec![
                loc(0, 1, 1),
                loc(1, 1, 2),
                loc(3, 2, 1),
                loc(5, 2, 2),
                loc(8, 2, 3),
                loc(9, 2, 4),
                loc(10, 3, 1),
                loc(11, 4, 1),
            ]
        );
    }

    #[test]
    fn bom_is_not_a_column_but_offsets_include_it() {
        let text = b"\xEF\xBB\xBFab\ncd";
        assert_eq!(locate_all(text, &[3, 4, 6]), vec![loc(3, 1, 1), loc(4, 1, 2), loc(6, 2, 1)]);
    }

    #[test]
    fn locating_backwards_restarts_and_stays_correct() {
        let text = b"a\nb\nc\n";
        let mut locator = LineLocator::new(text);
        assert_eq!(locator.locate(4), loc(4, 3, 1));
        assert_eq!(locator.locate(2), loc(2, 2, 1));
    }

    #[test]
    fn many_offsets_in_a_large_buffer_are_located_in_one_pass() {
        let line = "0123456789\n";
        let text = line.repeat(200_000);
        let offsets: Vec<usize> = (0..200_000).step_by(1000).map(|i| i * line.len() + 4).collect();
        let locations = locate_all(text.as_bytes(), &offsets);
        assert_eq!(locations[0], loc(4, 1, 5));
        assert_eq!(locations[199], loc(offsets[199], 199_001, 5));
    }
}
