//! The packs a project uses, as installed under home: each checked against rein.lock (by
//! content hash) and against this rein's version before any of its code is loaded.

use std::path::{Path, PathBuf};

use serde_json::json;

use super::hash::content_hash;
use super::lockfile::LockedPack;
use super::Manifest;
use crate::error::{Code, Failure};

/// Where an installed pack lives: `<home>/packs/<name>/<sha256>/`.
pub fn install_dir(home: &Path, name: &str, sha256: &str) -> PathBuf {
    home.join("packs").join(name).join(sha256)
}

/// A pack installed under home and checked against rein.lock.
#[derive(Debug, Clone)]
pub struct InstalledPack {
    pub dir: PathBuf,
    pub manifest: Manifest,
}

pub fn verify_one(home: &Path, locked: &LockedPack) -> Result<InstalledPack, Failure> {
    let dir = install_dir(home, &locked.name, &locked.sha256);
    if !dir.is_dir() {
        return Err(Failure::new(
            Code::InvalidConfig,
            format!(
                "pack {} is in rein.lock but not installed in this rein home; run `rein pack sync` to install the locked version",
                locked.name
            ),
        )
        .with_details(json!({"pack": locked.name, "sha256": locked.sha256, "fix": "rein pack sync"})));
    }
    let actual = content_hash(&dir).map_err(|e| Failure::new(Code::IoError, e.to_string()))?;
    if actual != locked.sha256 {
        return Err(Failure::new(
            Code::PackTampered,
            format!(
                "pack {}'s files no longer match rein.lock (expected sha256 {}, found {actual}); rein will not load it. Reinstall the locked version with `rein pack sync`",
                locked.name, locked.sha256
            ),
        )
        .with_details(json!({"pack": locked.name, "expected_sha256": locked.sha256, "actual_sha256": actual, "dir": dir})));
    }
    let manifest = Manifest::load(&dir).map_err(|e| {
        let failure = Failure::from(e);
        Failure { message: format!("pack {}: {}", locked.name, failure.message), ..failure }
    })?;
    manifest.check_compatible(env!("CARGO_PKG_VERSION")).map_err(Failure::from)?;
    Ok(InstalledPack { dir, manifest })
}
