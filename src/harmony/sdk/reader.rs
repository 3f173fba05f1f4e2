//! A focused reader of SDK declaration files: the declarations (namespaces, classes,
//! interfaces, structs, enums and their members, functions, types, constants), each with the
//! JSDoc blocks right above it, and the file's imports and exports.
//!
//! Why not a TypeScript parser crate: the `.d.ets` files are ArkTS, not TypeScript
//! (`@Component declare struct AutoAdComponent`, tests/fixtures/sdk), which TypeScript
//! parsers refuse, and what a lookup needs is only the declarations' names, their text and
//! the comments above them: neither types nor expressions. `/*** if arkts static */` sections
//! (ArkTS 1.2 only, §8) are skipped; `dynamic` and `dynamic&static` ones are read.

use serde::Serialize;

use super::jsdoc::{self, Doc};

#[derive(Debug, Clone, Serialize)]
pub struct Decl {
    /// The qualified name inside the file: `vibrator.startVibration`.
    pub name: String,
    /// `namespace`, `class`, `interface`, `struct`, `enum`, `function`, `method`, `property`,
    /// `type`, `const`, `member` (of an enum).
    pub kind: &'static str,
    /// The declaration's text up to its body, whitespace collapsed.
    pub signature: String,
    pub line: usize,
    /// The blocks above it, merged (`jsdoc::stacked`).
    pub doc: Doc,
    /// How many blocks were stacked (2 or more: the older style).
    pub blocks: usize,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Import {
    pub from: String,
    /// `import x from` (or `import * as x from`).
    pub default: Option<String>,
    /// `import { a, b as c } from`: (imported, local).
    pub names: Vec<(String, String)>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct File {
    pub decls: Vec<Decl>,
    pub imports: Vec<Import>,
    /// `export { a, b as c }`: (local, exported).
    pub exports: Vec<(String, String)>,
    /// `export default x`.
    pub default_export: Option<String>,
    /// The file's `@kit`.
    pub kit: Option<String>,
}

impl File {
    /// The declarations named `name` (every overload).
    pub fn named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Decl> + 'a {
        self.decls.iter().filter(move |d| d.name == name)
    }

    /// The names directly inside `parent` (`""`: the file's top level).
    pub fn children(&self, parent: &str) -> Vec<&str> {
        let mut names: Vec<&str> = self
            .decls
            .iter()
            .filter_map(|d| match parent {
                "" => (!d.name.contains('.')).then_some(d.name.as_str()),
                _ => d.name.strip_prefix(parent).and_then(|r| r.strip_prefix('.')).filter(|r| !r.contains('.')),
            })
            .collect();
        names.dedup();
        names
    }
}

const CONTAINERS: [&str; 6] = ["namespace", "module", "class", "interface", "struct", "enum"];
const MODIFIERS: [&str; 16] = [
    "export",
    "declare",
    "default",
    "static",
    "readonly",
    "abstract",
    "public",
    "private",
    "protected",
    "async",
    "get",
    "set",
    "function",
    "const",
    "let",
    "var",
];

/// Reads a declaration file's text.
pub fn read(text: &str) -> File {
    let mut reader = Reader { text, at: 0, file: File::default(), docs: Vec::new() };
    reader.body(&[]);
    reader.file
}

struct Reader<'a> {
    text: &'a str,
    at: usize,
    file: File,
    docs: Vec<Doc>,
}

impl Reader<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn line(&self, at: usize) -> usize {
        self.text[..at].matches('\n').count() + 1
    }

    /// Whitespace and comments; JSDoc blocks are kept for the next declaration, a blank-line
    /// free run of them stacked. Returns false at the end of the text.
    fn skip_trivia(&mut self) -> bool {
        loop {
            let text = self.text;
            let trimmed = text[self.at..].trim_start();
            self.at = text.len() - trimmed.len();
            if trimmed.starts_with("/***") {
                let end = trimmed.find("*/").map_or(trimmed.len(), |e| e + 2);
                let marker = &trimmed[..end];
                self.at += end;
                if marker.contains("if arkts") && !marker.contains("dynamic") {
                    // An ArkTS 1.2 only section: up to its `/*** endif */`.
                    match self.rest().find("/*** endif") {
                        Some(e) => self.at += e,
                        None => self.at = self.text.len(),
                    }
                }
            } else if trimmed.starts_with("/**") {
                let end = trimmed.find("*/").map_or(trimmed.len(), |e| e + 2);
                let doc = jsdoc::parse(&trimmed[..end]);
                if doc.kit.is_some() && self.file.kit.is_none() {
                    self.file.kit = doc.kit.clone();
                } else {
                    self.docs.push(doc);
                }
                self.at += end;
            } else if trimmed.starts_with("/*") {
                self.at += trimmed.find("*/").map_or(trimmed.len(), |e| e + 2);
            } else if trimmed.starts_with("//") {
                self.at += trimmed.find('\n').unwrap_or(trimmed.len());
            } else {
                return !trimmed.is_empty();
            }
        }
    }

    /// Declarations up to the `}` that closes `scope` (or the end).
    fn body(&mut self, scope: &[String]) {
        let is_enum = false;
        self.members(scope, is_enum);
    }

    fn members(&mut self, scope: &[String], is_enum: bool) {
        while self.skip_trivia() {
            if self.rest().starts_with('}') {
                self.at += 1;
                self.docs.clear();
                return;
            }
            let start = self.at;
            let (head, end) = statement(self.text, self.at, is_enum);
            self.at = end;
            let docs = std::mem::take(&mut self.docs);
            let head = strip_decorators(head.trim());
            if head.is_empty() {
                continue;
            }
            if self.rest().starts_with('{') && opens_body(head) {
                self.at += 1;
                let (kind, name) = container(head);
                let mut inner = scope.to_vec();
                if let Some(name) = name {
                    if head.starts_with("export default ") && scope.is_empty() {
                        self.file.default_export = Some(name.clone());
                    }
                    inner.push(name.clone());
                    self.push(&inner, kind, head, start, &docs);
                }
                self.members(&inner, kind == "enum");
                continue;
            }
            if self.rest().starts_with([';', ',']) {
                self.at += 1;
            }
            self.statement(scope, head, start, &docs, is_enum);
        }
    }

    fn statement(&mut self, scope: &[String], head: &str, start: usize, docs: &[Doc], is_enum: bool) {
        if head.starts_with("import ") {
            if let Some(import) = import(head) {
                self.file.imports.push(import);
            }
            return;
        }
        if let Some(list) = head.strip_prefix("export").map(str::trim).filter(|r| r.starts_with('{')) {
            let list = list.trim_start_matches('{');
            let list = list.split('}').next().unwrap_or("");
            self.file.exports.extend(pairs(list));
            return;
        }
        if let Some(name) = head.strip_prefix("export default ").filter(|r| is_ident(r.trim())) {
            self.file.default_export = Some(name.trim().to_string());
            return;
        }
        let kind = if is_enum { "member" } else { member_kind(head, scope.is_empty()) };
        if let Some(name) = member_name(head) {
            let mut qualified = scope.to_vec();
            qualified.push(name);
            self.push(&qualified, kind, head, start, docs);
        }
    }

    fn push(&mut self, qualified: &[String], kind: &'static str, head: &str, start: usize, docs: &[Doc]) {
        self.file.decls.push(Decl {
            name: qualified.join("."),
            kind,
            signature: head.split_whitespace().collect::<Vec<_>>().join(" "),
            line: self.line(start),
            doc: jsdoc::stacked(docs),
            blocks: docs.len(),
        });
    }
}

/// From `at`: the text up to a `;`, `{`, `}` (or, in an enum, `,`) outside brackets, strings and
/// comments. A `{` inside `(…)`, `<…>` or after `:`/`=>`/`=` is part of a type.
fn statement(text: &str, at: usize, is_enum: bool) -> (&str, usize) {
    let bytes = text.as_bytes();
    let mut depth = 0i32;
    let mut i = at;
    while i < bytes.len() {
        match bytes[i] {
            b'\'' | b'"' | b'`' => {
                let quote = bytes[i];
                i += 1;
                while i < bytes.len() && bytes[i] != quote {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i = text[i..].find("*/").map_or(bytes.len(), |e| i + e + 1);
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(bytes.len(), |e| i + e);
            }
            b'(' | b'[' | b'<' => depth += 1,
            b')' | b']' => depth -= 1,
            b'>' if bytes[i - 1] != b'=' => depth -= 1,
            b'{' if depth == 0 && !type_position(&text[at..i]) => return (&text[at..i], i),
            b'{' => {
                // An object type: skip to its matching `}`.
                let mut inner = 0;
                while i < bytes.len() {
                    match bytes[i] {
                        b'{' => inner += 1,
                        b'}' => {
                            inner -= 1;
                            if inner == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            b';' | b'}' if depth <= 0 => return (&text[at..i], i),
            b',' if depth <= 0 && is_enum => return (&text[at..i], i),
            _ => {}
        }
        i += 1;
    }
    (&text[at..], bytes.len())
}

/// Whether a `{` after `before` starts a type (`x: {`, `= {`, `=> {`, `| {`) rather than a body.
fn type_position(before: &str) -> bool {
    let before = before.trim();
    if before.starts_with("import") || before == "export" || before == "export type" {
        return true;
    }
    before.ends_with(':')
        || before.ends_with('=')
        || before.ends_with("=>")
        || before.ends_with('|')
        || before.ends_with('&')
}

fn opens_body(head: &str) -> bool {
    words(head).any(|w| CONTAINERS.contains(&w))
}

fn words(head: &str) -> impl Iterator<Item = &str> {
    head.split(|c: char| c.is_whitespace() || c == '<').filter(|w| !w.is_empty())
}

/// `declare namespace vibrator` → ("namespace", "vibrator").
fn container(head: &str) -> (&'static str, Option<String>) {
    let mut it = words(head);
    while let Some(word) = it.next() {
        if let Some(kind) = CONTAINERS.iter().find(|k| **k == word) {
            let kind = if *kind == "module" { "namespace" } else { kind };
            let name = it.next().map(|n| n.trim_matches(['\'', '"']).to_string());
            return (kind, name);
        }
    }
    ("namespace", None)
}

/// `@Component declare struct X` → `declare struct X`; `@Sendable` and `@Foo(…)` too.
fn strip_decorators(mut head: &str) -> &str {
    while let Some(rest) = head.strip_prefix('@') {
        let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
        let mut after = &rest[end..];
        if after.starts_with('(') {
            after = after.find(')').map_or("", |e| &after[e + 1..]);
        }
        head = after.trim_start();
    }
    head
}

fn member_kind(head: &str, top: bool) -> &'static str {
    match words(head).find(|w| !MODIFIERS.contains(w) || matches!(*w, "function" | "const" | "let" | "var")) {
        Some("function") => "function",
        Some("const" | "let" | "var") => "const",
        Some("type") if !head.trim_start().starts_with("type(") => "type",
        _ if before_colon_has_paren(head) => "method",
        _ if top => "const",
        _ => "property",
    }
}

/// `f(a: T): R` is a method; `p: (a: T) => R` is a property.
fn before_colon_has_paren(head: &str) -> bool {
    match (head.find('('), head.find(':')) {
        (Some(p), Some(c)) => p < c,
        (Some(_), None) => true,
        _ => false,
    }
}

/// The declared name: the first word after the modifiers (`type X =`, `function f(`, `p?:`,
/// `A = 1` in an enum, `'quoted'`). None for call and index signatures.
fn member_name(head: &str) -> Option<String> {
    let mut rest = head.trim();
    loop {
        let word_end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).unwrap_or(rest.len());
        let word = &rest[..word_end];
        let after = rest[word_end..].trim_start();
        let more = !after.is_empty() && !after.starts_with(['(', '?', ':', '<', '=', ',', '!']);
        if (MODIFIERS.contains(&word) || word == "type") && more {
            rest = after;
            continue;
        }
        if word.is_empty() {
            let quoted = rest.strip_prefix(['\'', '"'])?;
            return quoted.split(['\'', '"']).next().map(String::from);
        }
        return Some(word.to_string());
    }
}

fn is_ident(text: &str) -> bool {
    let text = text.trim_end_matches(';');
    !text.is_empty() && text.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// `a, b as c` → [(a, a), (b, c)].
fn pairs(list: &str) -> Vec<(String, String)> {
    list.split(',')
        .map(|p| p.trim().trim_start_matches("type ").trim())
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once(" as ") {
            Some((a, b)) => (a.trim().to_string(), b.trim().to_string()),
            None => (p.to_string(), p.to_string()),
        })
        .collect()
}

/// `import x, { a, b as c } from 'm'`, `import * as x from 'm'`, `import type …`.
pub fn import(head: &str) -> Option<Import> {
    let head = head.trim().strip_prefix("import")?.trim_start();
    let head = head.strip_prefix("type ").unwrap_or(head);
    let (what, from) = head.rsplit_once("from")?;
    let from = from.trim().trim_end_matches(';').trim().trim_matches(['\'', '"']).to_string();
    let mut import = Import { from, ..Import::default() };
    let what = what.trim();
    let (default, list) = match what.find('{') {
        Some(open) => (what[..open].trim().trim_end_matches(',').trim(), Some(&what[open + 1..])),
        None => (what, None),
    };
    let default = default.strip_prefix("* as ").unwrap_or(default).trim();
    if is_ident(default) {
        import.default = Some(default.to_string());
    }
    if let Some(list) = list {
        import.names = pairs(list.split('}').next().unwrap_or(""));
    }
    Some(import)
}
