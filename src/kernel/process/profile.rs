//! What one spawn may reach: the places rein knows (the workspace's entries and the protected
//! ones at any depth, the toolchain, the person's settings) handed to `policy::confinement`,
//! which makes the profile.

use std::path::{Path, PathBuf};

use crate::harmony::confinement::{self, Profile, SpawnPlaces};
use crate::harmony::programs::Program;
use crate::harmony::toolchain;
use crate::kernel::journal::Entry;
use crate::kernel::policy::DecidedBy;
use crate::kernel::scope::protected;
use crate::kernel::Kernel;

/// How deep the walk for nested protected entries goes (a workspace is rarely deeper).
#[cfg(target_os = "linux")]
const MAX_DEPTH: usize = 64;

/// hvigor's user home for this workspace: `HVIGOR_USER_HOME`, which hvigor documents
/// (developer.huawei.com, "ide-hvigor-path": where `.hvigor` lives instead of `~/.hvigor`).
/// One per workspace, under the person's cache (`~/.cache/rein/hvigor/<hash of the workspace
/// path>`), so what one project's build plants there never runs in another project's build, nor
/// in DevEco Studio's, which keep using `~/.hvigor`.
pub(super) fn hvigor_home(env: &[(String, String)], workspace: &Path) -> Option<PathBuf> {
    use sha2::{Digest, Sha256};
    let home = env.iter().find(|(name, _)| name == "HOME").map(|(_, v)| PathBuf::from(v))?;
    if !home.is_absolute() {
        return None;
    }
    let digest = Sha256::digest(workspace.as_os_str().as_encoded_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    Some(home.join(".cache/rein/hvigor").join(hex))
}

impl Kernel {
    /// What `program` may reach on disk while it runs (see `policy::confinement`). `shown_writes`:
    /// what the question said a yes lets it write outside the workspace.
    pub(super) fn confinement_profile(
        &self,
        program: &Program,
        located: &toolchain::Located,
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
        let hdc_paths: Vec<std::path::PathBuf> = match self.spawn.toolchain.get(&Program::Hdc) {
            Some(Ok(hdc)) => std::iter::once(hdc.path.clone()).chain(std::fs::canonicalize(&hdc.path)).collect(),
            _ => Vec::new(),
        };
        let places = SpawnPlaces {
            workspace,
            rein_home: self.scope.home(),
            program: &located.path,
            // A script is read like a jar (never on Linux today: DevEco layouts are macOS/Windows).
            jar: located.jar.as_deref().or(located.script.as_deref()),
            env,
            outside_args: confinement::outside_paths(args, workspace),
            approved_writes: approved_by_person.then_some(shown_writes),
            args,
            extra_ports: self.spawn.connect_ports.get(program.name()).map_or(&[], Vec::as_slice),
            writable: &self.spawn.writable,
            hdc: &hdc_paths,
            protected: &protected,
            hvigor_reads_signing_material: self.spawn.hvigor_reads_signing_material,
        };
        confinement::profile(program, &places, &entries)
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
