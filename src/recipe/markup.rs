//! Text a run recorded, made safe to put into report.html and the JUnit XML. Everything in a
//! report can come from a program or a script an agent wrote (a step's name, an error's text,
//! a file name), so it is escaped wherever it goes — as element text and as a quoted attribute
//! value alike — and characters XML 1.0 cannot carry (the C0 controls other than tab, newline
//! and carriage return: an escape sequence a program printed) are shown as U+FFFD. Nothing
//! that comes from a run ever becomes markup or script.

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

/// A line as [`super::wording`] writes it for markdown (`ran \`x\` — …; **exited 1**`), as
/// HTML: escaped first, then the code spans and the bold that the wording itself put there
/// become `<code>` and `<strong>`. The markers are matched after escaping, so text from the
/// run can only produce these two tags, balanced, and never an attribute.
pub fn inline_html(markdown: &str) -> String {
    let escaped = escape(markdown);
    let code = pairs(&escaped, "`", "<code>", "</code>");
    pairs(&code, "**", "<strong>", "</strong>")
}

/// Replaces each pair of `marker`s with `open` … `close`; an unpaired last marker stays text.
fn pairs(text: &str, marker: &str, open: &str, close: &str) -> String {
    let parts: Vec<&str> = text.split(marker).collect();
    let paired = if parts.len() % 2 == 1 { parts.len() } else { parts.len() - 1 };
    let mut out = String::with_capacity(text.len());
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push_str(match (i < paired, i % 2) {
                (true, 1) => open,
                (true, _) => close,
                (false, _) => marker,
            });
        }
        out.push_str(part);
    }
    out
}

/// `text` (from a run: a step's name, an error's message) as markdown text on one line: it
/// cannot end the line, end a table cell, or start a code span, an image or HTML; what a screen
/// would act on or hide is escaped as `visible::line` shows it.
pub fn md_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut previous = ' ';
    for c in text.chars() {
        match c {
            '|' | '`' | '<' | '\\' => out.push('\\'),
            '[' if previous == '!' => out.push('\\'),
            _ => {}
        }
        out.push(c);
        previous = c;
    }
    // What a screen would act on or hide (line breaks included), as a person is shown it.
    crate::visible::line(&out).into_owned()
}

/// `text` (from a run: evidence, a path) as one markdown code span on one line: fenced by more
/// backticks than it holds in a row (CommonMark), so no backtick in it ends the span.
pub fn md_code(text: &str) -> String {
    let inner = crate::visible::line(text);
    let longest = inner.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if inner.starts_with('`') || inner.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{inner}{pad}{fence}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_text_from_a_run_stays_on_its_line_and_in_its_span() {
        assert_eq!(md_code("pid 42"), "`pid 42`");
        assert_eq!(md_code("a`b\n- tools: x"), "``a`b\\n- tools: x``");
        assert_eq!(md_code("`x"), "`` `x ``");
        assert_eq!(md_text("build"), "build");
        assert_eq!(md_text("a\r\n| 2 | x |"), "a\\r\\n\\| 2 \\| x \\|");
        assert_eq!(md_text("![i](http://x) <img> \u{202e}"), "!\\[i](http://x) \\<img> \\u{202e}");
    }

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
    }
}
