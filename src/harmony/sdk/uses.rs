//! What an ArkTS file uses from the SDK: its imports from `@ohos.*`, `@kit.*` and `@hms.*`,
//! each `name.member…` chain on what they bind, and the `if` blocks that guard an API level.
//!
//! The guards are the forms Huawei documents for ArkTS API compatibility:
//! - `deviceInfo.sdkApiVersion >= N` (developer.huawei.com harmonyos-references
//!   js-apis-device-info: "sdkApiVersion … can be used for API compatibility");
//! - `deviceInfo.distributionOSApiVersion >= M*10000+S*100+F` for HarmonyOS APIs marked
//!   `since M.S.F(N)` (developer.huawei.com harmonyOS-Faqs basic-services-kit-faq-0001);
//! - `deviceInfo.apiAvailable(N)` / `apiAvailable('M.S.F')` (doccenter-release-notes
//!   arkts-api-compatibility-warning-elim, "ArkTS API兼容性保护");
//! - `canIUse('SystemCapability.X')` for an API of that syscap (the same page; syscap-ndk
//!   `canIUse`).
//!
//! Only a guard whose `if (…) { … }` block holds the use counts; an early return is not
//! followed.

use serde::Serialize;

use super::reader::{self, Import};

#[derive(Debug, Clone, Serialize)]
pub struct ImportAt {
    pub import: Import,
    pub line: usize,
    pub column: usize,
}

/// `local.a.b` at a place.
#[derive(Debug, Clone, Serialize)]
pub struct Use {
    pub local: String,
    pub members: Vec<String>,
    pub line: usize,
    pub column: usize,
    offset: usize,
}

#[derive(Debug, Clone, Default)]
struct Guard {
    start: usize,
    end: usize,
    level: Option<u32>,
    version: Option<u32>,
    syscaps: Vec<String>,
}

#[derive(Debug, Clone, Default)]
pub struct Uses {
    pub imports: Vec<ImportAt>,
    pub uses: Vec<Use>,
    guards: Vec<Guard>,
}

/// Whether a module name is one the check looks at.
pub fn is_sdk_module(from: &str) -> bool {
    ["@ohos.", "@kit.", "@hms."].iter().any(|p| from.starts_with(p))
}

impl Uses {
    /// Whether the use is inside a block guarded for `level` / `version` (M*10000+S*100+F) or
    /// `syscap`.
    pub fn guarded(&self, used: &Use, level: Option<u32>, version: Option<u32>, syscap: Option<&str>) -> bool {
        self.guards.iter().filter(|g| g.start <= used.offset && used.offset < g.end).any(|g| {
            let by_level = matches!((g.level, level), (Some(have), Some(need)) if have >= need);
            let by_version = matches!((g.version, version), (Some(have), Some(need)) if have >= need);
            let by_syscap = syscap.is_some_and(|s| g.syscaps.iter().any(|c| c == s));
            by_level || by_version || by_syscap
        })
    }
}

/// `5.0.3(15)` → 50003.
pub fn version_number(text: &str) -> Option<u32> {
    let version = text.split('(').next()?;
    let parts: Vec<u32> = version.split('.').map(|p| p.trim().parse().ok()).collect::<Option<_>>()?;
    match parts.as_slice() {
        [m, s, f] => Some(m * 10000 + s * 100 + f),
        _ => None,
    }
}

pub fn scan(text: &str) -> Uses {
    let code = blank(text);
    let mut uses = Uses::default();
    let lines = LineIndex::new(text);
    // Imports: `import … from '…'` statements (the module string read from the real text).
    let mut at = 0;
    while let Some(found) = code[at..].find("import") {
        let start = at + found;
        at = start + 6;
        if !starts_word(&code, start) || !code[at..].starts_with([' ', '\t', '{', '*']) {
            continue;
        }
        let Some(from) = code[start..].find("from") else { continue };
        let after = start + from + 4;
        let rest = &text[after..];
        let quote_at = rest.find(['\'', '"']).map(|q| after + q);
        let Some(q) = quote_at else { continue };
        let close = text[q + 1..].find(['\'', '"']).map(|c| q + 1 + c);
        let Some(close) = close else { continue };
        let statement = &text[start..=close];
        if let Some(import) = reader::import(statement) {
            if is_sdk_module(&import.from) {
                let (line, column) = lines.at(start);
                uses.imports.push(ImportAt { import, line, column });
            }
        }
        at = close;
    }
    let locals: Vec<String> = uses
        .imports
        .iter()
        .flat_map(|i| i.import.default.iter().cloned().chain(i.import.names.iter().map(|(_, l)| l.clone())))
        .collect();
    for local in &locals {
        let mut from = 0;
        while let Some(found) = code[from..].find(local.as_str()) {
            let start = from + found;
            from = start + local.len();
            if !starts_word(&code, start) || code[..start].ends_with('.') || in_import(&uses, &lines, start) {
                continue;
            }
            let mut members = Vec::new();
            let mut end = from;
            while code[end..].starts_with('.') {
                let word: String = code[end + 1..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if word.is_empty() {
                    break;
                }
                end += 1 + word.len();
                members.push(word);
            }
            if !members.is_empty() {
                let (line, column) = lines.at(start);
                uses.uses.push(Use { local: local.clone(), members, line, column, offset: start });
            }
        }
    }
    uses.guards = guards(text, &code);
    uses
}

fn in_import(uses: &Uses, lines: &LineIndex, at: usize) -> bool {
    let (line, _) = lines.at(at);
    uses.imports.iter().any(|i| i.line == line)
}

fn starts_word(code: &str, at: usize) -> bool {
    code[..at].chars().next_back().is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '$'))
}

/// `if (cond) {` blocks whose condition is a documented guard.
fn guards(text: &str, code: &str) -> Vec<Guard> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = code[at..].find("if") {
        let start = at + found;
        at = start + 2;
        if !starts_word(code, start) || !code[at..].trim_start().starts_with('(') {
            continue;
        }
        let open = at + code[at..].find('(').unwrap_or(0);
        let Some(close) = matching(code, open, b'(', b')') else { continue };
        let after = code[close + 1..].trim_start();
        if !after.starts_with('{') {
            continue;
        }
        let brace = code.len() - after.len();
        let Some(end) = matching(code, brace, b'{', b'}') else { continue };
        let cond = &text[open + 1..close];
        let guard = Guard {
            start: brace,
            end,
            level: compared(cond, "sdkApiVersion").or_else(|| available(cond).and_then(|a| a.parse().ok())),
            version: compared(cond, "distributionOSApiVersion").or_else(|| available(cond).and_then(version_number)),
            syscaps: quoted_after(cond, "canIUse("),
        };
        if guard.level.is_some() || guard.version.is_some() || !guard.syscaps.is_empty() {
            out.push(guard);
        }
    }
    out
}

/// `name >= N` → N, `name > N` → N + 1.
fn compared(cond: &str, name: &str) -> Option<u32> {
    let at = cond.find(name)? + name.len();
    let rest = cond[at..].trim_start();
    let (strict, rest) = match rest.strip_prefix(">=") {
        Some(r) => (false, r),
        None => (true, rest.strip_prefix('>')?),
    };
    let digits: String = rest.trim_start().chars().take_while(char::is_ascii_digit).collect();
    let n: u32 = digits.parse().ok()?;
    Some(if strict { n + 1 } else { n })
}

/// `apiAvailable(20)` → "20", `apiAvailable('5.0.1')` → "5.0.1".
fn available(cond: &str) -> Option<&str> {
    let at = cond.find("apiAvailable(")? + "apiAvailable(".len();
    let rest = &cond[at..];
    let end = rest.find(')')?;
    Some(rest[..end].trim().trim_matches(['\'', '"']))
}

fn quoted_after(cond: &str, call: &str) -> Vec<String> {
    cond.match_indices(call)
        .filter_map(|(at, _)| {
            let rest = cond[at + call.len()..].trim_start();
            let quote = rest.chars().next().filter(|c| *c == '\'' || *c == '"')?;
            rest[1..].split(quote).next().map(String::from)
        })
        .collect()
}

fn matching(code: &str, open: usize, o: u8, c: u8) -> Option<usize> {
    let mut depth = 0;
    for (i, b) in code.bytes().enumerate().skip(open) {
        if b == o {
            depth += 1;
        } else if b == c {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// The text with comments and the insides of strings blanked (same length, lines kept).
fn blank(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut i = 0;
    let wipe = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in out.iter_mut().take(to.min(bytes.len())).skip(from) {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(bytes.len(), |e| i + e);
                wipe(&mut out, i, end);
                i = end;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..].find("*/").map_or(bytes.len(), |e| i + 2 + e + 2);
                wipe(&mut out, i, end);
                i = end;
            }
            q @ (b'\'' | b'"' | b'`') => {
                let mut j = i + 1;
                while j < bytes.len() && bytes[j] != q {
                    j += if bytes[j] == b'\\' { 2 } else { 1 };
                }
                wipe(&mut out, i + 1, j);
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes were replaced by ASCII spaces inside whole characters' ranges, except
    // inside strings and comments, where any byte became a space: still valid UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// 1-based line and column (in bytes) of `offset`.
    fn at(&self, offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|s| *s <= offset);
        (line, offset - self.starts[line - 1] + 1)
    }
}
