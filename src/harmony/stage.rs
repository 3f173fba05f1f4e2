//! The packages of one install, gathered in a folder of rein's own. hdc installs the packages of
//! a folder together: the client sends the folder as one tar and the daemon runs one `bm install
//! -p <folder>` (developtools_hdc `src/host/host_app.cpp` `BeginInstall`, `Dir2Tar`;
//! `src/daemon/daemon_app.cpp` `WhenTransferFinish`, `Tar2Dir`), one transaction in which a HAP
//! finds the HSP it depends on. Given several package paths instead, hdc runs one `bm install`
//! per package, in the order of their sorted paths, so a HAP may go before its HSP and fail
//! with 9568305. And hdc sends a folder whole, whatever is in it: so the folder is one the agent
//! cannot write (`.rein/`, beyond every program's and tool's reach), holding copies of exactly
//! the packages named here.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;

use crate::kernel::files::read;
use crate::kernel::{Access, Action, Call, Kernel, KernelError, PathClass};

/// Where staged folders live, relative to the workspace root.
pub const STAGE_DIR: &str = ".rein/install";
/// The largest package rein copies.
const PACKAGE_LIMIT: u64 = 4 * 1024 * 1024 * 1024;
/// A staged folder older than this is from an install that ended: removed at the next staging.
const KEEP: Duration = Duration::from_secs(3600);

/// What [`Kernel::stage_packages`] made.
#[derive(Debug, Clone, Serialize)]
pub struct Staged {
    /// The folder, relative to the workspace root (`.rein/install/<id>`): what `hdc install` gets.
    pub dir: String,
    /// The packages copied into it, as the caller named them.
    pub packages: Vec<String>,
}

/// Whether `path` is a folder [`Kernel::stage_packages`] names: `.rein/install/` and one name of
/// digits and `-`.
pub fn is_staged_dir(path: &str) -> bool {
    path.strip_prefix(STAGE_DIR)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|id| !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_digit() || c == '-'))
}

fn new_id() -> String {
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let ms = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0);
    format!("{ms}-{}-{}", std::process::id(), COUNT.fetch_add(1, Ordering::Relaxed))
}

impl Kernel {
    /// Copies each of `paths` (a `.hap` or `.hsp` file in the workspace, each name once) into a
    /// new folder under [`STAGE_DIR`]. Each read is journaled as a read. A path outside the
    /// workspace is refused before anything is read or asked.
    pub fn stage_packages(&self, call: &Call, paths: &[String]) -> Result<Staged, KernelError> {
        if paths.is_empty() {
            return Err(KernelError::invalid("no package to install: name at least one .hap or .hsp"));
        }
        let id = new_id();
        let mut names = BTreeSet::new();
        for path in paths {
            self.journaled(call, Action::Read, path, |entry| {
                // `hdc install` takes package files inside the workspace only; a copy in `.rein/`
                // must not carry one from elsewhere, whoever would approve reading it.
                let class = self.scope.resolve(path)?.class;
                if class != PathClass::Workspace {
                    return Err(KernelError::invalid(format!(
                        "{path} is {}: only packages inside the workspace are installed; build and sign them there",
                        class.describe()
                    )));
                }
                let (resolved, display) = self.authorize(call, path, Access::Read, entry)?;
                let name = package_name(&display)?;
                if !names.insert(name.to_string()) {
                    return Err(KernelError::invalid(format!(
                        "two packages are named {name}: a folder holds one file of a name; give each package once"
                    )));
                }
                let place = self.place(&resolved.real, &display, false)?;
                let (file, meta) = read::open_regular(&place, &display)?;
                if meta.len() > PACKAGE_LIMIT {
                    return Err(KernelError::invalid(format!("{display} is larger than 4 GiB: not a package")));
                }
                // Copied as read, never held whole: a package may be gigabytes, far past a call's
                // memory ceiling (a build script makes a sparse one in a moment).
                self.write_rein_file_from(
                    &Path::new(STAGE_DIR).join(&id).join(name),
                    &mut std::io::Read::take(file, PACKAGE_LIMIT),
                )
            })?;
        }
        self.prune_staged(&id);
        Ok(Staged { dir: format!("{STAGE_DIR}/{id}"), packages: paths.to_vec() })
    }

    /// Removes staged folders older than [`KEEP`] (best effort: a folder left is only disk).
    fn prune_staged(&self, keep: &str) {
        let Ok(names) = self.rein_dir_names(Path::new(STAGE_DIR)) else { return };
        let base = self.root.path().join(STAGE_DIR);
        for name in names.iter().filter(|n| n.as_str() != keep) {
            let dir = base.join(name);
            let old = std::fs::symlink_metadata(&dir)
                .and_then(|m| m.modified())
                .is_ok_and(|at| at.elapsed().is_ok_and(|age| age > KEEP));
            if old {
                let _ = std::fs::remove_dir_all(&dir);
            }
        }
    }
}

/// The file name of a package path: it must end in `.hap` or `.hsp`.
fn package_name(display: &str) -> Result<&str, KernelError> {
    let name = display.rsplit(['/', '\\']).next().unwrap_or(display);
    let stem = name.strip_suffix(".hap").or_else(|| name.strip_suffix(".hsp"));
    match stem {
        Some(stem) if !stem.is_empty() => Ok(name),
        _ => Err(KernelError::invalid(format!(
            "{display} is not a package: name each signed .hap and .hsp file (a folder is not taken)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_folder_rein_names_counts_as_staged() {
        assert!(is_staged_dir(".rein/install/1733090000000-42-0"));
        for path in [
            ".rein/install",
            ".rein/install/",
            ".rein/install/../journal",
            ".rein/install/1/2",
            "./.rein/install/1",
            "/ws/.rein/install/1",
            ".rein/installx/1",
            ".rein/install/abc",
        ] {
            assert!(!is_staged_dir(path), "{path}");
        }
    }

    #[test]
    fn a_package_is_a_hap_or_an_hsp() {
        assert_eq!(package_name("entry/build/x/entry-default-signed.hap").unwrap(), "entry-default-signed.hap");
        assert_eq!(package_name("lib.hsp").unwrap(), "lib.hsp");
        for bad in ["entry/build", "x.app", ".hap", "x.hap/"] {
            assert!(package_name(bad).is_err(), "{bad}");
        }
    }
}
