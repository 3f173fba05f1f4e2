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
    pub fn load(dir: &Path) -> Result<Manifest, String> {
        let path = dir.join("pack.toml");
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{} has no readable pack.toml: {e}", dir.display()))?;
        let manifest: Manifest = toml::from_str(&text).map_err(|e| format!("pack.toml is not valid: {e}"))?;
        manifest.check()?;
        Ok(manifest)
    }

    pub fn check(&self) -> Result<(), String> {
        if !valid_pack_name(&self.name) {
            return Err(format!("pack name {:?} must be kebab-case: lowercase letters, digits and -", self.name));
        }
        semver::Version::parse(&self.version).map_err(|e| format!("version {:?} is not semver: {e}", self.version))?;
        semver::VersionReq::parse(&self.rein)
            .map_err(|e| format!("rein = {:?} is not a version range: {e}", self.rein))?;
        if self.description.trim().is_empty() {
            return Err("description is empty; say what the pack is for".into());
        }
        Ok(())
    }

    /// Refuses a pack that needs another rein than this one.
    pub fn check_compatible(&self, rein_version: &str) -> Result<(), String> {
        let wanted = semver::VersionReq::parse(&self.rein).map_err(|e| e.to_string())?;
        let have = semver::Version::parse(rein_version).map_err(|e| e.to_string())?;
        if wanted.matches(&have) {
            Ok(())
        } else {
            Err(format!(
                "pack {} {} needs rein {}, but this is rein {rein_version}; upgrade rein or pin an older version of the pack",
                self.name, self.version, self.rein
            ))
        }
    }

    /// Whether the pack declared it may run `program args...` (a declaration is a program
    /// and a prefix of its arguments).
    pub fn permits(&self, program: &str, args: &[String]) -> bool {
        self.permissions.iter().any(|permission| {
            let mut words = permission.split_whitespace();
            let prefix: Vec<&str> = words.by_ref().skip(1).collect();
            permission.split_whitespace().next() == Some(program)
                && prefix.len() <= args.len()
                && prefix.iter().zip(args).all(|(want, have)| want == have)
        })
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
        let err = manifest(">=9").check_compatible("0.1.0").unwrap_err();
        assert!(err.contains("needs rein >=9"), "{err}");
    }

    #[test]
    fn permissions_are_program_and_argument_prefixes() {
        let m = manifest(">=0.1");
        let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        assert!(m.permits("hdc", &args("install -r x.hap")));
        assert!(!m.permits("hdc", &args("uninstall com.x")));
        assert!(m.permits("hvigorw", &args("assembleHap")));
        assert!(!m.permits("ohpm", &args("install")));
    }
}
