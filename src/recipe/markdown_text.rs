//! Text from outside rein, made safe to put into report.md (which is also the MCP result text
//! of the `recipe_*` tools and what `rein runs show` prints). A recipe's arguments, a step's
//! name, an error's message, a device's UI text, an app's log line, a file name: an agent or
//! an app controls them, and in markdown a line break, a `|`, a `#` or a `[` would make
//! headings, table rows, list items, links and images of them. Here each becomes text:
//!
//! - every character a screen hides or acts on (line breaks, control and bidi characters: the
//!   list of [`crate::visible`]) is shown escaped as the terminal shows it (`\n`, `\u{202e}`):
//!   a backslash before a letter is text in CommonMark, and no line of outside text starts a
//!   line of the report;
//! - every ASCII punctuation character that starts or ends markdown structure anywhere in a
//!   line gets a backslash: `\` `` ` `` `*` `_` `[` `]` `<` `>` `#` `|` `!` `~` `&` (the last
//!   for entities, `&#10;`, which would bring back what the first rule showed);
//! - and at the start of the text (where a line of the report may start), `-` `+` `=` and a
//!   number's `.` or `)`: list items, setext underlines, ordered lists; a first space is
//!   written `&#32;` (indentation makes code blocks, and a space takes no backslash).
//!
//! Code spans and fenced blocks take no backslash escapes (CommonMark 6.1, 4.5): their fence is
//! made longer than any run of backticks in the text instead.

use crate::visible;

/// Punctuation escaped wherever it is.
const ALWAYS: &[char] = &['\\', '`', '*', '_', '[', ']', '<', '>', '#', '|', '!', '~', '&'];
/// Punctuation escaped at the start of the text (after spaces), where it may begin a block.
const AT_START: &[char] = &['-', '+', '='];

/// `text` as markdown inline text: shown as it is, making no structure, on one line. Safe in a
/// heading, a list item and a table cell.
pub fn text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut at = Start::Spaces;
    let mut prev = ' ';
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        // An underscore inside a word never opens or closes emphasis (CommonMark 6.2): kept
        // so that `app_launch` reads as written.
        let in_word = c == '_' && prev.is_alphanumeric() && chars.peek().is_some_and(|n| n.is_alphanumeric());
        prev = c;
        let escaped = !in_word
            && match at {
                Start::Spaces if c == ' ' && out.is_empty() => {
                    // Spaces before a line's text are indentation (after a list marker, five make
                    // a code block), and a space takes no backslash: the first one is written as a
                    // character reference, which is text.
                    out.push_str("&#32;");
                    continue;
                }
                Start::Spaces if c == ' ' => false,
                Start::Spaces if c.is_ascii_digit() => {
                    at = Start::Digits;
                    false
                }
                Start::Digits if c.is_ascii_digit() => false,
                Start::Spaces => {
                    at = Start::Past;
                    AT_START.contains(&c) || ALWAYS.contains(&c)
                }
                Start::Digits => {
                    at = Start::Past;
                    c == '.' || c == ')' || ALWAYS.contains(&c)
                }
                Start::Past => ALWAYS.contains(&c),
            };
        if escaped {
            out.push('\\');
            out.push(c);
        } else {
            visible::push_on_line(&mut out, c);
        }
    }
    out
}

/// Where [`text`] is: among the spaces a block may start after, in a number that may start an
/// ordered list, or past both.
enum Start {
    Spaces,
    Digits,
    Past,
}

/// `text` as a markdown code span, shown as it is on one line (not for a table cell, where a
/// `|` ends the cell even inside a span).
pub fn code(text: &str) -> String {
    let shown = visible::line(text);
    let fence = "`".repeat(longest_backtick_run(&shown) + 1);
    // A span's content loses one space at each end when it has one at both; a backtick at an
    // end would join the fence.
    let pad = shown.is_empty()
        || shown.starts_with('`')
        || shown.ends_with('`')
        || (shown.starts_with(' ') && shown.ends_with(' '));
    let pad = if pad { " " } else { "" };
    format!("{fence}{pad}{shown}{pad}{fence}")
}

/// `lines` as a fenced code block, each indented by `indent` (inside a list item): each line
/// shown as it is on one line, the fence longer than any run of backticks in them, so no line
/// closes it.
pub fn fenced<'a>(lines: impl IntoIterator<Item = &'a str>, indent: &str) -> String {
    let shown: Vec<String> = lines.into_iter().map(|line| visible::line(line).into_owned()).collect();
    let fence = "`".repeat(shown.iter().map(|l| longest_backtick_run(l)).max().unwrap_or(0).max(2) + 1);
    let mut block = format!("{indent}{fence}\n");
    for line in &shown {
        block.push_str(&format!("{indent}{line}\n"));
    }
    block.push_str(&format!("{indent}{fence}\n"));
    block
}

/// A sentence of report.md's (`wording`'s) as plain text, for the JUnit XML: its escapes
/// undone, its code spans kept in backticks, its bold dropped. Outside text in it stays on one
/// line (its line breaks were shown escaped).
pub fn plain(markdown: &str) -> String {
    use pulldown_cmark::{Event, Parser};
    let mut out = String::with_capacity(markdown.len());
    for event in Parser::new(markdown) {
        match event {
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => out.push_str(&t),
            Event::Code(c) => {
                out.push('`');
                out.push_str(&c);
                out.push('`');
            }
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            _ => {}
        }
    }
    out
}

fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outside_text_makes_no_structure() {
        assert_eq!(text("a\n# b\r| c |"), "a\\n\\# b\\r\\| c \\|");
        assert_eq!(text("![x](http://e/x.png) [y](z) <img>"), "\\!\\[x\\](http://e/x.png) \\[y\\](z) \\<img\\>");
        assert_eq!(text("- item"), "\\- item");
        assert_eq!(text("  + item"), "&#32; \\+ item");
        assert_eq!(text("    code"), "&#32;   code");
        assert_eq!(text("12. item"), "12\\. item");
        assert_eq!(text("3) item"), "3\\) item");
        assert_eq!(text("==="), "\\===");
        assert_eq!(text("&#10;"), "\\&\\#10;");
        assert_eq!(text("*a* _b_ ~c~ `d` \\"), "\\*a\\* \\_b\\_ \\~c\\~ \\`d\\` \\\\");
        assert_eq!(text("app_launch _x a_"), "app_launch \\_x a\\_");
        assert_eq!(text("evil\u{202e}txt"), "evil\\u{202e}txt");
    }

    #[test]
    fn ordinary_text_keeps_its_look() {
        assert_eq!(text("device U1 is Unauthorized - accept it"), "device U1 is Unauthorized - accept it");
        assert_eq!(text("version 1.2.3"), "version 1.2.3");
        assert_eq!(text("pid 4242 alive."), "pid 4242 alive.");
        assert_eq!(text("签名 ✓"), "签名 ✓");
    }

    #[test]
    fn a_code_span_outlasts_the_backticks_it_holds() {
        assert_eq!(code("hdc install"), "`hdc install`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x`"), "`` `x` ``");
        assert_eq!(code("x\ny"), "`x\\ny`");
        assert_eq!(code(""), "`  `");
    }

    #[test]
    fn a_sentence_reads_as_plain_text() {
        let sentence = format!("ran {} — allowed by rule {}; **exited 1**", code("hdc `x`"), code("a\nb"));
        assert_eq!(plain(&sentence), "ran `hdc `x`` — allowed by rule `a\\nb`; exited 1");
        assert_eq!(plain(&text("app_launch | *x*")), "app_launch | *x*");
    }

    #[test]
    fn no_line_closes_a_fenced_block() {
        assert_eq!(fenced(["a", "```", "b\nc"], "  "), "  ````\n  a\n  ```\n  b\\nc\n  ````\n");
        assert_eq!(fenced(["plain"], ""), "```\nplain\n```\n");
    }
}
