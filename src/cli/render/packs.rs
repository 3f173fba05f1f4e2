//! `rein pack add|update|remove|list|verify` for people.

use serde_json::Value;

use super::style::{paint, status, DIM, HEAD};

const BOLD: &str = "\x1b[1m";
const PLAIN: &str = "\x1b[0m";

/// A pack change's question as the terminal shows it: what the pack gains (`+` lines) in bold.
pub fn question(text: &str) -> String {
    let lines: Vec<String> = text
        .lines()
        .map(|line| match line.strip_prefix("    + ") {
            Some(gained) => format!("    {BOLD}+ {gained}{PLAIN}"),
            None => line.to_string(),
        })
        .collect();
    lines.join("\n")
}
use super::text::scalar_text;
use crate::cli::args::PackAction;
use crate::cli::screen::say;

/// What a pack command did, by the command.
pub fn result(action: &PackAction, value: &Value) {
    match action {
        PackAction::Add { .. } => added(value),
        PackAction::Update { .. } => updated(value),
        PackAction::Sync => synced(value),
        PackAction::Remove { .. } => {
            let name = scalar_text(&value["removed"]);
            say!("removed {name} from rein.toml and rein.lock (its installed copy stays in rein's home)");
        }
        PackAction::List => list(value),
        PackAction::Verify => verified(value),
    }
}

fn short(sha: &Value) -> String {
    sha.as_str().map(|s| s.chars().take(12).collect()).unwrap_or_else(|| "none".into())
}

fn added(value: &Value) {
    let commit = value["commit"].as_str().map(|c| format!(" at commit {}", &c[..c.len().min(12)])).unwrap_or_default();
    say!(
        "installed pack {} {}{commit} (sha256 {}) into {}",
        scalar_text(&value["pack"]),
        scalar_text(&value["version"]),
        short(&value["sha256"]),
        scalar_text(&value["installed"])
    );
    say!("rein.toml and rein.lock record it; its tools are `{}.<tool>` (`rein tools`)", scalar_text(&value["pack"]));
}

fn updated(value: &Value) {
    for pack in value["updated"].as_array().into_iter().flatten() {
        let (from, to) = (short(&pack["from"]), short(&pack["to"]));
        let change = if from == to { format!("unchanged ({to})") } else { format!("{from} → {to}") };
        say!("{}  {change}", scalar_text(&pack["pack"]));
    }
}

fn synced(value: &Value) {
    let packs = value["synced"].as_array().cloned().unwrap_or_default();
    if packs.is_empty() {
        say!("no packs in rein.lock to install");
    }
    for p in packs {
        let what = if p["installed"].as_bool() == Some(true) {
            format!("installed ({})", short(&p["sha256"]))
        } else {
            p["reason"].as_str().unwrap_or("not installed").to_string()
        };
        say!("{}  {what}", scalar_text(&p["pack"]));
    }
}

fn list(value: &Value) {
    let packs = value["packs"].as_array().cloned().unwrap_or_default();
    if packs.is_empty() {
        say!("no packs in rein.lock; add one with `rein pack add FOLDER` or a git source");
        return;
    }
    let width = |key: &str, min: usize| packs.iter().map(|p| scalar_text(&p[key]).len()).max().unwrap_or(0).max(min);
    let (name_w, version_w, source_w) = (width("name", 4), width("version", 7), width("source", 6));
    say!("{}", paint(HEAD, format!("{:<name_w$}  {:<version_w$}  {:<source_w$}  SHA256", "NAME", "VERSION", "SOURCE")));
    for p in &packs {
        let commit = p["commit"].as_str().map(|c| format!(" @{}", &c[..c.len().min(12)])).unwrap_or_default();
        say!(
            "{:<name_w$}  {:<version_w$}  {:<source_w$}  {}{}",
            scalar_text(&p["name"]),
            scalar_text(&p["version"]),
            scalar_text(&p["source"]),
            short(&p["sha256"]),
            paint(DIM, commit)
        );
    }
}

fn verified(value: &Value) {
    let packs = value["packs"].as_array().cloned().unwrap_or_default();
    if packs.is_empty() {
        say!("no packs in rein.lock");
    }
    for p in packs {
        let ok = p["ok"].as_bool() == Some(true);
        let word = if ok { "ok" } else { "FAIL" };
        let why = p["message"].as_str().map(|m| format!(": {m}")).unwrap_or_default();
        say!("{}  {}{why}", status(word), scalar_text(&p["pack"]));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn gained_permissions_are_bold() {
        let shown = super::question("Update pack x?\n    + hdc install\n      hvigorw\n    - hdc shell");
        assert!(shown.contains("    \x1b[1m+ hdc install\x1b[0m"), "{shown:?}");
        assert!(shown.contains("\n      hvigorw\n    - hdc shell"), "{shown:?}");
    }
}
