//! The project's pack list (`rein.toml` `[packs]`) and `rein.lock`: for each pack its source,
//! its commit (for git sources) and its content hash. Sorted, so diffs stay readable.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::PackError;
use crate::kernel::files::read::{read_optional_text, Links};
use crate::kernel::scope::protected::LOCK_FILE;

/// A pack as rein.lock pins it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockedPack {
    /// The pack's name (kebab-case); its tools are `<name>.<tool>`.
    pub name: String,
    /// Its version (semver), as its pack.toml says.
    pub version: String,
    /// A path or a git URL, as given to `rein pack add`.
    pub source: String,
    /// The full commit id for git sources; absent for a directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The content hash of its files (see `rein pack verify`).
    pub sha256: String,
}

impl LockedPack {
    /// The name and the hash name the installed copy's folder, `<home>/packs/<name>/<sha256>`:
    /// a name that is no pack name (`../..`) or a hash that is no sha256 (`/home/person/x`)
    /// would name a folder anywhere, and rein would walk and hash it.
    fn check(&self) -> Result<(), PackError> {
        if !super::manifest::valid_pack_name(&self.name) {
            return Err(PackError::InvalidLock {
                why: format!("{:?} is no pack name (kebab-case: a-z, 0-9 and -)", self.name),
            });
        }
        if self.sha256.len() != 64 || !self.sha256.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
            return Err(PackError::InvalidLock {
                why: format!("pack {}: sha256 {:?} is no sha256 (64 lowercase hex digits)", self.name, self.sha256),
            });
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lock {
    #[serde(default, rename = "pack")]
    pub packs: Vec<LockedPack>,
}

impl Lock {
    pub fn load(workspace: &Path) -> Result<Lock, PackError> {
        let path = workspace.join(LOCK_FILE);
        match read_optional_text(&path, Links::Refuse)
            .map_err(|source| PackError::ReadLock { path: path.clone(), source })?
        {
            None => Ok(Lock::default()),
            Some(text) => Lock::parse(&text),
        }
    }

    pub fn parse(text: &str) -> Result<Lock, PackError> {
        if let Some(why) = crate::kernel::policy::controls::policy_file_problem(text) {
            return Err(PackError::InvalidLock { why });
        }
        let lock: Lock = toml::from_str(text).map_err(|e| PackError::InvalidLock { why: e.to_string() })?;
        lock.packs.iter().try_for_each(LockedPack::check)?;
        Ok(lock)
    }

    pub fn to_toml(&self) -> String {
        let mut sorted = self.clone();
        sorted.packs.sort_by(|a, b| a.name.cmp(&b.name));
        format!(
            "# Written by `rein pack`; `rein pack update` is the only way to move an entry.\n{}",
            toml::to_string(&sorted).unwrap_or_default()
        )
    }

    pub fn get(&self, name: &str) -> Option<&LockedPack> {
        self.packs.iter().find(|p| p.name == name)
    }

    pub fn upsert(&mut self, pack: LockedPack) {
        self.packs.retain(|p| p.name != pack.name);
        self.packs.push(pack);
        self.packs.sort_by(|a, b| a.name.cmp(&b.name));
    }
}
