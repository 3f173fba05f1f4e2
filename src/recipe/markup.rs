//! Text a run recorded, made safe to put into report.html and the JUnit XML. Everything in a
//! report can come from a program or a script an agent wrote (a step's name, an error's text,
//! a file name), so it is escaped wherever it goes — as element text and as a quoted attribute
//! value alike — and characters XML 1.0 cannot carry (the C0 controls other than tab, newline
//! and carriage return: an escape sequence a program printed) are shown as U+FFFD. Nothing
//! that comes from a run ever becomes markup or script.
//!
//! Text from outside rein goes through [`text`] (or [`lines`] for the UI tree, a text of many
//! lines): line breaks, control and bidi characters shown escaped first, as the terminal shows
//! them ([`crate::visible`]), so a forged line reads as one line everywhere. The report's
//! markdown sentences (`wording`, `details_md`, whose outside text `markdown_text` escaped)
//! become HTML through a CommonMark parser, never by matching markers.

use pulldown_cmark::{html, Event, Options, Parser, Tag, TagEnd};

use crate::visible;

/// Text from outside rein as element content or a quoted attribute value, on one line.
pub fn text(outside: &str) -> String {
    escape(&visible::line(outside))
}

/// Text of several lines from outside rein (for a `<pre>`): like [`text`], a line feed kept.
pub fn lines(outside: &str) -> String {
    escape(&visible::lines(outside))
}

/// `text` as element content or a double- or single-quoted attribute value of HTML or XML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            // XML 1.0 has no way to carry these, not even as character references; HTML shows
            // them as nothing or as boxes. A reader sees that something was there.
            c if (c as u32) < 0x20 || c == '\u{7f}' || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// A sentence as [`super::wording`] writes it in markdown (`ran \`x\` — …; **exited 1**`), as
/// HTML: its code spans and bold become `<code>` and `<strong>`, and nothing else can (outside
/// text in it was escaped for markdown).
pub fn inline_html(markdown: &str) -> String {
    let html = block_html(markdown);
    let html = html.trim_end();
    let html = html.strip_prefix("<p>").and_then(|h| h.strip_suffix("</p>")).unwrap_or(html);
    html.to_string()
}

/// The markdown `details_md` writes (list items, fenced blocks, a table) as HTML.
pub fn block_html(markdown: &str) -> String {
    // Raw HTML in markdown is text here: the report's markdown holds none of its own.
    let events = Parser::new_ext(markdown, Options::ENABLE_TABLES).map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        Event::Start(Tag::HtmlBlock) => Event::Text("".into()),
        Event::End(TagEnd::HtmlBlock) => Event::Text("".into()),
        other => other,
    });
    let mut out = String::with_capacity(markdown.len() * 2);
    html::push_html(&mut out, events);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_run_recorded_never_becomes_markup() {
        let attack = "<script>alert(1)</script>\" onload='x' &amp; \u{1b}[31m";
        let safe = escape(attack);
        assert!(!safe.contains('<') && !safe.contains('"') && !safe.contains('\'') && !safe.contains('\u{1b}'));
        assert_eq!(escape("a & b"), "a &amp; b");
        assert_eq!(escape("tab\tline\n"), "tab\tline\n");
    }

    #[test]
    fn the_wordings_code_and_bold_become_tags_and_nothing_else() {
        assert_eq!(inline_html("ran `hdc x` — **exited 1**"), "ran <code>hdc x</code> — <strong>exited 1</strong>");
        assert_eq!(inline_html("ran `<img src=x onerror=y>`"), "ran <code>&lt;img src=x onerror=y&gt;</code>");
        assert_eq!(inline_html("a ` b"), "a ` b", "an unpaired marker stays text");
        assert_eq!(inline_html("<b>x</b>"), "&lt;b&gt;x&lt;/b&gt;", "raw HTML stays text");
    }

    #[test]
    fn outside_text_is_one_line_of_text() {
        assert_eq!(text("a\n<li>b</li>\u{202e}"), "a\\n&lt;li&gt;b&lt;/li&gt;\\u{202e}");
        assert_eq!(lines("a\nb\rc"), "a\nb\\rc");
    }
}
