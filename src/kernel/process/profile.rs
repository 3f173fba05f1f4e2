//! What one spawn may reach: the places rein knows (the workspace's entries and the protected
//! ones at any depth, the person's settings) handed to the program's toolchain profile, which
//! makes its grants (`grants`, `toolchain`).

use std::path::{Path, PathBuf};

use super::grants::{self, Profile, SpawnFacts};
use super::toolchain::Found;
use crate::kernel::journal::Entry;
use crate::kernel::policy::DecidedBy;
use crate::kernel::scope::protected;
use crate::kernel::Kernel;

/// How deep the walk for nested protected entries goes (a workspace is rarely deeper).
#[cfg(target_os = "linux")]
const MAX_DEPTH: usize = 64;

impl Kernel {
    /// What `program` may reach on disk while it runs (its toolchain profile's grants). `shown_writes`:
    /// what the question said a yes lets it write outside the workspace.
    pub(super) fn confinement_profile(
        &self,
        program: &str,
        located: &Found,
        args: &[String],
        env: &[(String, String)],
        entry: &Entry,
        shown_writes: &[PathBuf],
    ) -> Profile {
        let workspace = self.scope.workspace();
        // A top-level link is never granted: opening it would grant its target (`~`, say). Nor
        // is what the agent's own file tools may not write: `.rein/`, `.git`, rein.toml, rein.lock.
        let entries: Vec<String> = std::fs::read_dir(workspace)
            .map(|dir| {
                dir.flatten()
                    .filter(|e| e.file_type().is_ok_and(|t| !t.is_symlink()))
                    .filter(|e| !self.is_protected(&e.path()))
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        let protected = self.protected_below(workspace);
        let approved_by_person =
            matches!(entry.decided_by, Some(DecidedBy::Rule(_) | DecidedBy::Session | DecidedBy::Approver(_)));
        let facts = SpawnFacts {
            workspace,
            rein_home: self.scope.home(),
            entries: &entries,
            env,
            args,
            outside_args: grants::outside_paths(args, workspace),
            approved_writes: approved_by_person.then_some(shown_writes),
            extra_ports: self.spawn.connect_ports.get(program).map_or(&[], Vec::as_slice),
            writable: &self.spawn.writable,
            protected: &protected,
        };
        self.spawn.profile.grants(program, located, &facts)
    }

    /// Whether the agent's file tools may not write `path` (a `.git` at any depth, `.rein/`,
    /// rein.toml, rein.lock, rein's home): a confined program may not either.
    fn is_protected(&self, path: &Path) -> bool {
        let Ok(rest) = path.strip_prefix(self.scope.workspace()) else { return false };
        let parts: Vec<String> = rest.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        protected::class_of(&parts).is_some() || path.starts_with(self.scope.home())
    }

    /// The protected entries below the workspace's top level (nested `.git` folders and files),
    /// found by handle (`handles`: a folder swapped for a link while rein walks is not
    /// followed); the walk does not go into them.
    #[cfg(target_os = "linux")]
    fn protected_below(&self, workspace: &Path) -> Vec<PathBuf> {
        let mut found = Vec::new();
        if let Some(root) = super::handles::open_dir(workspace, true) {
            self.protected_in(&root, workspace, 0, &mut found);
        }
        found
    }

    #[cfg(target_os = "linux")]
    fn protected_in(&self, dir: &std::os::fd::OwnedFd, path: &Path, depth: usize, found: &mut Vec<PathBuf>) {
        for (name, is_dir) in super::handles::entries(dir) {
            let child = path.join(&name);
            let protected = self.is_protected(&child);
            if depth > 0 && protected {
                found.push(child);
            } else if is_dir && depth < MAX_DEPTH && !protected {
                if let Some(inner) = super::handles::child_dir(dir, &name) {
                    self.protected_in(&inner, &child, depth + 1, found);
                }
            }
        }
    }

    /// Only Landlock (Linux) uses them.
    #[cfg(not(target_os = "linux"))]
    fn protected_below(&self, _workspace: &Path) -> Vec<PathBuf> {
        Vec::new()
    }
}
