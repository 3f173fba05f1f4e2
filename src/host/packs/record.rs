//! What a person confirmed, written down: rein.lock and rein.toml (through the kernel, as the
//! person), and home's record of the policy files as they approved them.

use std::sync::Arc;

use serde_json::json;

use crate::error::{Code, Failure};
use crate::host::policy_files;
use crate::kernel::files::read::{read_optional_text, Links};
use crate::kernel::policy::{Answer, ApprovalRequest, Approver};
use crate::kernel::scope::protected::{LOCK_FILE, PROJECT_FILE};
use crate::kernel::{Actor, Call, Kernel};
use crate::packs::lockfile::{Lock, LockedPack};

/// The person confirmed this change to the project's packs a moment ago; the writes to the
/// project's policy files it makes are theirs.
struct Confirmed;

impl Approver for Confirmed {
    fn answer(&self, _: &ApprovalRequest) -> Answer {
        Answer::Once
    }

    fn name(&self) -> &'static str {
        "person (confirmed `rein pack`)"
    }

    fn is_person(&self) -> bool {
        true
    }
}

/// rein.lock as it is in the workspace.
pub fn lock_of(kernel: &Kernel) -> Result<Lock, Failure> {
    Ok(Lock::load(kernel.scope().workspace())?)
}

/// rein.lock gets `entry`, rein.toml lists the pack with its source.
pub fn add_entry(kernel: &Kernel, entry: &LockedPack) -> Result<(), Failure> {
    let mut lock = lock_of(kernel)?;
    lock.upsert(entry.clone());
    write_policy_file(kernel, LOCK_FILE, &lock.to_toml())?;
    edit_rein_toml(kernel, |packs| {
        packs.insert(&entry.name, toml_edit::value(entry.source.clone()));
    })
}

/// rein.lock and rein.toml no longer name pack `name`.
pub fn remove_entry(kernel: &Kernel, name: &str) -> Result<(), Failure> {
    let mut lock = lock_of(kernel)?;
    lock.packs.retain(|p| p.name != name);
    write_policy_file(kernel, LOCK_FILE, &lock.to_toml())?;
    edit_rein_toml(kernel, |packs| {
        packs.remove(name);
    })
}

/// Records `entry` of rein.lock as approved for this project (a person confirmed using it).
pub fn approve_entry(kernel: &Kernel, entry: &LockedPack) -> Result<(), Failure> {
    let scope = kernel.scope();
    policy_files::approve_lock_entries(scope.workspace(), scope.home(), std::slice::from_ref(entry))
}

fn edit_rein_toml(kernel: &Kernel, change: impl FnOnce(&mut toml_edit::Table)) -> Result<(), Failure> {
    // As every reader of the project's policy files: never through a link, never a FIFO (a
    // cloned repository's rein.toml linked to credentials would be quoted by the parse error).
    let path = kernel.scope().workspace().join(PROJECT_FILE);
    let current = read_optional_text(&path, Links::Refuse)
        .map_err(|e| Failure::new(Code::InvalidConfig, format!("rein.toml: {e}")))?
        .unwrap_or_default();
    let mut doc: toml_edit::DocumentMut =
        current.parse().map_err(|e| Failure::new(Code::InvalidConfig, format!("rein.toml is not valid: {e}")))?;
    let had_packs = doc.contains_key("packs");
    let packs = doc.entry("packs").or_insert(toml_edit::table());
    let Some(packs) = packs.as_table_mut() else {
        return Err(Failure::new(Code::InvalidConfig, "rein.toml: `packs` must be a table"));
    };
    change(packs);
    let text = if had_packs { doc.to_string() } else { with_new_packs_table(&current, &doc) };
    write_policy_file(kernel, PROJECT_FILE, &text)
}

/// `current` with its first `[packs]` table, as `edited` holds it, where a person reads it: in
/// place of the commented `# [packs]` that `rein init` writes, else at the end. (toml_edit puts
/// a new table above a file's comments when the file is nothing else.) Only where the result
/// means what `edited` means; else `edited` as toml_edit writes it.
fn with_new_packs_table(current: &str, edited: &toml_edit::DocumentMut) -> String {
    let mut alone = toml_edit::DocumentMut::new();
    if let Some(packs) = edited.get("packs") {
        alone.insert("packs", packs.clone());
    }
    let block = alone.to_string();
    let lines: Vec<&str> = current.lines().collect();
    let text = match lines.iter().position(|line| line.trim() == "# [packs]") {
        Some(at) => {
            let after = if at + 1 < lines.len() { format!("{}\n", lines[at + 1..].join("\n")) } else { String::new() };
            let before = lines[..at].iter().map(|line| format!("{line}\n")).collect::<String>();
            format!("{before}{block}{after}")
        }
        None if current.trim().is_empty() => block,
        None => format!("{}\n\n{block}", current.trim_end()),
    };
    let same = |a: &str, b: &str| {
        let parsed = |t: &str| t.parse::<toml::Table>().ok();
        parsed(a).is_some() && parsed(a) == parsed(b)
    };
    if same(&text, &edited.to_string()) {
        text
    } else {
        edited.to_string()
    }
}

/// Writes a policy file (rein.lock, rein.toml) the person confirmed, and records it in home as
/// the version they approved.
fn write_policy_file(kernel: &Kernel, file: &str, text: &str) -> Result<(), Failure> {
    let scope = kernel.scope();
    // Rewriting a file that holds changes nobody approved would approve them unseen.
    let pending = policy_files::load(scope.workspace(), scope.home())?.pending;
    if !pending.is_empty() {
        return Err(Failure::new(
            Code::ApprovalRequired,
            "rein.toml or rein.lock has changes a person has not approved; review them with `rein approvals policy` first",
        )
        .with_details(json!({"pending": pending})));
    }
    let confirmed = crate::host::builder::configured_kernel(scope.workspace(), scope.home(), Arc::new(Confirmed))?;
    let person = Call::new().acting_as(Actor::new("rein pack", None));
    confirmed.write(&person, file, text.as_bytes(), None)?;
    policy_files::record(scope.workspace(), scope.home(), file, Some(text))
}
