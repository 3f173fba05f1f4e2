//! A change to the project's packs, prepared and not yet made: what it installs (staged in
//! home, pinned by its content hash), what the pack may run, and the question to show. A
//! person's yes to [`PackChange::question`] is a yes to exactly this value, which
//! [`Packs::apply`](super::Packs::apply) then makes.

use std::path::PathBuf;

use serde::Serialize;

use crate::packs::install::Staged;
use crate::packs::lockfile::LockedPack;
use crate::packs::Manifest;
use crate::visible;

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

/// The question for installing (or adding) the pack `manifest` from `source`. Every text of
/// the pack's and of rein.lock is shown escaped ([`visible`]): a description cannot paint over
/// the permissions.
pub fn install_question(manifest: &Manifest, source: &str, sha256: &str) -> String {
    let permissions = if manifest.permissions.is_empty() {
        "  it may run: (nothing)".to_string()
    } else {
        let each: Vec<_> = manifest.permissions.iter().map(|p| visible::line(p)).collect();
        format!("  it may run: {}", each.join(", "))
    };
    format!(
        "Install pack {} {} from {}?\n  {}\n{permissions}\n  sha256 {}",
        visible::line(&manifest.name),
        visible::line(&manifest.version),
        visible::line(source),
        visible::line(&manifest.description),
        visible::line(sha256)
    )
}

/// The version of a pack this project used, where rein.lock now pins another (`rein pack
/// sync` after a teammate's `rein pack update`).
pub struct Moved {
    /// Its content hash.
    pub from: String,
    /// What it could run, when this home still holds it.
    pub before: Option<Vec<String>>,
}

/// The question for installing `manifest` as rein.lock pins it now, where this project used
/// the version `moved` names: its permission changes marked as `rein pack update` marks them.
pub fn moved_question(manifest: &Manifest, source: &str, sha256: &str, moved: &Moved) -> String {
    format!(
        "Install pack {} {} from {}, as rein.lock pins it now (this project used sha256 {})?\n  {}\n{}\n  sha256 {}",
        visible::line(&manifest.name),
        visible::line(&manifest.version),
        visible::line(source),
        visible::line(&moved.from),
        visible::line(&manifest.description),
        permission_changes(moved.before.as_deref(), &manifest.permissions),
        visible::line(sha256)
    )
}

/// The question for using in `workspace` a copy of `locked` this home already holds (installed
/// for another project); `moved` says which version this project used before, with its
/// permissions when this home still has it.
pub fn use_question(
    locked: &LockedPack,
    workspace: &std::path::Path,
    permissions: &[String],
    moved: Option<Moved>,
) -> String {
    let (used, may_run) = match moved {
        Some(moved) => (
            format!(", as rein.lock pins it now (this project used sha256 {})", moved.from),
            permission_changes(moved.before.as_deref(), permissions),
        ),
        None => {
            let each: Vec<_> = permissions.iter().map(|p| visible::line(p)).collect();
            (String::new(), format!("  it may run: {}", each.join(", ")))
        }
    };
    format!(
        "Use pack {} {} (sha256 {}) in {}{}?\n{may_run}",
        visible::line(&locked.name),
        visible::line(&locked.version),
        visible::line(&locked.sha256),
        visible::path(workspace),
        visible::line(&used)
    )
}

/// The question for updating to `manifest`; `before` holds the permissions installed now
/// (None: the installed version is not in this home).
pub fn update_question(manifest: &Manifest, source: &str, sha256: &str, before: Option<&[String]>) -> String {
    format!(
        "Update pack {} {} from {}?\n  {}\n{}\n  sha256 {}",
        visible::line(&manifest.name),
        visible::line(&manifest.version),
        visible::line(source),
        visible::line(&manifest.description),
        permission_changes(before, &manifest.permissions),
        visible::line(sha256)
    )
}

/// The permissions after an update, each marked: `+` what the pack may run now that it could
/// not before, `-` what it no longer may, and the rest unmarked.
fn permission_changes(before: Option<&[String]>, after: &[String]) -> String {
    let Some(before) = before else {
        let all: Vec<String> = after.iter().map(|p| format!("    + {}", visible::line(p))).collect();
        return format!(
            "  it may run (the installed version is not in this home, so all are shown as new):\n{}",
            all.join("\n")
        );
    };
    let mut lines = vec!["  it may run (+ new since the installed version, - no longer):".to_string()];
    for permission in after {
        let shown = visible::line(permission);
        if before.contains(permission) {
            lines.push(format!("      {shown}"));
        } else {
            lines.push(format!("    + {shown}"));
        }
    }
    lines.extend(before.iter().filter(|p| !after.contains(p)).map(|p| format!("    - {}", visible::line(p))));
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_of_the_pack_reaches_the_question_raw() {
        let manifest = Manifest {
            name: "kit".into(),
            version: "1.0.0".into(),
            description: "helpful\u{1b}[1A\u{1b}[2K\r  it may run: (nothing)".into(),
            rein: ">=0.1".into(),
            license: None,
            permissions: vec!["hdc install\u{202e}".into()],
        };
        let question = install_question(&manifest, "../kit\u{1b}]8;;x\u{7}", "abc");
        assert!(!question.contains(['\u{1b}', '\r', '\u{7}', '\u{202e}']), "{question:?}");
        assert!(question.contains("helpful\\u{1b}[1A\\u{1b}[2K\\r  it may run: (nothing)"), "{question}");
        assert!(question.contains("  it may run: hdc install\\u{202e}"), "{question}");
        let update = update_question(&manifest, "x", "abc", Some(&[]));
        assert!(update.contains("    + hdc install\\u{202e}") && !update.contains('\u{1b}'), "{update:?}");
    }

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
