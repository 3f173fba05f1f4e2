//! `pack.toml`: what a pack is, which rein it needs, and what it may do.
//!
//! ```toml
//! name = "device-lab"            # kebab-case; tools become `device-lab.<tool>`
//! version = "1.2.0"              # semver
//! description = "Install flows for our device lab"
//! rein = ">=0.1, <0.2"           # compatible rein versions
//! license = "Apache-2.0"         # optional
//! permissions = ["hdc install", "hdc shell aa start", "hvigorw"]
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::PackError;

/// A pack's manifest, at its root.
pub const MANIFEST_FILE: &str = "pack.toml";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub name: String,
    pub version: String,
    pub description: String,
    pub rein: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub license: Option<String>,
    /// Programs (and leading arguments) the pack's tools may run, e.g. "hdc install".
    #[serde(default)]
    pub permissions: Vec<String>,
}

impl Manifest {
    pub fn load(dir: &Path) -> Result<Manifest, PackError> {
        let text = std::fs::read_to_string(dir.join(MANIFEST_FILE))
            .map_err(|source| PackError::NoManifest { dir: dir.to_path_buf(), source })?;
        let manifest: Manifest =
            toml::from_str(&text).map_err(|e| PackError::InvalidManifest { why: e.to_string() })?;
        manifest.check()?;
        Ok(manifest)
    }

    pub fn check(&self) -> Result<(), PackError> {
        if !valid_pack_name(&self.name) {
            return Err(PackError::BadName { name: self.name.clone() });
        }
        semver::Version::parse(&self.version)
            .map_err(|e| PackError::BadVersion { version: self.version.clone(), why: e.to_string() })?;
        self.range()?;
        if self.description.trim().is_empty() {
            return Err(PackError::NoDescription);
        }
        Ok(())
    }

    fn range(&self) -> Result<semver::VersionReq, PackError> {
        semver::VersionReq::parse(&self.rein)
            .map_err(|e| PackError::BadRange { range: self.rein.clone(), why: e.to_string() })
    }

    /// Refuses a pack that needs another rein than `rein_version`.
    pub fn check_compatible(&self, rein_version: &str) -> Result<(), PackError> {
        let incompatible = || PackError::Incompatible {
            name: self.name.clone(),
            version: self.version.clone(),
            range: self.rein.clone(),
            have: rein_version.to_string(),
        };
        let have = semver::Version::parse(rein_version).map_err(|_| incompatible())?;
        if self.range()?.matches(&have) {
            Ok(())
        } else {
            Err(incompatible())
        }
    }
}

pub fn valid_pack_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.ends_with('-')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest(rein: &str) -> Manifest {
        Manifest {
            name: "device-lab".into(),
            version: "1.2.0".into(),
            description: "lab flows".into(),
            rein: rein.into(),
            license: None,
            permissions: vec!["hdc install".into(), "hvigorw".into()],
        }
    }

    #[test]
    fn names_versions_and_ranges_are_checked() {
        assert!(manifest(">=0.1").check().is_ok());
        assert!(Manifest { name: "Device_Lab".into(), ..manifest(">=0.1") }.check().is_err());
        assert!(Manifest { version: "1.2".into(), ..manifest(">=0.1") }.check().is_err());
        assert!(manifest("newest").check().is_err());
    }

    #[test]
    fn compatibility_is_a_semver_range() {
        assert!(manifest(">=0.1, <0.2").check_compatible("0.1.0").is_ok());
        let err = manifest(">=9").check_compatible("0.1.0").unwrap_err().to_string();
        assert!(err.contains("needs rein >=9"), "{err}");
    }
}
