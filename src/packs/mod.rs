//! Recipe packs: tools, recipes and prelude modules shared across teams, pinned by content
//! hash, installed read-only under home, and namespaced `<pack>.<tool>`.

pub mod error;
pub mod git;
pub mod hash;
pub mod install;
pub mod installed;
pub mod lockfile;
pub mod manifest;

pub use error::PackError;
pub use manifest::Manifest;
