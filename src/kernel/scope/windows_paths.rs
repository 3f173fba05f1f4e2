//! Windows path syntax as pure functions on strings, so the scope's Windows rules are
//! table-tested on every OS (Linux CI included). `kernel::scope` uses them on Windows.
//!
//! Win32 quietly rewrites paths before the filesystem sees them: `/` becomes `\`, trailing dots
//! and spaces are dropped (`.git.` is `.git`), `CON` or `nul.txt` name a device in any folder,
//! `name:stream` opens an alternate data stream of `name`, `GIT~1` may be the 8.3 short name of
//! `.git`, and `\\.\` / `\\?\GLOBALROOT` reach devices and volumes directly. A check that read
//! the text differently from Windows could be walked around, so anything whose meaning cannot
//! be proved here is refused (`Refused`), and what is accepted is turned into one verbatim
//! form (`\\?\C:\...`, `\\?\UNC\server\share\...`) that Windows opens without rewriting it.
//!
//! Names compare without case, as NTFS does: for containment (is this inside the workspace?)
//! only ASCII letters fold, so an unusual letter makes a path look *outside* (asked about,
//! never silently allowed); for protected names (`.git`, `.rein`, `rein.toml`) every letter
//! folds by its simple Unicode uppercase, so `.gıt` (dotless i) counts as `.git` too (and, for
//! macOS, names compare normalized, without the code points HFS+ ignores).

use std::collections::VecDeque;

use super::protected::{self, same_name};
use super::PathClass;

/// Symlink and junction hops allowed while resolving one path (as on Unix).
const MAX_LINK_HOPS: usize = 40;

/// Where a Windows path starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Root {
    /// A drive letter, uppercase.
    Drive(char),
    /// `\\server\share`.
    Unc { server: String, share: String },
}

/// An absolute Windows path without `.`, `..` or empty parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WinPath {
    pub root: Root,
    pub parts: Vec<String>,
}

/// Why a path was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path:?} is refused on Windows: {why}; name the file plainly (e.g. C:\\ws\\src\\a.ets or src/a.ets)")]
pub struct Refused {
    pub path: String,
    pub why: &'static str,
}

impl WinPath {
    /// The verbatim form Windows opens as written: `\\?\C:\a\b`, `\\?\UNC\srv\share\a`.
    pub fn verbatim(&self) -> String {
        self.joined(match &self.root {
            Root::Drive(letter) => format!(r"\\?\{letter}:"),
            Root::Unc { server, share } => format!(r"\\?\UNC\{server}\{share}"),
        })
    }

    /// The familiar form for messages: `C:\a\b`, `\\srv\share\a`.
    pub fn display(&self) -> String {
        self.joined(match &self.root {
            Root::Drive(letter) => format!("{letter}:"),
            Root::Unc { server, share } => format!(r"\\{server}\{share}"),
        })
    }

    /// `root` followed by each part, a root alone ending in `\`.
    fn joined(&self, mut out: String) -> String {
        if self.parts.is_empty() {
            out.push('\\');
        }
        for part in &self.parts {
            out.push('\\');
            out.push_str(part);
        }
        out
    }

    /// The parts after `base` when this path is `base` or inside it (ASCII letters compare
    /// without case; see the module comment).
    pub fn strip_prefix(&self, base: &WinPath) -> Option<&[String]> {
        let same_root = match (&self.root, &base.root) {
            (Root::Drive(a), Root::Drive(b)) => a == b,
            (Root::Unc { server: s1, share: h1 }, Root::Unc { server: s2, share: h2 }) => {
                s1.eq_ignore_ascii_case(s2) && h1.eq_ignore_ascii_case(h2)
            }
            _ => false,
        };
        let inside = same_root
            && self.parts.len() >= base.parts.len()
            && self.parts.iter().zip(&base.parts).all(|(a, b)| a.eq_ignore_ascii_case(b));
        inside.then(|| &self.parts[base.parts.len()..])
    }

    /// The same path with the first parts spelled as in `base` (the workspace as found on
    /// disk), when it is inside `base`.
    pub fn rebased(&self, base: &WinPath) -> WinPath {
        match self.strip_prefix(base) {
            Some(rest) => WinPath { root: base.root.clone(), parts: base.parts.iter().chain(rest).cloned().collect() },
            None => self.clone(),
        }
    }
}

/// Parses `text` as Windows would, relative paths starting at `base` (the workspace).
pub fn parse(text: &str, base: &WinPath) -> Result<WinPath, Refused> {
    let refuse = |why| Refused { path: text.to_string(), why };
    if text.is_empty() {
        return Err(refuse("the path is empty"));
    }
    if text.chars().any(|c| c == '\0') {
        return Err(refuse("it contains a NUL character"));
    }
    if let Some(rest) = text.strip_prefix(r"\\?\") {
        return parse_verbatim(rest).map_err(refuse);
    }
    if is_dos_or_nt_prefix(text) {
        return Err(refuse("it names a device or the NT namespace (\\\\.\\, \\??\\), not a file"));
    }
    // Outside verbatim paths, Win32 takes `/` as a separator too.
    let text_slashed = text.replace('/', "\\");
    let (root, rest, mut parts) = if let Some(unc) = text_slashed.strip_prefix(r"\\") {
        let mut pieces = unc.splitn(3, '\\');
        let server = pieces.next().unwrap_or_default();
        let share = pieces.next().unwrap_or_default();
        if server.is_empty() || share.is_empty() {
            return Err(refuse("a UNC path needs \\\\server\\share"));
        }
        check_share(server, share).map_err(refuse)?;
        let root = Root::Unc { server: server.to_string(), share: share.to_string() };
        (root, pieces.next().unwrap_or_default().to_string(), Vec::new())
    } else if let Some((letter, after)) = drive(&text_slashed) {
        if !after.starts_with('\\') {
            return Err(refuse("a drive-relative path (C:name, C:) depends on that drive's current folder"));
        }
        (Root::Drive(letter), after.to_string(), Vec::new())
    } else if let Some(after) = text_slashed.strip_prefix('\\') {
        (base.root.clone(), after.to_string(), Vec::new())
    } else {
        (base.root.clone(), text_slashed.clone(), base.parts.clone())
    };
    for part in rest.split('\\') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            name => {
                check_name(name).map_err(refuse)?;
                parts.push(name.to_string());
            }
        }
    }
    Ok(WinPath { root, parts })
}

/// Win32 reads two separators (either kind) then `.` or `?` then a separator or the end as a
/// device path (`\\.\C:`, `//?/C:`, `/\.\`), and `\??\` as an NT path. Only the exact `\\?\`
/// form is a verbatim file path, and it is handled before this.
fn is_dos_or_nt_prefix(text: &str) -> bool {
    let head: Vec<char> = text.chars().take(4).collect();
    let sep = |i: usize| matches!(head.get(i), Some('\\' | '/'));
    let dos = sep(0) && sep(1) && matches!(head.get(2), Some('.' | '?')) && (head.len() == 3 || sep(3));
    let nt = sep(0) && head.get(1) == Some(&'?') && head.get(2) == Some(&'?') && sep(3);
    dos || nt
}

/// `\\?\` paths reach the filesystem as written: no `/`, `.` or `..` handling.
fn parse_verbatim(rest: &str) -> Result<WinPath, &'static str> {
    if rest.contains('/') {
        return Err("a verbatim (\\\\?\\) path takes `/` literally; use `\\` only");
    }
    let (root, tail) = if let Some(unc) = rest.strip_prefix("UNC\\") {
        let mut pieces = unc.splitn(3, '\\');
        let server = pieces.next().unwrap_or_default();
        let share = pieces.next().unwrap_or_default();
        if server.is_empty() || share.is_empty() {
            return Err("a UNC path needs \\\\?\\UNC\\server\\share");
        }
        check_share(server, share)?;
        (Root::Unc { server: server.to_string(), share: share.to_string() }, pieces.next().unwrap_or_default())
    } else if let Some((letter, after)) = drive(rest) {
        if !after.starts_with('\\') {
            return Err("a verbatim drive path needs `\\` after the colon (\\\\?\\C: is the raw volume)");
        }
        (Root::Drive(letter), after)
    } else {
        return Err("it names a volume or device (\\\\?\\GLOBALROOT, \\\\?\\Volume{...}), not a drive or share");
    };
    let mut parts = Vec::new();
    for part in tail.split('\\') {
        match part {
            "" => {}
            "." | ".." => return Err("a verbatim (\\\\?\\) path keeps `.` and `..` as names"),
            name => {
                check_name(name)?;
                parts.push(name.to_string());
            }
        }
    }
    Ok(WinPath { root, parts })
}

/// A UNC server and share, refused when they may be this machine's own disks under another
/// name (`\\localhost\C$\ws\.git` is the workspace's `.git`, but would look outside).
fn check_share(server: &str, share: &str) -> Result<(), &'static str> {
    check_name(server)?;
    check_name(share)?;
    if share.ends_with('$') {
        return Err("an administrative share (C$, ADMIN$) may be this machine's own disk under another name");
    }
    // WebDAV names a port or SSL after `@` (`\\localhost@SSL@443\DavWWWRoot`): the host is
    // before it.
    let host = server.split('@').next().unwrap_or(server);
    let local = ["localhost", "127.0.0.1", "::1", "0.0.0.0"];
    let lower = host.to_ascii_lowercase();
    if local.contains(&lower.as_str())
        || host.starts_with("127.")
        || host.contains(':')
        || lower.ends_with(".ipv6-literal.net")
        || legacy_ipv4(host).is_some_and(|ip| ip >> 24 == 127 || ip == 0)
    {
        return Err("a share on this machine (localhost) is its own disk under another name");
    }
    Ok(())
}

/// `host` as an IPv4 address in the forms inet_addr (and Windows' non-strict
/// RtlIpv4StringToAddress) accept besides dotted decimal: one to four parts, each decimal,
/// octal (leading 0) or hex (0x), the last filling the remaining bytes (`2130706433`,
/// `0x7f.1`, `0177.0.0.1` are all 127.0.0.1).
fn legacy_ipv4(host: &str) -> Option<u32> {
    let parts: Vec<&str> = host.split('.').collect();
    if parts.len() > 4 {
        return None;
    }
    let mut values = Vec::with_capacity(parts.len());
    for part in &parts {
        let lower = part.to_ascii_lowercase();
        let value = if let Some(hex) = lower.strip_prefix("0x") {
            if hex.is_empty() {
                0
            } else {
                u64::from_str_radix(hex, 16).ok()?
            }
        } else if lower.len() > 1 && lower.starts_with('0') {
            u64::from_str_radix(&lower[1..], 8).ok()?
        } else {
            lower.parse::<u64>().ok()?
        };
        values.push(value);
    }
    let (last, head) = values.split_last()?;
    if head.iter().any(|v| *v > 255) {
        return None;
    }
    let last_bits = 8 * (4 - head.len() as u32);
    if last_bits < 64 && *last >= 1u64 << last_bits {
        return None;
    }
    let mut ip: u64 = 0;
    for (i, v) in head.iter().enumerate() {
        ip |= v << (24 - 8 * i as u32);
    }
    u32::try_from(ip | last).ok()
}

/// `C:` at the start: the uppercase letter and what follows the colon.
fn drive(text: &str) -> Option<(char, &str)> {
    let mut chars = text.chars();
    let letter = chars.next().filter(char::is_ascii_alphabetic)?;
    (chars.next() == Some(':')).then(|| (letter.to_ascii_uppercase(), &text[2..]))
}

/// One path part, refused when Windows could read it as something else.
fn check_name(name: &str) -> Result<(), &'static str> {
    if name.ends_with('.') || name.ends_with(' ') {
        return Err("a name ending in a dot or space is trimmed by Windows (`.git.` is `.git`)");
    }
    if name.contains(':') {
        return Err("`:` in a name opens an alternate data stream (name:stream)");
    }
    if name.chars().any(|c| matches!(c, '<' | '>' | '"' | '|' | '?' | '*') || (c as u32) < 0x20) {
        return Err("a name with <, >, \", |, ?, * or a control character is not a plain file name");
    }
    if is_short_name(name) {
        return Err("a name like GIT~1 may be the 8.3 short name of another (of .git, say)");
    }
    if is_reserved_dos_name(name) {
        return Err("CON, PRN, AUX, NUL, COM1-9 and LPT1-9 name devices in every folder, with any extension");
    }
    Ok(())
}

/// `~` followed by a digit: what 8.3 short names look like (`PROGRA~1`, `GIT~1`, `REIN~1.TOM`).
fn is_short_name(name: &str) -> bool {
    name.split('~').skip(1).any(|after| after.starts_with(|c: char| c.is_ascii_digit()))
}

/// A DOS device name, before any extension and trailing spaces (`nul.txt`, `COM1 .log`).
fn is_reserved_dos_name(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name).trim_end_matches(' ');
    let upper = stem.to_ascii_uppercase();
    if matches!(upper.as_str(), "CON" | "PRN" | "AUX" | "NUL" | "CONIN$" | "CONOUT$" | "CLOCK$") {
        return true;
    }
    let Some(last) = stem.chars().last() else { return false };
    let head: String = upper.chars().take(3).collect();
    let digit = last.is_ascii_digit() || matches!(last, '¹' | '²' | '³');
    (head == "COM" || head == "LPT") && stem.chars().count() == 4 && digit
}

/// The class of `real` (resolved), as `Scope::classify` decides on Unix: the protected names
/// table first (`.rein` at the workspace root and `.git` anywhere in it are protected,
/// `rein.toml`/`rein.lock` at its root are policy, in any case), then home beats workspace.
pub fn classify(workspace: &WinPath, home: &WinPath, real: &WinPath) -> PathClass {
    // The stricter classes fold every letter, so a workspace or home spelled with letters
    // beyond ASCII (`C:\Users\José`) in another case keeps its class; only the looser
    // Workspace class needs the narrow match.
    if let Some(class) = strip_prefix_folded(real, workspace).and_then(protected::class_of) {
        return class;
    }
    if strip_prefix_folded(real, home).is_some() {
        return PathClass::Home;
    }
    if real.strip_prefix(workspace).is_some() {
        return PathClass::Workspace;
    }
    PathClass::Outside
}

/// The parts of `path` after `base` when it is `base` or inside it, every letter compared
/// without case ([`same_name`]): for the classes a looser match must not miss.
fn strip_prefix_folded<'a>(path: &'a WinPath, base: &WinPath) -> Option<&'a [String]> {
    let same_root = match (&path.root, &base.root) {
        (Root::Drive(a), Root::Drive(b)) => a == b,
        (Root::Unc { server: s1, share: h1 }, Root::Unc { server: s2, share: h2 }) => {
            same_name(s1, s2) && same_name(h1, h2)
        }
        _ => false,
    };
    let inside = same_root
        && path.parts.len() >= base.parts.len()
        && path.parts.iter().zip(&base.parts).all(|(a, b)| same_name(a, b));
    inside.then(|| &path.parts[base.parts.len()..])
}

/// Follows every symlink and junction along `path` (absolute, parsed). `link_of` says what a
/// path is a link to (its target as stored, e.g. `..\x` or `\??\C:\target`), None for
/// anything else (a missing part included, so links to missing places still resolve), or why
/// a link cannot be read (then the path is refused, never followed elsewhere).
pub fn resolve_links(
    path: &WinPath,
    link_of: &dyn Fn(&WinPath) -> Result<Option<String>, &'static str>,
) -> Result<WinPath, Refused> {
    let refuse = |why| Refused { path: path.display(), why };
    let mut pending: VecDeque<String> = path.parts.iter().cloned().collect();
    let mut out = WinPath { root: path.root.clone(), parts: Vec::new() };
    let mut hops = 0;
    while let Some(part) = pending.pop_front() {
        if part == ".." {
            out.parts.pop();
            continue;
        }
        let mut candidate = out.clone();
        candidate.parts.push(part);
        let Some(target) = link_of(&candidate).map_err(refuse)? else {
            out = candidate;
            continue;
        };
        hops += 1;
        if hops > MAX_LINK_HOPS {
            return Err(refuse("too many levels of links (a cycle?)"));
        }
        let (root, parts) = link_target(&target).map_err(refuse)?;
        if let Some(root) = root {
            out = WinPath { root, parts: Vec::new() };
        }
        for (i, piece) in parts.into_iter().enumerate() {
            pending.insert(i, piece);
        }
    }
    Ok(out)
}

/// A link's target: a new root (absolute targets) and the parts to walk, `..` kept so it is
/// applied against the real parent.
fn link_target(target: &str) -> Result<(Option<Root>, Vec<String>), &'static str> {
    // Junctions store NT paths (`\??\C:\x`); std's read_link gives `\\?\C:\x`.
    let target = match target.strip_prefix(r"\??\") {
        Some(rest) => format!(r"\\?\{rest}"),
        None => target.to_string(),
    };
    let is_absolute =
        target.starts_with(r"\\") || drive(&target).is_some_and(|(_, after)| after.starts_with(['\\', '/']));
    if is_absolute {
        let any = WinPath { root: Root::Drive('C'), parts: Vec::new() };
        let parsed = parse(&target, &any).map_err(|refused| refused.why)?;
        return Ok((Some(parsed.root), parsed.parts));
    }
    if drive(&target).is_some() || target.starts_with(['\\', '/']) {
        return Err("a link to a drive-relative or root-relative path depends on the current folder");
    }
    let mut parts = Vec::new();
    for part in target.split(['\\', '/']) {
        match part {
            "" | "." => {}
            // Windows takes a `..` off the target's text, so `deep\..\x` is `x` even when
            // `deep` is itself a link, where walking the links would go through it. Only
            // leading `..` (off the link's own folder, already walked) mean the same both ways.
            ".." if parts.iter().any(|p: &String| p != "..") => {
                return Err("a link's target climbs with `..` out of a folder it names, which may itself be a link (Windows and a walk would reach different places)")
            }
            ".." => parts.push("..".to_string()),
            name => {
                check_name(name)?;
                parts.push(name.to_string());
            }
        }
    }
    Ok((None, parts))
}

#[cfg(test)]
#[path = "windows_paths_tests.rs"]
mod tests;
