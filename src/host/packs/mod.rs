//! The packs a project uses, managed for a person ([`Host::packs`]): each change (adding,
//! updating, installing what rein.lock pins, using a pack installed for another project,
//! removing one) is first prepared as a [`PackChange`] that holds the pack's files, staged in
//! home and pinned by their content hash, and the question to show. Applying it installs
//! exactly those files and records them in rein.lock and rein.toml as the person's approval.
//!
//! - `source`: where a pack comes from (a folder, git), recorded portably, staged
//! - `change`: the prepared change, its question, what applying it did
//! - `record`: rein.lock, rein.toml and home's record of what a person approved

mod change;
mod record;
mod source;

use serde_json::json;

pub use change::{PackApplied, PackChange, PackChangeKind, PackCheck};

use super::policy_files;
use super::Host;
use crate::error::{Code, Failure};
use crate::kernel::Kernel;
use crate::packs::git::Source;
use crate::packs::install::install;
use crate::packs::installed::{install_dir, verify_one};
use crate::packs::lockfile::LockedPack;
use crate::packs::Manifest;
use change::{install_question, moved_question, update_question, use_question, Moved};
use record::lock_of;
use source::{fetch_and_stage, located, portable};

/// The packs of a host's project: what rein.lock pins, and changing it. Every change writes
/// rein's home or changes what the project's tools may run, so prepare it, show its
/// [`PackChange::question`] to a person, and apply it only when they said yes; never on an
/// agent's behalf. The packs are managed without loading them, so a pack that does not load
/// can still be repaired (build the host with [`HostBuilder::build_lenient`](crate::HostBuilder::build_lenient)).
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// # let scratch = tempfile::tempdir()?;
/// # let (app, home, kit) = (scratch.path().join("app"), scratch.path().join("home"), scratch.path().join("kit"));
/// # std::fs::create_dir_all(&app)?;
/// # std::fs::create_dir_all(kit.join("tools"))?;
/// std::fs::write(
///     kit.join("pack.toml"),
///     "name = \"kit\"\nversion = \"1.0.0\"\ndescription = \"Our helpers\"\nrein = \">=0.1\"\npermissions = [\"hdc list targets\"]\n",
/// )?;
/// let host = rein::Host::builder().workspace(&app).home(&home).build()?;
/// let change = host.packs().plan_add(kit.to_str().unwrap())?;
/// assert!(change.question().contains("it may run: hdc list targets"));
/// // Show change.question() to the person; with their yes, exactly these files go in:
/// let applied = host.packs().apply(change)?;
/// assert_eq!(applied.entry.name, "kit");
/// assert_eq!(host.packs().list()?[0].sha256, applied.entry.sha256);
/// # Ok(())
/// # }
/// ```
pub struct Packs<'a> {
    kernel: &'a Kernel,
}

impl Host {
    /// The project's packs: listing and checking them, and adding, updating, installing and
    /// removing them for a person.
    pub fn packs(&self) -> Packs<'_> {
        Packs { kernel: &self.kernel }
    }
}

impl Packs<'_> {
    /// The packs rein.lock pins, by name.
    pub fn list(&self) -> Result<Vec<LockedPack>, Failure> {
        Ok(lock_of(self.kernel)?.packs)
    }

    /// Each pack of rein.lock checked against this home: installed, unchanged (by content
    /// hash), and made for this rein.
    pub fn verify(&self) -> Result<Vec<PackCheck>, Failure> {
        let home = self.kernel.scope().home();
        Ok(self
            .list()?
            .iter()
            .map(|locked| PackCheck { pack: locked.name.clone(), problem: verify_one(home, locked).err() })
            .collect())
    }

    /// Whether `locked` is installed in this home as rein.lock pins it and a person approved
    /// it for this project: `rein pack sync` has nothing to do for it.
    pub fn is_ready(&self, locked: &LockedPack) -> Result<bool, Failure> {
        let scope = self.kernel.scope();
        let approved = policy_files::load(scope.workspace(), scope.home())?.lock;
        Ok(verify_one(scope.home(), locked).is_ok() && approved.get(&locked.name) == Some(locked))
    }

    /// Prepares adding the pack at `source` (a folder, or a git repository with an optional
    /// `@rev`): fetched and staged, not installed. A pack rein.lock already pins is refused
    /// (`rein pack update` moves it).
    pub fn plan_add(&self, source: &str) -> Result<PackChange, Failure> {
        let source = Source::parse(source);
        source.check()?;
        let recorded = portable(self.workspace(), &source)?;
        let prepared = fetch_and_stage(self.kernel, &source, None)?;
        let manifest = &prepared.staged.manifest;
        refuse_locked(&lock_of(self.kernel)?.packs, &manifest.name)?;
        let question = install_question(manifest, &recorded, &prepared.staged.sha256);
        Ok(PackChange {
            kind: PackChangeKind::Add,
            entry: entry_of(manifest, recorded, prepared.commit, &prepared.staged.sha256),
            permissions: manifest.permissions.clone(),
            question,
            staged: Some(prepared.staged),
        })
    }

    /// Prepares updating `locked` to what its recorded source holds now.
    pub fn plan_update(&self, locked: &LockedPack) -> Result<PackChange, Failure> {
        let source = located(self.workspace(), &locked.source);
        let prepared = fetch_and_stage(self.kernel, &source, None)?;
        let manifest = &prepared.staged.manifest;
        let installed = install_dir(self.kernel.scope().home(), &locked.name, &locked.sha256);
        let before = Manifest::load(&installed).ok();
        let question = update_question(
            manifest,
            &locked.source,
            &prepared.staged.sha256,
            before.as_ref().map(|m| m.permissions.as_slice()),
        );
        Ok(PackChange {
            kind: PackChangeKind::Update { from: locked.sha256.clone() },
            entry: entry_of(manifest, locked.source.clone(), prepared.commit, &prepared.staged.sha256),
            permissions: manifest.permissions.clone(),
            question,
            staged: Some(prepared.staged),
        })
    }

    /// Prepares what `rein pack sync` does for `locked`: using the copy this home holds, or
    /// installing exactly the locked commit and content hash (refused with `PACK_TAMPERED`
    /// when the source no longer holds them).
    pub fn plan_install(&self, locked: &LockedPack) -> Result<PackChange, Failure> {
        if let Ok(installed) = verify_one(self.kernel.scope().home(), locked) {
            let moved = self.approved_other(locked)?;
            let question = use_question(locked, self.workspace(), &installed.manifest.permissions, moved);
            return Ok(PackChange {
                kind: PackChangeKind::Use,
                entry: locked.clone(),
                permissions: installed.manifest.permissions,
                question,
                staged: None,
            });
        }
        let source = located(self.workspace(), &locked.source);
        let prepared = fetch_and_stage(self.kernel, &source, locked.commit.as_deref())?;
        let staged = prepared.staged;
        if staged.sha256 != locked.sha256 {
            return Err(Failure::new(
                Code::PackTampered,
                format!(
                    "{} does not hold the locked content of pack {} (expected sha256 {}, found {}); nothing was installed. `rein pack update {}` locks what it holds now",
                    locked.source, locked.name, locked.sha256, staged.sha256, locked.name
                ),
            )
            .with_details(json!({"pack": locked.name, "expected_sha256": locked.sha256, "actual_sha256": staged.sha256})));
        }
        let question = match self.approved_other(locked)? {
            Some(moved) => moved_question(&staged.manifest, &locked.source, &staged.sha256, &moved),
            None => install_question(&staged.manifest, &locked.source, &staged.sha256),
        };
        Ok(PackChange {
            kind: PackChangeKind::Install,
            entry: locked.clone(),
            permissions: staged.manifest.permissions.clone(),
            question,
            staged: Some(staged),
        })
    }

    /// Where this project approved another version of `locked` than rein.lock pins now: that
    /// version's content hash, and its permissions when this home still holds it — so the
    /// person sees what the pack may run now that it could not before, as `rein pack update`
    /// shows it.
    fn approved_other(&self, locked: &LockedPack) -> Result<Option<Moved>, Failure> {
        let scope = self.kernel.scope();
        let approved = policy_files::load(scope.workspace(), scope.home())?.lock;
        let Some(other) = approved.get(&locked.name).filter(|other| other.sha256 != locked.sha256) else {
            return Ok(None);
        };
        let before = Manifest::load(&install_dir(scope.home(), &other.name, &other.sha256)).ok().map(|m| m.permissions);
        Ok(Some(Moved { from: other.sha256.clone(), before }))
    }

    /// Prepares no longer using pack `name` in this project.
    pub fn plan_remove(&self, name: &str) -> Result<PackChange, Failure> {
        let lock = lock_of(self.kernel)?;
        let Some(locked) = lock.get(name) else {
            return Err(Failure::new(
                Code::InvalidArgs,
                format!("no pack {name:?} in rein.lock; `rein pack list` shows them"),
            ));
        };
        Ok(PackChange {
            kind: PackChangeKind::Remove,
            entry: locked.clone(),
            permissions: Vec::new(),
            question: format!(
                "Stop using pack {} in {}?",
                crate::visible::line(name),
                crate::visible::path(self.workspace())
            ),
            staged: None,
        })
    }

    /// Makes `change` exactly as prepared: installs the staged files (their hash checked once
    /// more) and writes rein.lock and rein.toml, recording them in home as the person's
    /// approval. Refused with `APPROVAL_REQUIRED` while rein.toml or rein.lock hold changes a
    /// person has not approved (writing them would approve those unseen).
    pub fn apply(&self, change: PackChange) -> Result<PackApplied, Failure> {
        let home = self.kernel.scope().home();
        let PackChange { kind, entry, staged, .. } = change;
        if kind == PackChangeKind::Add {
            refuse_locked(&lock_of(self.kernel)?.packs, &entry.name)?;
        }
        let installed = match staged {
            Some(staged) => Some(install(home, staged)?),
            None => None,
        };
        match kind {
            PackChangeKind::Add | PackChangeKind::Update { .. } => record::add_entry(self.kernel, &entry)?,
            PackChangeKind::Install | PackChangeKind::Use => record::approve_entry(self.kernel, &entry)?,
            PackChangeKind::Remove => record::remove_entry(self.kernel, &entry.name)?,
        }
        let installed =
            installed.or_else(|| (kind == PackChangeKind::Use).then(|| install_dir(home, &entry.name, &entry.sha256)));
        Ok(PackApplied { kind, entry, installed })
    }

    fn workspace(&self) -> &std::path::Path {
        self.kernel.scope().workspace()
    }
}

fn refuse_locked(locked: &[LockedPack], name: &str) -> Result<(), Failure> {
    match locked.iter().find(|p| p.name == name) {
        Some(locked) => Err(Failure::new(
            Code::InvalidArgs,
            format!(
                "pack {} is already in rein.lock (from {}); `rein pack update {}` is the only way to move it",
                locked.name, locked.source, locked.name
            ),
        )),
        None => Ok(()),
    }
}

fn entry_of(manifest: &Manifest, source: String, commit: Option<String>, sha256: &str) -> LockedPack {
    LockedPack {
        name: manifest.name.clone(),
        version: manifest.version.clone(),
        source,
        commit,
        sha256: sha256.to_string(),
    }
}
