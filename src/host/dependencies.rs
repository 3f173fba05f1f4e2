//! Which project modules a tool depends on, so that a change under `prelude/` re-checks the
//! tools that use it, and a module whose new text breaks them is the one kept back.
//!
//! A file depends on the modules it names in `require "name"` / `require("name")` with a
//! literal name, and on what those modules require, transitively. The scan reads the text
//! instead of running it, so requires inside functions count too; a name built at run time
//! is not seen (reload then blames every changed module for a failure it cannot place).
//! Only the project's own modules matter: built-in and pack modules do not change between
//! generations.

use std::collections::BTreeSet;

use super::sources::{Origin, Sources};

/// The project modules (paths like `prelude/kit/words.lua`) `text` requires, transitively.
pub fn project_modules(sources: &Sources, text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut pending: Vec<String> = required_names(text);
    let mut seen: BTreeSet<String> = BTreeSet::new();
    while let Some(name) = pending.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Ok(Some(file)) = sources.find_module(&name) else { continue };
        if file.origin == Origin::Project && found.insert(file.rel.clone()) {
            pending.extend(required_names(&file.text));
        }
    }
    found
}

/// The literal module names `text` passes to `require`.
pub fn required_names(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut names = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find("require").map(|i| i + from) {
        from = at + "require".len();
        let preceded_by_word = at > 0 && is_word(bytes[at - 1]);
        if preceded_by_word || bytes.get(from).copied().is_some_and(is_word) {
            continue;
        }
        let mut i = skip_space(bytes, from);
        if bytes.get(i) == Some(&b'(') {
            i = skip_space(bytes, i + 1);
        }
        let Some(&quote) = bytes.get(i).filter(|b| **b == b'"' || **b == b'\'') else { continue };
        let start = i + 1;
        let len = bytes[start..].iter().take_while(|b| b.is_ascii_alphanumeric() || b"._-".contains(b)).count();
        if len > 0 && bytes.get(start + len) == Some(&quote) {
            names.push(text[start..start + len].to_string());
        }
    }
    names
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn skip_space(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(|b| b.is_ascii_whitespace()) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_requires_in_every_spelling_are_found() {
        let text = r#"local a = require("harmony.hdc")
local b = require 'kit.words'
local c = require"x"
local d = myrequire("not.this")
local e = require(name)
local f = require ( "spaced" )"#;
        assert_eq!(required_names(text), ["harmony.hdc", "kit.words", "x", "spaced"]);
    }

    #[test]
    fn project_modules_are_followed_transitively() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("prelude/kit")).unwrap();
        std::fs::write(dir.path().join("prelude/kit/words.lua"), "return require('kit.base')").unwrap();
        std::fs::write(dir.path().join("prelude/kit/base.lua"), "return {}").unwrap();
        let sources = Sources::new(dir.path()).unwrap();
        let deps = project_modules(&sources, "local w = require('kit.words')\nlocal h = require('harmony.hdc')");
        let deps: Vec<&str> = deps.iter().map(String::as_str).collect();
        assert_eq!(deps, ["prelude/kit/base.lua", "prelude/kit/words.lua"], "built-in modules are not listed");
    }
}
