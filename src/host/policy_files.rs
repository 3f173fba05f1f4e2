//! The project's policy files, rein.toml and rein.lock, as a person approved them. An agent can
//! edit them with its own file tools, outside rein, so rein keeps the versions a person
//! approved in home (`<home>/policy/<workspace id>/`) and serves the project with:
//! - the current rein.toml when it equals the approved one or only adds deny rules (such a
//!   change only tightens the policy, so it is remembered as approved at once: an agent
//!   cannot later remove a deny rule a person added by hand);
//! - otherwise the approved rein.toml plus every deny rule of the current one (tightening
//!   always applies), the rest waiting for a person (`rein approvals policy`);
//! - of rein.lock, the packs locked alike in both (a pack added or moved waits).
//!
//! A workspace rein has never seen has approved nothing: its packs and overrides wait for a
//! person's first approval; its deny rules apply at once.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::config::{ConfigError, ProjectConfig};
use crate::error::{Code, Failure};
use crate::kernel::digest::sha256_hex;
use crate::kernel::files::read::{read_optional_text, Links};
use crate::kernel::files::write;
use crate::kernel::scope::protected::{LOCK_FILE, PROJECT_FILE};
use crate::kernel::KernelError;
use crate::packs::lockfile::{Lock, LockedPack};
use crate::visible::shown_path;

/// What the project's policy is now, and what of its files waits for a person.
#[derive(Debug, Clone, Default)]
pub struct PolicyFiles {
    pub config: ProjectConfig,
    pub lock: Lock,
    /// Each change a person has not approved yet, for people to read.
    pub pending: Vec<String>,
}

/// The effective policy of `workspace`.
pub fn load(workspace: &Path, home: &Path) -> Result<PolicyFiles, Failure> {
    let current_toml = current_text(workspace, PROJECT_FILE)?;
    let current_lock = current_text(workspace, LOCK_FILE)?;
    settle(workspace, home, current_toml.as_deref(), current_lock.as_deref())
}

/// The effective policy if rein.toml and rein.lock held these texts (None: no such file).
pub fn settle(
    workspace: &Path,
    home: &Path,
    current_toml: Option<&str>,
    current_lock: Option<&str>,
) -> Result<PolicyFiles, Failure> {
    let store = store(home, workspace);
    let current_text = current_toml.unwrap_or_default();
    let approved_text = approved(&store, PROJECT_FILE)?.unwrap_or_default();
    let (config, mut pending) =
        settle_config(ProjectConfig::parse(&approved_text)?, ProjectConfig::parse(current_text)?);
    if pending.is_empty() && current_text != approved_text {
        record(workspace, home, PROJECT_FILE, Some(current_text))?;
    }
    let current_lock = match current_lock {
        Some(text) => Lock::parse(text)?,
        None => Lock::default(),
    };
    let approved_lock = match approved(&store, LOCK_FILE)? {
        Some(text) => Lock::parse(&text)?,
        None => Lock::default(),
    };
    let lock = settle_lock(&approved_lock, &current_lock, &mut pending);
    Ok(PolicyFiles { config, lock, pending })
}

/// The text of `file` (rein.toml, rein.lock) in `workspace` now; None when there is none.
pub fn current_text(workspace: &Path, file: &str) -> Result<Option<String>, Failure> {
    let path = workspace.join(file);
    read_optional_text(&path, Links::Refuse).map_err(|e| io(&path, e))
}

/// The text of `file` a person approved for `workspace`; None when they never did.
pub fn approved_text(workspace: &Path, home: &Path, file: &str) -> Result<Option<String>, Failure> {
    approved(&store(home, workspace), file)
}

/// Records these entries of rein.lock as approved (a person confirmed installing them at a
/// terminal), with the lines of rein.toml's `[packs]` that name them from the same source,
/// leaving the rest of what was approved as it was: after `rein pack sync` nothing of these
/// packs waits.
pub fn approve_lock_entries(workspace: &Path, home: &Path, entries: &[LockedPack]) -> Result<(), Failure> {
    let mut approved_lock = match approved(&store(home, workspace), LOCK_FILE)? {
        Some(text) => Lock::parse(&text)?,
        None => Lock::default(),
    };
    for entry in entries {
        approved_lock.upsert(entry.clone());
    }
    record(workspace, home, LOCK_FILE, Some(&approved_lock.to_toml()))?;
    approve_pack_lines(workspace, home, entries)
}

/// Adds to the approved rein.toml the `[packs]` lines of the current one that name `entries`
/// from their locked source.
fn approve_pack_lines(workspace: &Path, home: &Path, entries: &[LockedPack]) -> Result<(), Failure> {
    let current = ProjectConfig::parse(&current_text(workspace, PROJECT_FILE)?.unwrap_or_default())?;
    let listed: Vec<&LockedPack> = entries.iter().filter(|e| current.packs.get(&e.name) == Some(&e.source)).collect();
    if listed.is_empty() {
        return Ok(());
    }
    let approved = approved(&store(home, workspace), PROJECT_FILE)?.unwrap_or_default();
    let mut doc: toml_edit::DocumentMut = approved
        .parse()
        .map_err(|e| Failure::new(Code::InvalidConfig, format!("the approved copy of rein.toml is not valid: {e}")))?;
    let Some(packs) = doc.entry("packs").or_insert(toml_edit::table()).as_table_mut() else {
        return Err(Failure::new(Code::InvalidConfig, "the approved copy of rein.toml: `packs` must be a table"));
    };
    for entry in listed {
        packs.insert(&entry.name, toml_edit::value(entry.source.clone()));
    }
    record(workspace, home, PROJECT_FILE, Some(&doc.to_string()))
}

/// Records `text` (None: the file is gone) as the approved `file` of `workspace`. Each file is
/// replaced atomically and durably: a crash leaves the approval as it was or as it is now,
/// never a torn copy (which could read as fewer deny rules).
pub fn record(workspace: &Path, home: &Path, file: &str, text: Option<&str>) -> Result<(), Failure> {
    let store = store(home, workspace);
    std::fs::create_dir_all(&store).map_err(|e| write_failed(&store, e))?;
    write_atomic(&store.join("workspace"), workspace.display().to_string().as_bytes())?;
    let path = store.join(file);
    match text {
        Some(text) => write_atomic(&path, text.as_bytes()),
        // The marker first: a crash between the two leaves the file, which wins over the
        // marker (the old approval), never a missing file read as "never approved".
        None => {
            write_atomic(&store.join(format!("{file}.absent")), b"")?;
            match std::fs::remove_file(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(write_failed(&path, e)),
                _ => Ok(()),
            }
        }
    }
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    match write::write_atomic(path, &shown_path(path), bytes) {
        Ok(_) => Ok(()),
        Err(KernelError::Io { source, .. }) => Err(write_failed(path, source)),
        Err(other) => Err(other.into()),
    }
}

/// Where home keeps what a person approved for `workspace` (watched: an approval made in
/// another process is served at once).
pub fn approved_dir(workspace: &Path, home: &Path) -> PathBuf {
    store(home, workspace)
}

/// `<home>/policy/<sha256 of the workspace path, 16 hex digits>/`.
fn store(home: &Path, workspace: &Path) -> PathBuf {
    let id = sha256_hex(workspace.to_string_lossy().as_bytes());
    home.join("policy").join(&id[..16])
}

/// The approved text of `file`; an approved absence is an empty file.
fn approved(store: &Path, file: &str) -> Result<Option<String>, Failure> {
    if store.join(format!("{file}.absent")).exists() && !store.join(file).exists() {
        return Ok(Some(String::new()));
    }
    read_optional_text(&store.join(file), Links::Follow).map_err(|e| io(&store.join(file), e))
}

/// How a pack the project adds reads in `pending`: in rein.toml's [packs], and in rein.lock.
const TOML_ADDS_PACK: &str = "rein.toml's [packs] adds ";
const LOCK_ADDS_PACK: &str = "rein.lock adds pack ";

/// The one command that settles what waits: `rein pack sync` when all of it is packs the
/// project adds (a teammate's first checkout: sync installs what the lock pins, and a person
/// confirms it), else `rein approvals policy`.
pub fn review_command(pending: &[String]) -> &'static str {
    let adds_packs = |p: &String| p.starts_with(TOML_ADDS_PACK) || p.starts_with(LOCK_ADDS_PACK);
    if !pending.is_empty() && pending.iter().all(adds_packs) && pending.iter().any(|p| p.starts_with(LOCK_ADDS_PACK)) {
        "rein pack sync"
    } else {
        "rein approvals policy"
    }
}

/// The one warning a person reads when policy changes wait for them, in words, naming the one
/// command that settles them; None when nothing waits.
pub fn warning(pending: &[String]) -> Option<String> {
    if pending.is_empty() {
        return None;
    }
    Some(format!(
        "rein.toml or rein.lock changed in ways a person has not approved ({}); until a person runs `{}` at a terminal, rein serves the policy last approved, plus every deny rule",
        pending.join("; "),
        review_command(pending)
    ))
}

/// What changed in one table of rein.toml (`[packs]`, `[overrides]`), in words, one change
/// each: `rein.toml's [packs] adds team-kit = "../team-kit"`.
fn table_changes(table: &str, approved: &BTreeMap<String, String>, current: &BTreeMap<String, String>) -> Vec<String> {
    let mut said = Vec::new();
    for (name, value) in current {
        match approved.get(name) {
            None => said.push(format!("adds {name} = {value:?}")),
            Some(old) if old != value => said.push(format!("changes {name} from {old:?} to {value:?}")),
            Some(_) => {}
        }
    }
    for name in approved.keys().filter(|name| !current.contains_key(*name)) {
        said.push(format!("removes {name}"));
    }
    said.into_iter().map(|change| format!("rein.toml's [{table}] {change}")).collect()
}

fn settle_config(approved: ProjectConfig, current: ProjectConfig) -> (ProjectConfig, Vec<String>) {
    let mut pending = Vec::new();
    pending.extend(table_changes("overrides", &approved.overrides, &current.overrides));
    pending.extend(table_changes("packs", &approved.packs, &current.packs));
    for removed in approved.deny.iter().filter(|rule| !current.deny.contains(rule)) {
        pending.push(format!("rein.toml: the deny rule `{}` was removed", removed.describe()));
    }
    if pending.is_empty() {
        return (current, pending);
    }
    let mut effective = approved;
    for rule in current.deny {
        if !effective.deny.contains(&rule) {
            effective.deny.push(rule);
        }
    }
    (effective, pending)
}

fn settle_lock(approved: &Lock, current: &Lock, pending: &mut Vec<String>) -> Lock {
    let mut effective = Lock::default();
    for pack in &current.packs {
        match approved.get(&pack.name) {
            Some(same) if same == pack => effective.packs.push(pack.clone()),
            Some(other) => pending.push(format!(
                "rein.lock moves pack {} from content {} to {} (the approved one still serves)",
                pack.name,
                short(&other.sha256),
                short(&pack.sha256)
            )),
            None => pending.push(format!("{LOCK_ADDS_PACK}{} (not loaded until approved)", pack.name)),
        }
        if let Some(old) = approved.get(&pack.name).filter(|same| *same != pack) {
            effective.packs.push(old.clone());
        }
    }
    effective
}

/// The first 12 hex digits of a sha256, as people compare them.
fn short(sha256: &str) -> &str {
    &sha256[..sha256.len().min(12)]
}

fn io(path: &Path, err: std::io::Error) -> Failure {
    Failure::from(ConfigError::Read { path: path.to_path_buf(), source: err })
}

/// rein's home could not be written: the OS refused, as for any other file rein writes.
fn write_failed(path: &Path, err: std::io::Error) -> Failure {
    Failure::new(
        crate::error::Code::IoError,
        format!("cannot write {}: {err}; check that rein's home is writable", shown_path(path)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace(rein_toml: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::write(ws.join("rein.toml"), rein_toml).unwrap();
        (dir, ws, home)
    }

    const DENY_UNINSTALL: &str = "[[deny]]\nprogram = \"hdc\"\nargs = [\"uninstall\"]\n";

    #[test]
    fn deny_rules_apply_at_once_and_overrides_wait_for_a_person() {
        let (_d, ws, home) = workspace(DENY_UNINSTALL);
        let policy = load(&ws, &home).unwrap();
        assert_eq!(policy.config.deny.len(), 1);
        assert!(policy.pending.is_empty(), "{:?}", policy.pending);
        std::fs::write(ws.join("rein.toml"), format!("{DENY_UNINSTALL}[overrides]\nlist_dir = \"kit.list_dir\"\n"))
            .unwrap();
        let policy = load(&ws, &home).unwrap();
        assert!(policy.config.overrides.is_empty(), "not approved, not served");
        assert_eq!(policy.config.deny.len(), 1, "the deny rule still applies");
        assert_eq!(policy.pending, [r#"rein.toml's [overrides] adds list_dir = "kit.list_dir""#], "in words");
        let warning = warning(&policy.pending).unwrap();
        assert_eq!(warning.matches("`rein").count(), 1, "one command: {warning}");
        assert!(!warning.contains('{'), "no raw maps: {warning}");
        record(&ws, &home, PROJECT_FILE, current_text(&ws, PROJECT_FILE).unwrap().as_deref()).unwrap();
        let policy = load(&ws, &home).unwrap();
        assert_eq!(policy.config.overrides.len(), 1);
        assert!(policy.pending.is_empty());
    }

    #[test]
    fn removing_a_deny_rule_waits_for_a_person() {
        let (_d, ws, home) = workspace(DENY_UNINSTALL);
        load(&ws, &home).unwrap();
        std::fs::write(ws.join("rein.toml"), "").unwrap();
        let policy = load(&ws, &home).unwrap();
        assert_eq!(policy.config.deny.len(), 1, "the approved deny rule stays");
        assert!(policy.pending[0].contains("was removed"), "{:?}", policy.pending);
    }
}
