//! Directories held open, so that a path checked once cannot be swapped under rein. Every
//! workspace read, write, edit, list and pre-image goes through a [`Dir`] opened from the
//! workspace root without following any link (Linux `openat2` with `RESOLVE_BENEATH |
//! RESOLVE_NO_SYMLINKS`, else a component-by-component `O_NOFOLLOW` walk; on Windows a walk of
//! handles that refuse reparse points and, held without `FILE_SHARE_DELETE`, cannot be renamed
//! while rein holds them), and then names one entry in it. The scope resolved every link the
//! caller was allowed to follow first, so a link met here appeared after the check: the
//! operation fails instead of following it. The OS code is in `kernel::platform`.

use crate::visible::shown_path;
use std::ffi::{OsStr, OsString};
use std::path::Path;

pub use crate::kernel::platform::{Dir, Kind};

/// One entry of a directory held open: where a file operation acts.
#[derive(Debug)]
pub struct Place {
    pub dir: Dir,
    pub name: OsString,
}

impl Place {
    /// The entry `path` names, its folder opened as named (no beneath check): for rein's own
    /// files in home, and for tests.
    pub fn of_path(path: &Path) -> std::io::Result<Place> {
        let (parent, name) = split(path)?;
        Ok(Place { dir: Dir::open_path(parent)?, name: name.to_os_string() })
    }

    /// The entry `real` names, its folder opened from `root` (the workspace, or `/`) without
    /// following any link; `create` makes the missing folders.
    pub fn beneath(root: &Dir, real: &Path, create: bool) -> std::io::Result<Place> {
        let (parent, name) = split(real)?;
        let rel = parent.strip_prefix(root.path()).map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{} is not under {}", shown_path(real), shown_path(root.path())),
            )
        })?;
        let dir = if create { root.create_beneath(rel)? } else { root.open_beneath(rel)? };
        Ok(Place { dir, name: name.to_os_string() })
    }
}

fn split(path: &Path) -> std::io::Result<(&Path, &OsStr)> {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => Ok((parent, name)),
        _ => Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("{} names no file", shown_path(path)))),
    }
}
