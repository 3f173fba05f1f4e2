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

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::reader::{self, Import};

/// The longest condition read as a guard: the documented ones are a comparison or a call or
/// two, and reading each of thousands of nested conditions whole took minutes.
const GUARD_CONDITION_LIMIT: usize = 1024;

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
    /// The guards around it.
    #[serde(skip)]
    inside: Inside,
}

/// What the guards around a use allow: the highest level and version any of them checks, and
/// the innermost that checks a syscap.
#[derive(Debug, Clone, Copy, Default)]
struct Inside {
    level: Option<u32>,
    version: Option<u32>,
    syscap_guard: Option<usize>,
}

#[derive(Debug, Clone, Default)]
struct Guard {
    start: usize,
    end: usize,
    level: Option<u32>,
    version: Option<u32>,
    syscaps: Vec<String>,
    /// The innermost guard around this one that checks a syscap.
    outer_syscap_guard: Option<usize>,
}

/// How many guards that check a syscap, innermost first, a use is judged by: a chain of
/// thousands nested, walked for each of thousands of uses, took minutes.
const SYSCAP_GUARDS_FOLLOWED: usize = 32;

#[derive(Debug, Clone, Default)]
pub struct Uses {
    pub imports: Vec<ImportAt>,
    pub uses: Vec<Use>,
    guards: Vec<Guard>,
    /// Each local name's import (the first that binds it): an index into `imports`.
    bound: HashMap<String, usize>,
    /// Each local name its import binds in braces: the SDK name it stands for (the first in
    /// that import's braces). Kept here because looking it up among the import's names, for
    /// each use, was the import's length times the uses (one name imported 50,000 times over).
    named: HashMap<String, String>,
}

/// Whether a module name is one the check looks at.
pub fn is_sdk_module(from: &str) -> bool {
    ["@ohos.", "@kit.", "@hms."].iter().any(|p| from.starts_with(p))
}

impl Uses {
    /// The import that binds `local`.
    pub fn import_of(&self, local: &str) -> Option<&ImportAt> {
        self.bound.get(local).map(|at| &self.imports[*at])
    }

    /// The SDK name `local` stands for in its import's braces; None for a default import.
    pub fn imported_name(&self, local: &str) -> Option<&str> {
        self.named.get(local).map(String::as_str)
    }

    /// Whether the use is inside a block guarded for `level` / `version` (M*10000+S*100+F) or
    /// `syscap`.
    pub fn guarded(&self, used: &Use, level: Option<u32>, version: Option<u32>, syscap: Option<&str>) -> bool {
        let inside = used.inside;
        let by_level = matches!((inside.level, level), (Some(have), Some(need)) if have >= need);
        let by_version = matches!((inside.version, version), (Some(have), Some(need)) if have >= need);
        let by_syscap = syscap.is_some_and(|s| {
            std::iter::successors(inside.syscap_guard, |g| self.guards[*g].outer_syscap_guard)
                .take(SYSCAP_GUARDS_FOLLOWED)
                .any(|g| self.guards[g].syscaps.iter().any(|c| c == s))
        });
        by_level || by_version || by_syscap
    }
}

/// Says of each use what the guards around it allow (`Inside`), in one sweep: guard blocks are
/// matched braces, so those around a place are nested in one another.
fn place_in_guards(guards: &mut [Guard], uses: &mut [Use]) {
    let mut starts: Vec<usize> = (0..guards.len()).collect();
    starts.sort_by_key(|g| guards[*g].start);
    let mut by_offset: Vec<usize> = (0..uses.len()).collect();
    by_offset.sort_by_key(|u| uses[*u].offset);
    // The guards open at the place reached, innermost last, each with what it and those around
    // it allow.
    let mut open: Vec<(usize, Inside)> = Vec::new();
    let mut next = 0;
    for u in by_offset {
        let offset = uses[u].offset;
        while let Some(&g) = starts.get(next).filter(|g| guards[**g].start <= offset) {
            next += 1;
            while open.last().is_some_and(|(o, _)| guards[*o].end <= guards[g].start) {
                open.pop();
            }
            let around = open.last().map(|(_, inside)| *inside).unwrap_or_default();
            guards[g].outer_syscap_guard = around.syscap_guard;
            let inside = Inside {
                level: around.level.max(guards[g].level),
                version: around.version.max(guards[g].version),
                syscap_guard: if guards[g].syscaps.is_empty() { around.syscap_guard } else { Some(g) },
            };
            open.push((g, inside));
        }
        while open.last().is_some_and(|(o, _)| guards[*o].end <= offset) {
            open.pop();
        }
        uses[u].inside = open.last().map(|(_, inside)| *inside).unwrap_or_default();
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
        // Without a `from`, or its quotes, after this import none follows a later one either:
        // looking again from each later `import` read the rest of the file each time.
        let Some(from) = code[start..].find("from") else { break };
        let after = start + from + 4;
        let rest = &text[after..];
        let quote_at = rest.find(['\'', '"']).map(|q| after + q);
        let Some(q) = quote_at else { break };
        let close = text[q + 1..].find(['\'', '"']).map(|c| q + 1 + c);
        let Some(close) = close else { break };
        let statement = &text[start..=close];
        if let Some(import) = reader::import(statement) {
            if is_sdk_module(&import.from) {
                let (line, column) = lines.at(start);
                uses.imports.push(ImportAt { import, line, column });
            }
        }
        at = close;
    }
    // The names the imports bind, each with the first import that binds it; one pass over the
    // file's words finds their uses (a search of the whole file per name took minutes for an
    // import of thousands of names).
    let mut ranks: HashMap<&str, usize> = HashMap::new();
    for (at, import) in uses.imports.iter().enumerate() {
        for local in import.import.default.iter().chain(import.import.names.iter().map(|(_, l)| l)) {
            uses.bound.entry(local.clone()).or_insert(at);
            let next = ranks.len();
            ranks.entry(local).or_insert(next);
        }
    }
    for (at, import) in uses.imports.iter().enumerate() {
        for (imported, local) in &import.import.names {
            if uses.bound.get(local) == Some(&at) && !uses.named.contains_key(local) {
                uses.named.insert(local.clone(), imported.clone());
            }
        }
    }
    let import_lines: HashSet<usize> = uses.imports.iter().map(|i| i.line).collect();
    let mut found = Vec::new();
    for (start, word) in words(&code) {
        let Some(&rank) = ranks.get(word) else { continue };
        if code[..start].ends_with('.') || import_lines.contains(&lines.at(start).0) {
            continue;
        }
        let mut members = Vec::new();
        let mut end = start + word.len();
        while code[end..].starts_with('.') {
            let member: String = code[end + 1..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if member.is_empty() {
                break;
            }
            end += 1 + member.len();
            members.push(member);
        }
        if !members.is_empty() {
            let (line, column) = lines.at(start);
            let inside = Inside::default();
            found.push((rank, Use { local: word.to_string(), members, line, column, offset: start, inside }));
        }
    }
    // By name, in the order the imports bind them, then in the file's order.
    found.sort_by_key(|(rank, used)| (*rank, used.offset));
    uses.uses = found.into_iter().map(|(_, used)| used).collect();
    uses.guards = guards(text, &code);
    place_in_guards(&mut uses.guards, &mut uses.uses);
    uses
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

fn starts_word(code: &str, at: usize) -> bool {
    code[..at].chars().next_back().is_none_or(|c| !is_word_char(c))
}

/// Each whole word of `code` (letters, digits, `_`, `$`) with where it starts.
fn words(code: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut chars = code.char_indices().peekable();
    std::iter::from_fn(move || {
        while chars.next_if(|(_, c)| !is_word_char(*c)).is_some() {}
        let (start, _) = *chars.peek()?;
        let mut end = start;
        while let Some((at, c)) = chars.next_if(|(_, c)| is_word_char(*c)) {
            end = at + c.len_utf8();
        }
        Some((start, &code[start..end]))
    })
}

/// `if (cond) {` blocks whose condition is a documented guard. Each bracket's match is found in
/// one pass over the file for all of them: searching from each `if` to its block's end read
/// the rest of the file once per `if` (thousands of unclosed ones took minutes).
fn guards(text: &str, code: &str) -> Vec<Guard> {
    let mut conditions = Vec::new();
    let mut at = 0;
    while let Some(found) = code[at..].find("if") {
        let start = at + found;
        at = start + 2;
        if !starts_word(code, start) || !code[at..].trim_start().starts_with('(') {
            continue;
        }
        conditions.push(at + code[at..].find('(').unwrap_or(0));
    }
    let closes = closes_of(code, &conditions, b'(', b')');
    let mut blocks = Vec::new();
    for open in conditions {
        let Some(&close) = closes.get(&open) else { continue };
        let after = code[close + 1..].trim_start();
        if after.starts_with('{') && close - open <= GUARD_CONDITION_LIMIT {
            blocks.push((open, close, code.len() - after.len()));
        }
    }
    let ends = closes_of(code, &blocks.iter().map(|(_, _, brace)| *brace).collect::<Vec<_>>(), b'{', b'}');
    let mut out = Vec::new();
    for (open, close, brace) in blocks {
        let Some(&end) = ends.get(&brace) else { continue };
        let cond = &text[open + 1..close];
        let guard = Guard {
            start: brace,
            end,
            level: compared(cond, "sdkApiVersion").or_else(|| available(cond).and_then(|a| a.parse().ok())),
            version: compared(cond, "distributionOSApiVersion").or_else(|| available(cond).and_then(version_number)),
            syscaps: quoted_after(cond, "canIUse("),
            outer_syscap_guard: None,
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

/// The `c` that closes each `o` at `opens` (in ascending order), counting only `o` and `c`, in
/// one pass; an unclosed one has none.
fn closes_of(code: &str, opens: &[usize], o: u8, c: u8) -> HashMap<usize, usize> {
    let mut wanted = opens.iter().peekable();
    // The wanted brackets still open, with the depth each opened at.
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut out = HashMap::new();
    for (i, b) in code.bytes().enumerate() {
        if b == o {
            depth += 1;
            while wanted.next_if(|w| **w < i).is_some() {}
            if wanted.next_if(|w| **w == i).is_some() {
                open.push((i, depth));
            }
        } else if b == c && depth > 0 {
            if open.last().is_some_and(|(_, d)| *d == depth) {
                let (at, _) = open.pop().expect("just seen");
                out.insert(at, i);
            }
            depth -= 1;
        }
    }
    out
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
