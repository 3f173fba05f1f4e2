//! A change to the project's packs, prepared and not yet made: what it installs (staged in
//! home, pinned by its content hash), what the pack may run, and the question to show. A
//! person's yes to [`PackChange::question`] is a yes to exactly this value, which
//! [`Packs::apply`](super::Packs::apply) then makes.

use std::path::PathBuf;

use serde::Serialize;

use crate::packs::install::Staged;
use crate::packs::lockfile::LockedPack;
use crate::packs::Manifest;

/// What a [`PackChange`] does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PackChangeKind {
    /// Installs a pack new to the project and pins it in rein.lock (`rein pack add`).
    Add,
    /// Installs a newer version of a locked pack and moves its rein.lock entry (`rein pack
    /// update`); `from` is the content hash locked before.
    Update {
        /// The content hash rein.lock pinned before.
        from: String,
    },
    /// Installs exactly what rein.lock pins into this home, and approves it for the project
    /// (`rein pack sync`); rein.lock does not move.
    Install,
    /// Approves for this project a pack this home already holds as rein.lock pins it (`rein
    /// pack sync`, the pack installed for another project).
    Use,
    /// Stops using the pack in this project: out of rein.lock and rein.toml (`rein pack
    /// remove`); the installed copy stays in home.
    Remove,
}

/// One change to the project's packs, prepared by [`Packs`](super::Packs) and made by
/// [`Packs::apply`](super::Packs::apply) exactly as prepared.
#[derive(Debug)]
pub struct PackChange {
    pub(super) kind: PackChangeKind,
    pub(super) entry: LockedPack,
    pub(super) permissions: Vec<String>,
    pub(super) question: String,
    /// The pack's files, for the kinds that install.
    pub(super) staged: Option<Staged>,
}

impl PackChange {
    /// What the change does.
    pub fn kind(&self) -> &PackChangeKind {
        &self.kind
    }

    /// The pack's rein.lock entry as the change leaves it (for `Remove`, as it was).
    pub fn entry(&self) -> &LockedPack {
        &self.entry
    }

    /// What the pack may run (its manifest's permissions; empty for `Remove`).
    pub fn permissions(&self) -> &[String] {
        &self.permissions
    }

    /// The question to put to the person, word for word: the pack, its source, what it may
    /// run (for an update, `+` what it gains and `-` what it loses) and its content hash.
    pub fn question(&self) -> &str {
        &self.question
    }
}

/// What [`Packs::apply`](super::Packs::apply) did.
#[derive(Debug, Clone, Serialize)]
pub struct PackApplied {
    /// What the change did.
    pub kind: PackChangeKind,
    /// The pack's rein.lock entry as the change left it.
    pub entry: LockedPack,
    /// Where the pack is installed in home (None for `Remove`).
    pub installed: Option<PathBuf>,
}

/// One pack of rein.lock checked against what this home holds ([`Packs::verify`](super::Packs::verify)).
#[derive(Debug, Clone, Serialize)]
pub struct PackCheck {
    /// The pack's name.
    pub pack: String,
    /// Why it cannot be loaded (not installed, tampered, incompatible); None when it can.
    pub problem: Option<crate::error::Failure>,
}

/// The question for installing (or adding) the pack `manifest` from `source`.
pub fn install_question(manifest: &Manifest, source: &str, sha256: &str) -> String {
    let permissions = if manifest.permissions.is_empty() {
        "  it may run: (nothing)".to_string()
    } else {
        format!("  it may run: {}", manifest.permissions.join(", "))
    };
    format!(
        "Install pack {} {} from {source}?\n  {}\n{permissions}\n  sha256 {sha256}",
        manifest.name, manifest.version, manifest.description
    )
}

/// The question for updating to `manifest`; `before` holds the permissions installed now
/// (None: the installed version is not in this home).
pub fn update_question(manifest: &Manifest, source: &str, sha256: &str, before: Option<&[String]>) -> String {
    format!(
        "Update pack {} {} from {source}?\n  {}\n{}\n  sha256 {sha256}",
        manifest.name,
        manifest.version,
        manifest.description,
        permission_changes(before, &manifest.permissions)
    )
}

/// The permissions after an update, each marked: `+` what the pack may run now that it could
/// not before, `-` what it no longer may, and the rest unmarked.
fn permission_changes(before: Option<&[String]>, after: &[String]) -> String {
    let Some(before) = before else {
        let all: Vec<String> = after.iter().map(|p| format!("    + {p}")).collect();
        return format!(
            "  it may run (the installed version is not in this home, so all are shown as new):\n{}",
            all.join("\n")
        );
    };
    let mut lines = vec!["  it may run (+ new since the installed version, - no longer):".to_string()];
    for permission in after {
        if before.contains(permission) {
            lines.push(format!("      {permission}"));
        } else {
            lines.push(format!("    + {permission}"));
        }
    }
    lines.extend(before.iter().filter(|p| !after.contains(p)).map(|p| format!("    - {p}")));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_permissions_are_marked() {
        let before = vec!["hdc list targets".to_string(), "hvigorw".to_string()];
        let after = vec!["hdc list targets".to_string(), "hdc install".to_string()];
        let shown = permission_changes(Some(&before), &after);
        assert!(shown.contains("\n    + hdc install"), "{shown}");
        assert!(shown.contains("\n      hdc list targets"), "{shown}");
        assert!(shown.contains("\n    - hvigorw"), "{shown}");
        assert!(permission_changes(None, &after).contains("\n    + hdc list targets"));
    }
}
