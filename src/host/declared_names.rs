//! The names a tool or recipe file declares, read from its text: `name = "greet"`. A file names
//! itself with such a literal (the registry refuses a file whose loaded name is not written so
//! in it), which lets a host that serves only some names load only the files that can declare
//! them ([`Wanted`], `HostBuilder::serving_only`), and lets a file that does not load be blamed
//! on the name it meant.

use std::collections::BTreeSet;

/// Every `name = "…"` (or `'…'`) in `text` whose value reads as a tool or recipe name, in order.
pub fn literal_names(text: &str) -> impl Iterator<Item = &str> {
    memchr::memmem::find_iter(text.as_bytes(), b"name").filter_map(|at| {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.') {
            return None;
        }
        let rest = text[at + 4..].trim_start().strip_prefix('=')?.trim_start();
        let quote = rest.chars().next().filter(|q| *q == '"' || *q == '\'')?;
        let value = &rest[1..rest[1..].find(quote)? + 1];
        let first = value.chars().next()?;
        let valid = first.is_ascii_lowercase()
            && value.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
        valid.then_some(value)
    })
}

/// The first name `text` declares literally; a file that did not load is blamed on it.
pub fn declared_name(text: &str) -> Option<&str> {
    literal_names(text).next()
}

/// Whether `text` writes `name = "<name>"` somewhere.
pub fn declares(text: &str, name: &str) -> bool {
    literal_names(text).any(|found| found == name)
}

/// The names a host serves when it serves only some: the files that may declare one of them are
/// loaded, the others are not read by Lua at all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Wanted(BTreeSet<String>);

impl Wanted {
    pub fn new(names: impl IntoIterator<Item = String>) -> Wanted {
        Wanted(names.into_iter().collect())
    }

    pub fn contains(&self, name: &str) -> bool {
        self.0.contains(name)
    }

    pub fn add(&mut self, name: &str) {
        self.0.insert(name.to_string());
    }

    /// Whether the file `rel` of `pack` (None: not a pack's) holding `text` may declare a
    /// wanted name: it writes one literally (a pack's file without its `<pack>.` prefix), or it
    /// writes no name at all and its file name is one (it cannot load, and a call to that name
    /// must say why).
    pub fn may_declare(&self, rel: &str, pack: Option<&str>, text: &str) -> bool {
        // One pass over the text: `rein call` reads every tool file this way before it loads one.
        let written: Vec<&str> = literal_names(text).collect();
        self.may_declare_names(rel, pack, &written)
    }

    /// [`Wanted::may_declare`] for a file that writes the names `written` (all of
    /// [`literal_names`], as the scan cache keeps them).
    pub fn may_declare_names(&self, rel: &str, pack: Option<&str>, written: &[impl AsRef<str>]) -> bool {
        let stem = rel.rsplit('/').next().and_then(|n| n.strip_suffix(".lua"));
        self.0
            .iter()
            .filter_map(|wanted| local_name(pack, wanted))
            .any(|local| written.iter().any(|w| w.as_ref() == local) || (written.is_empty() && stem == Some(local)))
    }
}

/// `wanted` as a file of `pack` would write it: without the `<pack>.`; None when the name
/// cannot be the file's (another pack's, or a pack's name for a file of no pack).
fn local_name<'a>(pack: Option<&str>, wanted: &'a str) -> Option<&'a str> {
    match pack {
        Some(pack) => wanted.strip_prefix(pack)?.strip_prefix('.'),
        None => (!wanted.contains('.')).then_some(wanted),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_literal_name_is_found_not_only_the_first() {
        let text = "local helper = { name = \"helper\" }\nreturn { name = 'greet', params = {} }";
        assert_eq!(literal_names(text).collect::<Vec<_>>(), ["helper", "greet"]);
        assert_eq!(declared_name(text), Some("helper"));
        assert!(declares(text, "greet"));
        assert!(!declares("return { name = \"gree\" .. \"t\" }", "greet"));
        assert!(!declares("return { filename = \"greet\" }", "greet"));
    }

    #[test]
    fn a_file_may_declare_a_wanted_name_by_its_literal_or_by_its_file_name_when_it_writes_none() {
        let wanted = Wanted::new(["greet".to_string(), "kit.clean".to_string()]);
        assert!(wanted.may_declare("tools/x.lua", None, "return { name = \"greet\" }"));
        assert!(!wanted.may_declare("tools/greet.lua", None, "return { name = \"other\" }"));
        assert!(wanted.may_declare("tools/greet.lua", None, "return {"));
        assert!(wanted.may_declare("tools/c.lua", Some("kit"), "return { name = \"clean\" }"));
        assert!(!wanted.may_declare("tools/c.lua", Some("other"), "return { name = \"clean\" }"));
        assert!(!wanted.may_declare("tools/c.lua", None, "return { name = \"clean\" }"));
    }
}
