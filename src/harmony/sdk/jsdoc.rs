//! One JSDoc block of an SDK declaration file, as its tags (shared/HARMONY-VERIFY.md §8 "JSDoc
//! tags", "Current format", "Older SDKs", "HMS files"): `@since` numeric (`9`, `9 dynamic`,
//! `23 static`, `8 dynamiconly`) or versioned (`5.0.0(12)`, `26.0.0`), per-tag and per-param
//! `[since A - B]` / `[since N]` suffixes, and the marks (`@atomicservice`, `@systemapi`,
//! `@stagemodelonly` in either capitalisation …). A tag's text runs on over the lines that do
//! not start a new tag.

use std::collections::BTreeMap;

use serde::Serialize;

/// `[since A - B]` or `[since N]` after a tag: the API levels it holds for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Span {
    pub from: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<u32>,
}

/// One `@since`: its API level (`None` for a version with no level, like HMS's `26.0.0`), the
/// text as written, and the ArkTS it is for (`dynamic`, `static`, `dynamiconly`; none in older
/// files, which are ArkTS 1.1's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Since {
    pub level: Option<u32>,
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arkts: Option<String>,
}

impl Since {
    /// Whether apps in ArkTS 1.1 (`.ets` as DevEco builds it today) can use it: everything but
    /// `static` (ArkTS 1.2 only).
    pub fn is_dynamic(&self) -> bool {
        self.arkts.as_deref() != Some("static")
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Param {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<Span>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Throw {
    pub code: String,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<Span>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Permission {
    /// As written: one permission, or several joined by `or` / `and`.
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<Span>,
}

impl Permission {
    /// The permission names, and whether any one of them is enough (`or`) or all are needed.
    pub fn names(&self) -> (Vec<String>, bool) {
        let words: Vec<&str> = self.text.split_whitespace().collect();
        let any = words.contains(&"or");
        let names = words.into_iter().filter(|w| w.starts_with("ohos.permission.")).map(String::from).collect();
        (names, any)
    }
}

/// What one block says.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Doc {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub summary: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub since: Vec<Since>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub syscap: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub permissions: Vec<Permission>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<Param>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub returns: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub throws: Vec<Throw>,
    /// `@deprecated since N` (the level; 0 when the tag names none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deprecated: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub useinstead: Option<String>,
    /// `atomicservice`, `systemapi`, `stagemodelonly`, `famodelonly`, `fa_and_stage_model`,
    /// `crossplatform`, `form`, `test`: each with the levels its `[since]` suffix names.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub marks: BTreeMap<String, Option<Span>>,
    /// `@kit` (file-level, under `@file`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kit: Option<String>,
}

impl Doc {
    /// The first API level ArkTS 1.1 code can use it at (the lowest dynamic `@since`).
    pub fn first_level(&self) -> Option<u32> {
        self.since.iter().filter(|s| s.is_dynamic()).filter_map(|s| s.level).min()
    }

    /// Only for ArkTS 1.2 (every `@since` is `static`).
    pub fn static_only(&self) -> bool {
        !self.since.is_empty() && self.since.iter().all(|s| !s.is_dynamic())
    }
}

/// Parses `/** … */` (the delimiters included or not).
pub fn parse(block: &str) -> Doc {
    let body = block.trim().trim_start_matches("/**").trim_end_matches("*/");
    let mut doc = Doc::default();
    let mut summary = Vec::new();
    let mut tags: Vec<(String, String)> = Vec::new();
    for line in body.lines() {
        let line = line.trim().trim_start_matches('*').trim();
        if let Some(tag) = line.strip_prefix('@') {
            let (name, rest) = tag.split_once(char::is_whitespace).unwrap_or((tag, ""));
            tags.push((name.to_string(), rest.trim().to_string()));
        } else if let Some((_, text)) = tags.last_mut() {
            if !line.is_empty() {
                text.push(' ');
                text.push_str(line);
            }
        } else if !line.is_empty() && summary.is_empty() {
            summary.push(line.to_string());
        }
    }
    doc.summary = summary.join(" ");
    for (name, text) in tags {
        let (text, span) = split_span(&text);
        match name.to_ascii_lowercase().as_str() {
            "since" => doc.since.push(since(&text)),
            "syscap" => doc.syscap = Some(text),
            "permission" => doc.permissions.push(Permission { text, since: span }),
            "param" => doc.params.push(param(&text, span)),
            "returns" | "return" => doc.returns = Some(braced(&text).0),
            "throws" => doc.throws.push(throw(&text, span)),
            "deprecated" => {
                let level = text.split_whitespace().find_map(|w| w.parse().ok());
                doc.deprecated = Some(level.unwrap_or(0));
            }
            "useinstead" => doc.useinstead = Some(text),
            "kit" => doc.kit = Some(text),
            "atomicservice" | "systemapi" | "stagemodelonly" | "famodelonly" | "crossplatform" | "form" | "test" => {
                doc.marks.insert(name.to_ascii_lowercase(), span);
            }
            "faandstagemodel" => {
                doc.marks.insert("fa_and_stage_model".into(), span);
            }
            _ => {}
        }
    }
    doc
}

/// `text [since A - B]` → (`text`, the span).
fn split_span(text: &str) -> (String, Option<Span>) {
    let trimmed = text.trim_end();
    let Some(open) = trimmed.rfind("[since ") else { return (trimmed.to_string(), None) };
    if !trimmed.ends_with(']') {
        return (trimmed.to_string(), None);
    }
    let inside = &trimmed[open + "[since ".len()..trimmed.len() - 1];
    let mut parts = inside.split('-').map(str::trim);
    let from = parts.next().and_then(|p| p.parse().ok());
    let to = parts.next().and_then(|p| p.parse().ok());
    match from {
        Some(from) => (trimmed[..open].trim_end().to_string(), Some(Span { from, to })),
        None => (trimmed.to_string(), None),
    }
}

/// `9`, `9 dynamic`, `5.0.0(12)`, `26.0.0`.
fn since(text: &str) -> Since {
    let mut words = text.split_whitespace();
    let value = words.next().unwrap_or("").to_string();
    let arkts = words.next().map(String::from);
    let level = value.parse().ok().or_else(|| {
        let open = value.find('(')?;
        value[open + 1..].strip_suffix(')')?.parse().ok()
    });
    Since { level, text: value, arkts }
}

/// `{ type } rest` → (type, rest); types hold nested braces (`{ { a: number } }`).
fn braced(text: &str) -> (String, String) {
    let text = text.trim();
    if !text.starts_with('{') {
        return (String::new(), text.to_string());
    }
    let mut depth = 0;
    for (at, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return (text[1..at].trim().to_string(), text[at + 1..].trim().to_string());
                }
            }
            _ => {}
        }
    }
    (text.to_string(), String::new())
}

/// `{ T } name - description`.
fn param(text: &str, since: Option<Span>) -> Param {
    let (ty, rest) = braced(text);
    let name = rest.split_whitespace().next().unwrap_or("").trim_matches(['[', ']']).to_string();
    Param { name, ty, since }
}

/// `{ BusinessError } 201 - message`.
fn throw(text: &str, since: Option<Span>) -> Throw {
    let (_, rest) = braced(text);
    let (code, message) = rest.split_once(" - ").unwrap_or((rest.as_str(), ""));
    Throw { code: code.trim().to_string(), message: message.trim().to_string(), since }
}

/// Blocks stacked above one symbol (older SDKs: one per API level, the last current) as one:
/// the last block, its first level the lowest of all, and each mark without a span given the
/// level of the first block that carries it (`@atomicservice` from the `@since 11` block).
pub fn stacked(blocks: &[Doc]) -> Doc {
    let Some(last) = blocks.last() else { return Doc::default() };
    if blocks.len() == 1 {
        return last.clone();
    }
    let mut doc = last.clone();
    let first = blocks.iter().filter_map(|b| b.since.iter().find(|s| s.level.is_some())).min_by_key(|s| s.level);
    if let Some(first) = first {
        if !doc.since.iter().any(|s| s.level == first.level) {
            doc.since = vec![first.clone()];
        }
    }
    let current = doc.first_level();
    for (mark, span) in doc.marks.iter_mut() {
        if span.is_none() {
            let from = blocks.iter().find(|b| b.marks.contains_key(mark)).and_then(Doc::first_level);
            if from != current {
                *span = from.map(|from| Span { from, to: None });
            }
        }
    }
    for param in doc.params.iter_mut().filter(|p| p.since.is_none()) {
        let from = blocks.iter().find(|b| b.params.iter().any(|p| p.name == param.name)).and_then(Doc::first_level);
        if from != current {
            param.since = from.map(|from| Span { from, to: None });
        }
    }
    doc
}
