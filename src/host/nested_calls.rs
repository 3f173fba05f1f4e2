//! Whether Lua code may call another tool (`rein.tool`), read from its text without running it.
//! A host serving only some names ([`super::declared_names::Wanted`]) has loaded no other
//! tool, so it may serve only files that provably call none; for any other file it loads
//! everything. The reading is conservative: besides `rein.tool` itself, anything that could
//! reach it by a name made at run time — `rein` used other than as `rein.<field>`, `_G`,
//! `_ENV`, `load`, a `require` of a name that is not a literal — counts as a call. Strings and
//! comments are not code and are skipped.

use std::sync::Arc;

use super::dependencies::required_names;
use super::sources::Sources;

/// Whether a tool or recipe file served, or a module it requires (transitively), may call
/// another tool ([`may_call_tools`]); a file that cannot be read counts as one that may.
pub(super) fn served_code_may_call_tools(sources: &Sources) -> bool {
    let (Ok(tools), Ok(recipes)) = (sources.tool_files(), sources.recipe_files()) else { return true };
    let mut texts: Vec<Arc<str>> = tools.into_iter().chain(recipes).map(|file| file.text).collect();
    let mut seen = std::collections::BTreeSet::new();
    while let Some(text) = texts.pop() {
        if may_call_tools(&text) {
            return true;
        }
        for name in required_names(&text) {
            if seen.insert(name.clone()) {
                match sources.find_module(&name) {
                    Ok(Some(module)) => texts.push(module.text),
                    Ok(None) => {}
                    Err(_) => return true,
                }
            }
        }
    }
    false
}

/// Whether `text` may call another tool (see the module's documentation).
pub fn may_call_tools(text: &str) -> bool {
    let code = code_only(text);
    let bytes = code.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        if !is_word_start(bytes[at]) || (at > 0 && (is_word(bytes[at - 1]) || bytes[at - 1] == b'.')) {
            at += 1;
            continue;
        }
        let end = at + bytes[at..].iter().take_while(|b| is_word(**b)).count();
        let after = skip_space(bytes, end);
        let reaches = match &code[at..end] {
            "_G" | "_ENV" | "load" => true,
            "rein" => rein_field(&code[after..]).is_none_or(|field| field == "tool"),
            "require" => !requires_a_literal(&code[after..]),
            _ => false,
        };
        if reaches {
            return true;
        }
        at = end;
    }
    false
}

/// The field of `.field` at the start of `rest`, if that is what it is.
fn rein_field(rest: &str) -> Option<&str> {
    let rest = rest.strip_prefix('.')?.trim_start();
    let len = rest.bytes().take_while(|b| is_word(*b)).count();
    (len > 0).then(|| &rest[..len])
}

/// Whether `rest` (after `require`) is `""` or `("")`: a literal name (blanked by [`code_only`]).
fn requires_a_literal(rest: &str) -> bool {
    let rest = rest.strip_prefix('(').map_or(rest, str::trim_start);
    rest.starts_with("\"\"")
}

/// `text` with every string literal blanked to `""` and every comment removed.
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut code = String::with_capacity(text.len());
    let mut at = 0;
    while at < bytes.len() {
        let rest = &text[at..];
        if let Some(comment) = rest.strip_prefix("--") {
            at += match long_bracket(comment) {
                Some(len) => 2 + len,
                None => rest.find('\n').unwrap_or(rest.len()),
            };
        } else if let Some(len) = long_bracket(rest) {
            code.push_str("\"\"");
            at += len;
        } else if bytes[at] == b'"' || bytes[at] == b'\'' {
            code.push_str("\"\"");
            at += short_string(rest);
        } else {
            let len = rest.chars().next().map_or(1, char::len_utf8);
            code.push_str(&rest[..len]);
            at += len;
        }
    }
    code
}

/// The length of the long bracket (`[[…]]`, `[==[…]==]`) `text` starts with, to its end.
fn long_bracket(text: &str) -> Option<usize> {
    let level = text.strip_prefix('[')?.bytes().take_while(|b| *b == b'=').count();
    if text.as_bytes().get(1 + level) != Some(&b'[') {
        return None;
    }
    let close = format!("]{}]", "=".repeat(level));
    let body = 2 + level;
    Some(text[body..].find(&close).map_or(text.len(), |end| body + end + close.len()))
}

/// The length of the quoted string `text` starts with, its quotes included.
fn short_string(text: &str) -> usize {
    let bytes = text.as_bytes();
    let quote = bytes[0];
    let mut at = 1;
    while at < bytes.len() && bytes[at] != quote && bytes[at] != b'\n' {
        at += if bytes[at] == b'\\' { 2 } else { 1 };
    }
    (at + 1).min(bytes.len())
}

fn is_word_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn skip_space(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::may_call_tools;

    #[test]
    fn a_call_to_another_tool_is_seen_however_it_is_spelled() {
        for text in [
            "return rein.tool('x', {})",
            "return rein . tool('x')",
            "local r = rein; return r.tool('x')",
            "return rein['tool']('x')",
            "return rein[('to')..'ol']('x')",
            "for k, f in pairs(rein) do end",
            "return _G.rein.tool('x')",
            "return _ENV['rein']",
            "return load('return rein.tool')()",
            "local m = require(name)",
            "local m = require(prefix .. 'x')",
        ] {
            assert!(may_call_tools(text), "{text}");
        }
    }

    #[test]
    fn fields_strings_and_comments_are_not_calls() {
        for text in [
            "return rein.fs.read(args.path)",
            "local p = require('rein.file_params')\nlocal q = require \"harmony.hdc\"",
            "local s = \"rein's own rein.tool and load(_G)\" -- rein.tool here is a comment",
            "local s = [==[ rein.tool ]==] --[[ load(x) ]] return s",
            "local tool_name = 'x'; local t = { tool = 1 }; return t.tool, my.load, x._G",
            "local s = 'it\\'s rein' return s",
        ] {
            assert!(!may_call_tools(text), "{text}");
        }
    }
}
