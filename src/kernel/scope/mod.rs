//! Where a path really points, and which class of place that is. Every kernel operation
//! resolves its path here first; the approval policy decides on the class.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub mod protected;
#[cfg(not(windows))]
mod unix;
#[cfg(windows)]
mod windows;
// Pure functions, compiled everywhere so their tables run on every OS; only Windows uses them.
#[cfg_attr(not(windows), allow(dead_code))]
pub mod windows_paths;

/// What separates the names of a requested path on this OS: `/`, and on Windows `\` too (on
/// Unix `\` is a character of a name).
pub const SEPARATORS: &[char] = if cfg!(windows) { &['/', '\\'] } else { &['/'] };

#[cfg(not(windows))]
use unix as os;
#[cfg(windows)]
use windows as os;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PathClass {
    Workspace,
    Home,
    Outside,
    Protected,
    /// rein.toml or rein.lock at the workspace root.
    Policy,
}

impl PathClass {
    pub fn describe(self) -> &'static str {
        match self {
            PathClass::Workspace => "inside the workspace",
            PathClass::Home => "inside rein's home (its config and approvals)",
            PathClass::Outside => "outside the workspace",
            PathClass::Protected => {
                "inside a .git/ folder, .rein/, .rein-received/ or the agent clients' and editor's settings (.claude/, .codex/, .cursor/, .vscode/, .mcp.json) of the workspace"
            }
            PathClass::Policy => "the project's policy file (rein.toml or rein.lock)",
        }
    }
}

/// Reading or writing a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    /// Reading (listing a folder too).
    Read,
    /// Writing (creating, editing, making a folder).
    Write,
}

impl Access {
    /// `"read"` or `"write"`.
    pub fn verb(self) -> &'static str {
        match self {
            Access::Read => "read",
            Access::Write => "write",
        }
    }
}

/// Why a path cannot be resolved.
#[derive(Debug, thiserror::Error)]
pub enum ScopeError {
    #[error("path is empty; give a file path relative to the workspace")]
    Empty,
    /// NUL, another C0 control, DEL or C1: no file rein works with needs one in its name, and
    /// a person shown the path (in a question, say) would see the screen act on it instead.
    #[error("path {shown} holds a control character ({control}); give a path without one (rename the file if its name has one)")]
    ControlCharacter { shown: String, control: String },
    #[error("{path} has too many levels of symbolic links; fix the link cycle")]
    LinkLoop { path: String },
    #[error("cannot read the link {path}: {source}")]
    ReadLink {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("workspace {path} cannot be used ({source}); pass --workspace with an existing directory")]
    Workspace {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("workspace {path} is not a directory; pass --workspace with a project directory")]
    WorkspaceNotADirectory { path: String },
    #[error("workspace {path} was moved, deleted or replaced by a link while rein started; start rein again once it stays put")]
    WorkspaceMoved { path: String },
    /// A path the OS would read differently from the check (Windows: `kernel::scope::windows_paths`).
    #[error("{why}")]
    Refused { why: String },
}

/// A path after resolution: `real` has no `.`/`..` and no symlinks in any existing part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// What the caller asked for, as given.
    pub requested: String,
    pub real: PathBuf,
    pub class: PathClass,
}

impl ResolvedPath {
    /// How the path is shown to callers: relative to the workspace when inside it.
    pub fn display(&self, scope: &Scope) -> String {
        scope.display(&self.real)
    }
}

#[derive(Debug, Clone)]
pub struct Scope {
    workspace: PathBuf,
    home: PathBuf,
    /// The workspace folder the kernel holds open (see `holding`).
    #[cfg(not(windows))]
    held: unix::Identity,
}

/// The identity of the folder `path` names, by two looks: its last part no link (`lstat`), then
/// no link above it (`canonicalize` gives it back unchanged). Racy where the walk that
/// [`Scope::holding`]'s caller prefers is not: only for when that walk cannot open a folder
/// above.
#[cfg(not(windows))]
pub fn named_by_looking(path: &Path) -> std::io::Result<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path)?;
    let real = std::fs::canonicalize(path)?;
    if meta.file_type().is_symlink() || real != path {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "a link on the way"));
    }
    Ok((meta.dev(), meta.ino()))
}

impl Scope {
    /// `workspace` must exist; `home` may not exist yet.
    pub fn new(workspace: &Path, home: &Path) -> Result<Scope, ScopeError> {
        let workspace = std::fs::canonicalize(workspace)
            .map_err(|source| ScopeError::Workspace { path: workspace.display().to_string(), source })?;
        if !workspace.is_dir() {
            return Err(ScopeError::WorkspaceNotADirectory { path: workspace.display().to_string() });
        }
        let home = os::absolute_home(home)?;
        Ok(Scope {
            workspace,
            home,
            // No folder is held until the kernel opens one (`holding`): until then every path
            // resolves from `/`.
            #[cfg(not(windows))]
            held: unix::Identity::none(),
        })
    }

    /// The same scope holding the workspace folder rein opened, `identity` its device and inode;
    /// `named` is the identity of the folder the workspace's path reaches walked from `/`
    /// following no link (an error when a part is a link or missing). The identity
    /// [`Scope::new`] took by name could be another folder's, had the workspace (or a folder
    /// above it) been swapped for a link between making its path real and looking at it, and
    /// every path would then resolve into the link's target under the workspace's name. So,
    /// after the open, the path must reach that very folder with no link on the way; past
    /// that, `resolve` checks the name again at each path.
    #[cfg(not(windows))]
    pub fn holding(self, identity: (u64, u64), named: std::io::Result<(u64, u64)>) -> Result<Scope, ScopeError> {
        if !named.is_ok_and(|named| named == identity) {
            return Err(ScopeError::WorkspaceMoved { path: self.workspace.display().to_string() });
        }
        Ok(Scope { held: unix::Identity::known(identity.0, identity.1), ..self })
    }

    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    pub fn home(&self) -> &Path {
        &self.home
    }

    /// Resolves `requested` (relative paths start at the workspace, never at the process's
    /// current directory) and classifies where it really points: Protected and Policy (the
    /// table in `protected`) beat Home beats Workspace, so a home inside the workspace is
    /// still home.
    pub fn resolve(&self, requested: &str) -> Result<ResolvedPath, ScopeError> {
        if requested.is_empty() {
            return Err(ScopeError::Empty);
        }
        if let Some(control) = requested.chars().find(|c| c.is_control()) {
            return Err(ScopeError::ControlCharacter {
                shown: crate::visible::line(requested).into_owned(),
                control: crate::visible::line(&control.to_string()).into_owned(),
            });
        }
        #[cfg(not(windows))]
        return os::resolve(&self.workspace, &self.held, &self.home, requested);
        #[cfg(windows)]
        return os::resolve(&self.workspace, &self.home, requested);
    }

    /// How `real` is shown to callers: relative to the workspace when inside it.
    pub fn display(&self, real: &Path) -> String {
        os::display(&self.workspace, real)
    }
}
