//! `rein types`: lua-language-server `---@meta` stubs for everything a tool or recipe author
//! uses — the `rein` namespace, the tool and recipe tables and their `ctx`, the prelude
//! modules shipped in the binary — plus selene's standard library, and a `.luarc.json` that
//! points the editor at them.
//!
//! - `tables`: the tool and recipe tables and `ctx` as classes
//! - `prelude`: stubs of the prelude modules, read from their source
//! - `luarc`: writing or updating the workspace's `.luarc.json`

mod luarc;
pub mod prelude;
pub mod tables;

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Code, Failure};
use crate::kernel::files::dir::{Dir, Place};
use crate::kernel::files::read::read_whole_text;
use crate::kernel::files::write;
use crate::kernel::KernelError;
use crate::lua::api::{selene, stubs};
use crate::lua::native::{self, NativeModules};
use crate::visible::shown_path;

pub use luarc::LuarcOutcome;

/// Where `rein init` puts the stubs, relative to the workspace.
pub const DEFAULT_DIR: &str = ".rein/types";

/// Every file of the stubs folder, `(path inside it, text)`, for a host serving `natives`:
/// they appear in `rein.lua` after rein's own natives, and in selene's `rein.yml`.
pub fn files_with(natives: &NativeModules) -> Vec<(String, String)> {
    let version = env!("CARGO_PKG_VERSION");
    let rein = stubs::rein_stub(version) + &native::stubs::lua_stubs(natives);
    let mut files = vec![("rein.lua".to_string(), rein), ("tables.lua".to_string(), tables_stub(version))];
    for (rel, text) in super::sources::builtin_files() {
        if let Some(module) = prelude::module_name(rel) {
            files.push((rel.to_string(), prelude::module_stub(&module, text)));
        }
    }
    files.push(("rein.yml".to_string(), selene::selene_std() + &native::stubs::selene_globals(natives)));
    files
}

fn tables_stub(version: &str) -> String {
    let mut out = format!(
        "---@meta\n-- The tables tool and recipe files return, and the ctx they receive, written by `rein types`\n\
         -- (rein {version}). Do not edit: run `rein types` again after upgrading rein.\n"
    );
    for class in &tables::CLASSES {
        out.push('\n');
        stubs::class_stub(&mut out, class);
    }
    out
}

/// What `rein types` did.
#[derive(Debug, Clone, Serialize)]
pub struct Written {
    /// The stubs folder.
    pub dir: PathBuf,
    /// The files written, relative to it.
    pub files: Vec<String>,
    /// What was done to the workspace's `.luarc.json`.
    pub luarc: LuarcOutcome,
}

/// A stubs folder that cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum TypesError {
    #[error("cannot write {}: {source}; choose another folder (`rein types DIR`)", shown_path(path))]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl From<TypesError> for Failure {
    fn from(err: TypesError) -> Failure {
        Failure::new(Code::IoError, err.to_string())
    }
}

/// Writes the stubs into `dir` and points `workspace`'s `.luarc.json` at them.
pub fn write(workspace: &Path, dir: &Path) -> Result<Written, TypesError> {
    write_with(workspace, dir, &NativeModules::default())
}

/// [`write()`] for a host that serves native modules (see [`crate::Host::write_types`]).
pub fn write_with(workspace: &Path, dir: &Path, natives: &NativeModules) -> Result<Written, TypesError> {
    let mut written = Vec::new();
    // Opened once for every stub: the workspace, held, when the stubs folder is inside it.
    let held = std::fs::canonicalize(workspace).and_then(|real| Dir::open_path(&real));
    for (rel, text) in files_with(natives) {
        let path = dir.join(&rel);
        let place =
            stub_place(workspace, &held, &path).map_err(|source| TypesError::Write { path: path.clone(), source })?;
        write_at(&place, &path, &text)?;
        written.push(rel);
    }
    let luarc = luarc::point_at(workspace, dir)?;
    Ok(Written { dir: dir.to_path_buf(), files: written, luarc })
}

/// Where the stub `path` is written. Inside the workspace (`.rein/types`, the default) its
/// folders are made and opened beneath the workspace following no link: a cloned repository
/// may hold `.rein` or `.rein/types` as a link to a person's folder outside, and every stub
/// landed there. A folder a person names outside the workspace is taken as they name it.
fn stub_place(workspace: &Path, held: &std::io::Result<Dir>, path: &Path) -> std::io::Result<Place> {
    let path = std::path::absolute(path)?;
    let inside = path
        .strip_prefix(std::path::absolute(workspace)?)
        .ok()
        .filter(|rel| rel.components().all(|part| matches!(part, std::path::Component::Normal(_))));
    match inside {
        Some(rel) => {
            let held = held.as_ref().map_err(|e| std::io::Error::new(e.kind(), e.to_string()))?;
            Place::beneath(held, &held.path().join(rel), true)
        }
        None => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            Place::of_path(&path)
        }
    }
}

/// Whether `place` is a plain file holding `text`: read as the kernel reads a file (no link, no
/// FIFO waited on, no more than `text`'s length), whatever stands there.
fn holds(place: &Place, text: &str) -> bool {
    read_whole_text(place, "", text.len() as u64, "").is_ok_and(|bytes| bytes == text.as_bytes())
}

/// Writes `text` to `path` with its folders, atomically and durably (the kernel's writer for
/// rein's own files); a file that already holds `text` is left as it is.
pub fn write_generated(path: &Path, text: &str) -> Result<(), TypesError> {
    let failed = |source| TypesError::Write { path: path.to_path_buf(), source };
    let path = std::path::absolute(path).map_err(failed)?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    let place = Place::of_path(&path).map_err(failed)?;
    write_at(&place, &path, text)
}

/// Writes `text` at `place` (`path` names it), unless it holds `text` already.
fn write_at(place: &Place, path: &Path, text: &str) -> Result<(), TypesError> {
    if holds(place, text) {
        return Ok(());
    }
    let failed = |source| TypesError::Write { path: path.to_path_buf(), source };
    match write::write_in(place, &shown_path(path), std::iter::once(text.as_bytes()), || Ok(())) {
        Ok(_) => Ok(()),
        Err(KernelError::Io { source, .. }) => Err(failed(source)),
        Err(other) => Err(failed(std::io::Error::other(other.to_string()))),
    }
}
