//! JSON5 with the place of every value: the project's config files parsed by `jsonc-parser`
//! (dprint's maintained parser, which keeps each node's byte range and, with its default
//! options, reads JSON5: comments, trailing commas, unquoted keys, single quotes, hex, `+1`,
//! `.5`, `Infinity`/`NaN`, JSON5 escapes). The `json5` crate rein decodes with elsewhere keeps
//! no positions, and a problem an agent must fix needs its line and column.

use jsonc_parser::ast::Value;
use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions};

/// A file's text, and where an offset of it is as a person counts: line and column from 1,
/// the column in characters.
pub struct Located {
    pub file: String,
    pub text: String,
}

/// A text that is not JSON5: where and why.
pub struct SyntaxError {
    pub offset: usize,
    pub message: String,
}

impl Located {
    pub fn position(&self, offset: usize) -> (usize, usize) {
        let before = &self.text[..floor_char_boundary(&self.text, offset.min(self.text.len()))];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |at| at + 1);
        (line, before[line_start..].chars().count() + 1)
    }

    /// The value the whole text holds.
    pub fn parse(&self) -> Result<Value<'_>, SyntaxError> {
        let collect = CollectOptions { comments: CommentCollectionStrategy::Off, tokens: false };
        let parsed = jsonc_parser::parse_to_ast(&self.text, &collect, &json5_options())
            .map_err(|e| SyntaxError { offset: e.range().start, message: e.kind().to_string() })?;
        parsed.value.ok_or(SyntaxError { offset: 0, message: "the file holds no value".into() })
    }
}

/// JSON5 and no more: jsonc-parser's defaults also accept a missing comma, which JSON5 (and so
/// hvigor, reading with the npm `json5` package) refuses.
fn json5_options() -> ParseOptions {
    ParseOptions { allow_missing_commas: false, ..ParseOptions::default() }
}

fn floor_char_boundary(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonc_parser::common::Ranged;

    #[test]
    fn json5_parses_with_positions_and_a_missing_comma_does_not() {
        let file =
            Located { file: "a.json5".into(), text: "{\n  // c\n  a: 'x',\n  b: +0x1F, c: [.5, Infinity,],\n}".into() };
        let value = file.parse().unwrap_or_else(|e| panic!("{}", e.message));
        let a = value.as_object().unwrap().get("a").unwrap();
        assert_eq!(file.position(a.value.range().start), (3, 6));
        let broken = Located { file: "b.json5".into(), text: "{\n  \"a\": 1\n  \"b\": 2\n}".into() };
        let Err(error) = broken.parse() else { panic!("a missing comma is not JSON5") };
        // Where the comma belongs: after the value on line 2.
        assert_eq!(broken.position(error.offset).0, 2, "{}", error.message);
        assert!(error.message.contains("comma"), "{}", error.message);
    }
}
