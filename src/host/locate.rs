//! Where in a tool or recipe file a load problem is, so `rein check` can say `tools/x.lua:7`:
//! the line a Lua error names, or the line of the field or value a declaration error quotes
//! (`requried` in "unknown field `requried`").

/// The 1-based line of `message`'s problem in `text` (the file labelled `label`), and the
/// message without a `label:line:` prefix Lua put in front.
pub fn locate(label: &str, text: &str, message: &str) -> (Option<usize>, String) {
    if let Some((line, rest)) = lua_location(label, message) {
        return (Some(line), rest);
    }
    let line = quoted(message).and_then(|token| line_of(text, token));
    (line, message.to_string())
}

/// `tools/x.lua:7: message` (possibly after "syntax error: ") as `(7, "message")`.
fn lua_location(label: &str, message: &str) -> Option<(usize, String)> {
    let start = message.find(&format!("{label}:"))?;
    let rest = &message[start + label.len() + 1..];
    let (number, rest) = rest.split_once(':')?;
    let line = number.parse().ok()?;
    let before = message[..start].trim_end().trim_end_matches(':');
    let rest = rest.trim_start();
    let text = if before.is_empty() { rest.to_string() } else { format!("{before}: {rest}") };
    Some((line, text))
}

/// The first `backquoted` word of a declaration error, skipping the `what` part that names
/// the tool (`tool x: params.a: unknown field `requried`…`).
fn quoted(message: &str) -> Option<&str> {
    let start = message.find('`')? + 1;
    let end = start + message[start..].find('`')?;
    let token = &message[start..end];
    (!token.is_empty()).then_some(token)
}

/// The first line where `token` stands as a key (`token =`) or a string (`"token"`), outside
/// comments; else the first where it is a whole word.
fn line_of(text: &str, token: &str) -> Option<usize> {
    let code = |line: &str| line.split("--").next().unwrap_or("").to_string();
    let as_key = |line: &str| {
        words(line).any(|(word, after)| {
            word == token && after.trim_start().starts_with('=') && !after.trim_start().starts_with("==")
        })
    };
    let as_string = |line: &str| line.contains(&format!("\"{token}\"")) || line.contains(&format!("'{token}'"));
    let lines: Vec<String> = text.lines().map(code).collect();
    let found = lines.iter().position(|l| as_key(l) || as_string(l));
    found.or_else(|| lines.iter().position(|l| words(l).any(|(word, _)| word == token))).map(|i| i + 1)
}

/// Each identifier-like word of `line` with the text after it.
fn words(line: &str) -> impl Iterator<Item = (&str, &str)> {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut rest = line;
    std::iter::from_fn(move || {
        let start = rest.find(is_word)?;
        let from = &rest[start..];
        let end = from.find(|c: char| !is_word(c)).unwrap_or(from.len());
        let (word, after) = from.split_at(end);
        rest = after;
        Some((word, after))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOOL: &str = "return {\n  name = \"x\",\n  -- requried is a typo\n  params = {\n    a = { type = \"strnig\",\n      requried = true },\n  },\n}\n";

    #[test]
    fn a_quoted_field_or_value_is_found_as_a_key_or_a_string() {
        let (line, _) = locate("tools/x.lua", TOOL, "tool x: params.a: unknown field `requried`; allowed: type");
        assert_eq!(line, Some(6));
        let (line, _) = locate("tools/x.lua", TOOL, "tool x: params.a: unknown variant `strnig`, expected `string`");
        assert_eq!(line, Some(5));
        assert_eq!(locate("tools/x.lua", TOOL, "tool x: description is empty").0, None);
    }

    #[test]
    fn a_lua_error_gives_its_own_line() {
        let (line, message) = locate("tools/x.lua", TOOL, "syntax error: tools/x.lua:4: unexpected symbol near '}'");
        assert_eq!((line, message.as_str()), (Some(4), "syntax error: unexpected symbol near '}'"));
        let (line, message) = locate("tools/x.lua", TOOL, "tools/x.lua:9: attempt to index a nil value");
        assert_eq!((line, message.as_str()), (Some(9), "attempt to index a nil value"));
    }
}
