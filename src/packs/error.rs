//! What can be wrong with a pack, its manifest, or the project's rein.lock.

use crate::visible::shown_path;
use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum PackError {
    #[error("{} has no readable pack.toml: {source}", shown_path(dir))]
    NoManifest {
        dir: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("pack.toml is not valid: {why}")]
    InvalidManifest { why: String },
    #[error("pack name {name:?} must be kebab-case: lowercase letters, digits and -")]
    BadName { name: String },
    #[error("version {version:?} is not semver: {why}")]
    BadVersion { version: String, why: String },
    #[error("rein = {range:?} is not a version range: {why}")]
    BadRange { range: String, why: String },
    #[error("description is empty; say what the pack is for")]
    NoDescription,
    #[error("pack {name} {version} needs rein {range}, but this is rein {have}; upgrade rein or pin an older version of the pack")]
    Incompatible { name: String, version: String, range: String, have: String },
    #[error("cannot read {}: {source}", shown_path(path))]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("rein.lock is not valid: {why}")]
    InvalidLock { why: String },
    #[error("cannot read {}: {source}", shown_path(path))]
    ReadLock {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl PackError {
    pub(crate) fn read(path: impl Into<PathBuf>, source: std::io::Error) -> PackError {
        PackError::Read { path: path.into(), source }
    }
}

/// One code per kind of failure, wherever a pack is read (adding, installing, loading): a pack
/// or rein.lock that cannot be used (or read, as for rein.toml) is configuration; a pack's file
/// that cannot be read is the OS.
impl From<PackError> for crate::error::Failure {
    fn from(err: PackError) -> crate::error::Failure {
        use crate::error::Code;
        let code = match err {
            PackError::Read { .. } => Code::IoError,
            _ => Code::InvalidConfig,
        };
        crate::error::Failure::new(code, err.to_string())
    }
}
