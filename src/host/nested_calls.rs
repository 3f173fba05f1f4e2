//! Whether a host may serve only some names ([`super::declared_names::Wanted`]): only when every
//! file it would load, and every module those require, is rein's own (built in) and calls no
//! other tool (`rein.tool`), since the other tools would not be there. The agent's files never
//! qualify: reading text cannot prove what a file written to fool the reader will call (an
//! attack found `"" ..rein.tool`, `"\z` line continuations and `require [[m]]` slipping past
//! an earlier version), so any project or pack file in play means the whole host. rein's own
//! files are read conservatively all the same: besides `rein.tool` itself, anything that could
//! reach it by a name made at run time — `rein` used other than as `rein.<field>`, `_G`,
//! `_ENV`, `load`, a `require` of anything but a quoted name — counts as a call. Strings and
//! comments are not code and are skipped.

use super::dependencies::required_names;
use super::sources::{Origin, SourceFile, Sources};

/// Whether every tool and recipe file `sources` serves, and every module they require
/// (transitively), is built in and calls no other tool ([`may_call_tools`]); a file that cannot
/// be read, or a module not found, counts as one that may.
pub(super) fn only_own_code_calling_no_tool(sources: &Sources) -> bool {
    let (Ok(tools), Ok(recipes)) = (sources.tool_files(), sources.recipe_files()) else { return false };
    let mut files: Vec<SourceFile> = tools.into_iter().chain(recipes).collect();
    let mut seen = std::collections::BTreeSet::new();
    while let Some(file) = files.pop() {
        if file.origin != Origin::BuiltIn || may_call_tools(&file.text) {
            return false;
        }
        for name in required_names(&file.text) {
            if seen.insert(name.clone()) {
                match sources.find_module(&name) {
                    Ok(Some(module)) => files.push(module),
                    Ok(None) | Err(_) => return false,
                }
            }
        }
    }
    true
}

/// Whether `text` may call another tool (see the module's documentation).
pub fn may_call_tools(text: &str) -> bool {
    let code = code_only(text);
    let bytes = code.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let after_dot = at > 0 && bytes[at - 1] == b'.' && !(at > 1 && bytes[at - 2] == b'.');
        if !is_word_start(bytes[at]) || (at > 0 && is_word(bytes[at - 1])) || after_dot {
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
            // Not `""`: `require [[m]]` is not a name `required_names` reads.
            code.push_str("[[]]");
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
        if bytes[at] != b'\\' {
            at += 1;
            continue;
        }
        at += 1;
        match bytes.get(at) {
            // `\z` skips the white space after it, line breaks included.
            Some(b'z') => at = skip_space(bytes, at + 1),
            // A backslash before a line break continues the string (`\r\n` is one break).
            Some(b'\r') if bytes.get(at + 1) == Some(&b'\n') => at += 2,
            Some(_) => at += 1,
            None => {}
        }
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
            // What an attack slipped past an earlier reader:
            "local s = \"\" ..rein.tool('x', {})",
            "local s = \"\" .._G.rein",
            "local s = \"\\z\n\" local T = rein.tool local t = \"\"",
            "local s = \"\\\r\n\" local T = rein.tool local t = \"\"",
            "local m = require [[evil]]",
            "local m = require [==[evil]==]",
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
