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
        toml::from_str(text).map_err(|e| PackError::InvalidLock { why: e.to_string() })
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
