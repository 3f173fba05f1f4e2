//! OS confinement of spawned programs with Linux Landlock: the program's profile
//! (`policy::confinement`) becomes a ruleset rein builds in its own process, before the fork;
//! the child only enforces it, between fork and exec.
//!
//! Why this is safe in the child: after `fork` only async-signal-safe work is allowed. Opening
//! every path, creating the ruleset and adding its rules (which allocate) happen in the parent.
//! The child calls `RulesetCreated::restrict_self`, which is `prctl(PR_SET_NO_NEW_PRIVS)` and
//! `landlock_restrict_self(fd)` — two system calls — and builds its result from plain values
//! (`io::Error::last_os_error` does not allocate). Failures are reported as a raw OS error.

#[cfg(target_os = "linux")]
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::kernel::policy::confinement::Profile;

/// The oldest Landlock ABI rein confines with: ABI 3 is the first that controls truncation,
/// and ABI 2 the first that lets a program rename files across directories.
pub const MIN_ABI: i32 = 3;

/// Home config.toml `[spawn] confine`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ConfineMode {
    /// Confine where the kernel can; otherwise run unconfined and say so.
    #[default]
    Auto,
    /// Refuse to spawn where the kernel cannot confine.
    Require,
    /// Never confine (a person's explicit choice).
    Off,
}

/// What this machine's kernel offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Level {
    Landlock { abi: i32 },
    Unavailable(String),
}

impl Level {
    /// How `rein doctor` shows it.
    pub fn describe(&self, mode: ConfineMode) -> String {
        match (self, mode) {
            (_, ConfineMode::Off) => "off (home config.toml [spawn] confine = \"off\")".to_string(),
            (Level::Landlock { abi }, _) => format!("landlock ABI {abi}: enforced"),
            (Level::Unavailable(why), ConfineMode::Require) => {
                format!("unavailable: {why}; programs are refused ([spawn] confine = \"require\")")
            }
            (Level::Unavailable(why), ConfineMode::Auto) => format!("unavailable: {why}; programs run unconfined"),
        }
    }
}

/// What one spawn runs under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    Landlock { abi: i32 },
    Unconfined(String),
    Refuse(String),
}

impl Plan {
    /// The journal's `confinement` field.
    pub fn journal(&self) -> String {
        match self {
            Plan::Landlock { abi } => format!("landlock-abi{abi}"),
            Plan::Unconfined(why) | Plan::Refuse(why) => format!("none: {why}"),
        }
    }
}

/// The decision: the person's mode against what the kernel offers.
pub fn decide(mode: ConfineMode, level: &Level) -> Plan {
    match (mode, level) {
        (ConfineMode::Off, _) => Plan::Unconfined("off in home config.toml ([spawn] confine = \"off\")".to_string()),
        (_, Level::Landlock { abi }) => Plan::Landlock { abi: *abi },
        (ConfineMode::Auto, Level::Unavailable(why)) => Plan::Unconfined(why.clone()),
        (ConfineMode::Require, Level::Unavailable(why)) => Plan::Refuse(why.clone()),
    }
}

/// This machine's level, probed once.
pub fn level() -> &'static Level {
    static LEVEL: OnceLock<Level> = OnceLock::new();
    LEVEL.get_or_init(probe)
}

/// Says once per process that programs run unconfined (and why).
pub fn warn_unconfined_once(why: &str) {
    static SAID: AtomicBool = AtomicBool::new(false);
    if !SAID.swap(true, Ordering::Relaxed) {
        tracing::warn!(target: "rein::spawn", "programs run without OS confinement: {why}");
    }
}

#[derive(Debug, thiserror::Error)]
#[error("cannot prepare the Landlock ruleset: {0}")]
pub struct ConfineError(String);

#[cfg(target_os = "linux")]
fn probe() -> Level {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: asks the kernel for the Landlock ABI version; no memory is passed.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if abi < 0 {
        let err = std::io::Error::last_os_error();
        return Level::Unavailable(match err.raw_os_error() {
            Some(libc::ENOSYS) => "this kernel has no Landlock (built without it, or older than Linux 5.13)".into(),
            Some(libc::EOPNOTSUPP) => "Landlock is disabled at boot (add landlock to the lsm= kernel parameter)".into(),
            _ => format!("the Landlock probe failed: {err}"),
        });
    }
    let abi = abi as i32;
    if abi < MIN_ABI {
        return Level::Unavailable(format!("Landlock ABI {abi} is older than ABI {MIN_ABI} (Linux 6.2)"));
    }
    Level::Landlock { abi }
}

#[cfg(not(target_os = "linux"))]
fn probe() -> Level {
    Level::Unavailable("Landlock exists only on Linux".to_string())
}

/// A ruleset ready to enforce in the child.
#[cfg(target_os = "linux")]
pub struct Prepared(landlock::RulesetCreated);

#[cfg(not(target_os = "linux"))]
pub struct Prepared(());

/// Creates the profile's directories rein makes before the program starts (caches, a fresh
/// project's output directories), then opens every path and builds the ruleset. Paths that do
/// not exist are left out (nothing can be created there).
#[cfg(target_os = "linux")]
pub fn prepare(profile: &Profile) -> Result<Prepared, ConfineError> {
    use landlock::{Access, AccessFs, CompatLevel, Compatible, PathBeneath, Ruleset, RulesetAttr};
    use landlock::{RulesetCreatedAttr, ABI};

    for dir in &profile.create {
        if !dir.exists() {
            std::fs::create_dir_all(dir).map_err(|e| ConfineError(format!("cannot create {}: {e}", dir.display())))?;
        }
    }
    let abi = ABI::V5;
    let fail = |e: &dyn std::fmt::Display| ConfineError(e.to_string());
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .map_err(|e| fail(&e))?
        .create()
        .map_err(|e| fail(&e))?;
    let grants = profile
        .read
        .iter()
        .map(|p| (p, AccessFs::from_read(abi), true))
        .chain(profile.write.iter().map(|p| (p, AccessFs::from_all(abi), true)))
        .chain(profile.write_no_link.iter().map(|p| (p, AccessFs::from_all(abi), false)));
    for (path, access, follow) in grants {
        let Some(fd) = open(path, follow) else { continue };
        ruleset = ruleset.add_rule(PathBeneath::new(fd, access)).map_err(|e| fail(&e))?;
    }
    Ok(Prepared(ruleset))
}

/// Opens `path` as a handle for a rule (`O_PATH`); a missing path, or a link when `follow` is
/// false, gives none. The rule holds this very handle, so a later swap changes nothing.
#[cfg(target_os = "linux")]
fn open(path: &Path, follow: bool) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let flags = libc::O_PATH | libc::O_CLOEXEC | if follow { 0 } else { libc::O_NOFOLLOW };
    let file = std::fs::OpenOptions::new().read(true).custom_flags(flags).open(path).ok()?;
    let is_link = file.metadata().map_or(true, |m| m.file_type().is_symlink());
    (!is_link).then_some(file)
}

#[cfg(not(target_os = "linux"))]
pub fn prepare(_profile: &Profile) -> Result<Prepared, ConfineError> {
    Err(ConfineError("Landlock exists only on Linux".to_string()))
}

/// Makes `cmd`'s child enforce `prepared` between fork and exec.
#[cfg(target_os = "linux")]
pub fn install(cmd: &mut tokio::process::Command, prepared: Prepared) {
    let mut ruleset = Some(prepared.0);
    let enforce = move || -> std::io::Result<()> {
        let Some(ruleset) = ruleset.take() else { return Err(std::io::Error::from_raw_os_error(libc::EINVAL)) };
        match ruleset.restrict_self() {
            Ok(status) if status.ruleset != landlock::RulesetStatus::NotEnforced => Ok(()),
            Ok(_) => Err(std::io::Error::from_raw_os_error(libc::EPERM)),
            Err(_) => Err(std::io::Error::last_os_error()),
        }
    };
    // SAFETY: `enforce` only makes two system calls (see the module comment); everything that
    // allocates was done before the fork.
    unsafe {
        cmd.pre_exec(enforce);
    }
}

#[cfg(not(target_os = "linux"))]
pub fn install(_cmd: &mut tokio::process::Command, _prepared: Prepared) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn require_refuses_where_the_kernel_cannot_confine_and_auto_runs_unconfined() {
        let none = Level::Unavailable("this kernel has no Landlock".to_string());
        let seven = Level::Landlock { abi: 7 };
        assert_eq!(decide(ConfineMode::Require, &none), Plan::Refuse("this kernel has no Landlock".to_string()));
        assert_eq!(decide(ConfineMode::Auto, &none), Plan::Unconfined("this kernel has no Landlock".to_string()));
        assert_eq!(decide(ConfineMode::Require, &seven), Plan::Landlock { abi: 7 });
        assert_eq!(decide(ConfineMode::Auto, &seven), Plan::Landlock { abi: 7 });
        assert!(matches!(decide(ConfineMode::Off, &seven), Plan::Unconfined(_)));
        assert_eq!(decide(ConfineMode::Auto, &seven).journal(), "landlock-abi7");
        assert_eq!(decide(ConfineMode::Auto, &none).journal(), "none: this kernel has no Landlock");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn workspace_grants_never_follow_a_link() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("entry")).unwrap();
        std::os::unix::fs::symlink("/", dir.path().join("link")).unwrap();
        assert!(open(&dir.path().join("entry"), false).is_some());
        assert!(open(&dir.path().join("link"), false).is_none());
        assert!(open(&dir.path().join("link"), true).is_some());
        assert!(open(&dir.path().join("missing"), true).is_none());
    }

    #[test]
    fn doctor_says_the_level_and_what_follows() {
        assert_eq!(Level::Landlock { abi: 7 }.describe(ConfineMode::Auto), "landlock ABI 7: enforced");
        let none = Level::Unavailable("no Landlock".to_string());
        assert!(none.describe(ConfineMode::Require).contains("refused"));
        assert!(none.describe(ConfineMode::Auto).contains("unconfined"));
    }
}
