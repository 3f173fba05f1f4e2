//! OS confinement of spawned programs with Linux Landlock: the program's profile
//! (the toolchain profile's grants, `grants`) becomes a ruleset rein builds in its own process, before the fork;
//! the child only enforces it, between fork and exec.
//!
//! Why this is safe in the child: after `fork` only async-signal-safe work is allowed. Opening
//! every path, creating the ruleset and adding its rules (which allocate) happen in the parent.
//! The child calls `RulesetCreated::restrict_self`, which is `prctl(PR_SET_NO_NEW_PRIVS)` and
//! `landlock_restrict_self(fd)` — two system calls — and builds its result from plain values
//! (`io::Error::last_os_error` does not allocate). Failures are reported as a raw OS error.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::sockets::SocketKind;
use crate::kernel::platform::tree::BeforeExec;
use crate::kernel::process::grants::Profile;

/// The oldest Landlock ABI rein confines with: ABI 3 is the first that controls truncation,
/// and ABI 2 the first that lets a program rename files across directories.
pub const MIN_ABI: i32 = 3;

/// What confinement needs a newer Landlock ABI for, with the ABI and the Linux release that
/// brought it (the kernel's Documentation/userspace-api/landlock.rst, "Previous limitations",
/// and the landlock crate's `ABI` docs). Below the ABI that part is not confined.
const PARTS: [(i32, &str); 3] = [
    (4, "TCP bind and connect (Landlock ABI 4, Linux 6.7)"),
    (5, "device ioctls such as TIOCSTI (ABI 5, Linux 6.10)"),
    (6, "abstract unix sockets and signals to processes outside the program (ABI 6, Linux 6.12)"),
];

/// The parts of confinement a kernel with Landlock `abi` lacks.
pub fn missing(abi: i32) -> Vec<&'static str> {
    let lacking = PARTS.iter().filter(|(needs, _)| abi < *needs).map(|(_, part)| *part);
    #[cfg(target_os = "linux")]
    let lacking = lacking.chain(
        (!super::syscalls::AVAILABLE)
            .then_some("sockets other than TCP, System V IPC, keyrings, user namespaces and io_uring (no system-call filter for this architecture)"),
    );
    lacking.collect()
}

/// Who may send UDP datagrams (`programs`), where the system-call filter runs (`None`:
/// confinement is off, or this build has no filter, where `missing` says so).
pub fn datagrams(mode: ConfineMode, programs: &[&str]) -> Option<String> {
    #[cfg(target_os = "linux")]
    let filtered = super::syscalls::AVAILABLE && mode != ConfineMode::Off;
    #[cfg(not(target_os = "linux"))]
    let filtered = {
        let _ = mode;
        false
    };
    filtered.then(|| {
        format!(
            "UDP: only {} (name lookups; to any port until Landlock ABI 10 confines UDP), no other program",
            programs.join(" and ")
        )
    })
}

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
    Landlock {
        abi: i32,
    },
    /// macOS: `/usr/bin/sandbox-exec` runs each program under a profile made from its grants
    /// (`process::seatbelt`).
    #[cfg_attr(not(target_os = "macos"), allow(dead_code))]
    Seatbelt,
    /// Windows: each program runs with a write-restricted token inside its Job Object; only ACL
    /// entries rein adds for the spawn's capability SID let it write (`process::windows_acl`).
    #[cfg_attr(not(windows), allow(dead_code))]
    RestrictedToken,
    Unavailable(String),
}

impl Level {
    /// How `rein doctor` shows it.
    pub fn describe(&self, mode: ConfineMode) -> String {
        match (self, mode) {
            (_, ConfineMode::Off) => "off (home config.toml [spawn] confine = \"off\")".to_string(),
            (Level::Landlock { abi }, mode) => match (missing(*abi), mode) {
                (lacking, _) if lacking.is_empty() => format!("landlock ABI {abi}: enforced"),
                (lacking, ConfineMode::Require) => format!(
                    "landlock ABI {abi}: cannot confine {}; programs are refused ([spawn] confine = \"require\")",
                    lacking.join("; ")
                ),
                (lacking, _) => format!("landlock ABI {abi}: enforced, except {} (not confined)", lacking.join("; ")),
            },
            (Level::Seatbelt, _) => format!(
                "seatbelt ({}): enforced, a profile from each program's grants (files, TCP ports, name lookups)",
                super::seatbelt::SANDBOX_EXEC
            ),
            (Level::RestrictedToken, _) => RESTRICTED_TOKEN_DOCTOR.to_string(),
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
    Seatbelt,
    RestrictedToken,
    Unconfined(String),
    Refuse(String),
}

impl Plan {
    /// The journal's `confinement` field.
    pub fn journal(&self) -> String {
        match self {
            Plan::Landlock { abi } => format!("landlock-abi{abi}"),
            Plan::Seatbelt => "seatbelt".to_string(),
            Plan::RestrictedToken => "restricted-token".to_string(),
            Plan::Unconfined(why) | Plan::Refuse(why) => format!("none: {why}"),
        }
    }
}

/// The decision: the person's mode against what the kernel offers.
pub fn decide(mode: ConfineMode, level: &Level) -> Plan {
    match (mode, level) {
        (ConfineMode::Off, _) => Plan::Unconfined("off in home config.toml ([spawn] confine = \"off\")".to_string()),
        (ConfineMode::Require, Level::Landlock { abi }) if !missing(*abi).is_empty() => {
            Plan::Refuse(format!("this kernel's Landlock ABI {abi} cannot confine {}", missing(*abi).join("; ")))
        }
        (_, Level::Landlock { abi }) => Plan::Landlock { abi: *abi },
        (_, Level::Seatbelt) => Plan::Seatbelt,
        (_, Level::RestrictedToken) => Plan::RestrictedToken,
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

#[cfg(target_os = "macos")]
fn probe() -> Level {
    match std::fs::metadata(super::seatbelt::SANDBOX_EXEC) {
        Ok(meta) if meta.is_file() => Level::Seatbelt,
        _ => Level::Unavailable(format!(
            "{} is missing, so Seatbelt cannot confine programs",
            super::seatbelt::SANDBOX_EXEC
        )),
    }
}

/// What `rein doctor` says where a write-restricted token confines (Windows): what it holds
/// and, plainly, what stays open.
pub const RESTRICTED_TOKEN_DOCTOR: &str = "restricted token: enforced for writes (a write-restricted token inside \
     the Job Object; only the folders of each program's grants are writable); reads and the network stay open";

/// Windows: a write-restricted token where one can be made and is enforced. Wine makes the
/// token but enforces neither tokens nor ACLs, so there rein says that nothing confines.
#[cfg(windows)]
fn probe() -> Level {
    windows_level(super::super::platform::token_windows::under_wine(), || {
        super::super::platform::token_windows::RestrictedToken::new(&super::windows_acl::capability_sid([1, 2, 3, 4]))
            .map(drop)
    })
}

/// The decision behind Windows' probe, given whether this is Wine and an attempt to make a
/// token (tested on every OS).
#[cfg_attr(not(windows), allow(dead_code))]
fn windows_level(under_wine: bool, make_token: impl FnOnce() -> std::io::Result<()>) -> Level {
    if under_wine {
        return Level::Unavailable(UNDER_WINE.to_string());
    }
    match make_token() {
        Ok(()) => Level::RestrictedToken,
        Err(e) => Level::Unavailable(format!("a write-restricted token cannot be made here: {e}")),
    }
}

/// Why nothing confines under Wine.
pub const UNDER_WINE: &str = "this is Wine, which enforces neither Windows tokens nor ACLs";

#[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
fn probe() -> Level {
    Level::Unavailable("rein confines programs only on Linux (Landlock) and macOS (Seatbelt)".to_string())
}

/// What the child enforces just before it executes the program: the Landlock ruleset (when
/// confined) and the capability drop (unless confinement is off).
#[cfg(target_os = "linux")]
pub struct Prepared {
    ruleset: Option<landlock::RulesetCreated>,
    capabilities: super::privileges::CapabilityDrop,
    filter: super::syscalls::Filter,
}

#[cfg(not(target_os = "linux"))]
pub struct Prepared(());

/// Hardening without Landlock (a kernel without it, `confine = "auto"`): the program still holds
/// no capability and no terminal, and makes only the system calls its filter allows (opening
/// only the `sockets` kinds).
#[cfg(target_os = "linux")]
pub fn harden_only(sockets: &[SocketKind]) -> Option<Prepared> {
    let (capabilities, filter) = (super::privileges::CapabilityDrop::probe(), super::syscalls::filter(sockets));
    Some(Prepared { ruleset: None, capabilities, filter })
}

/// Elsewhere there is nothing to run in the child before the program (macOS: its own session
/// only; Windows: its Job Object).
#[cfg(not(target_os = "linux"))]
pub fn harden_only(_sockets: &[SocketKind]) -> Option<Prepared> {
    None
}

/// Creates the profile's directories rein makes before the program starts (caches, a fresh
/// project's output directories).
pub fn make_dirs(profile: &Profile) -> Result<(), ConfineError> {
    for dir in &profile.create {
        if !dir.exists() {
            std::fs::create_dir_all(dir).map_err(|e| ConfineError(format!("cannot create {}: {e}", dir.display())))?;
        }
    }
    Ok(())
}

/// Opens every path of the profile and builds the ruleset (after [`make_dirs`]): files (ABI 3+;
/// devices without `IOCTL_DEV` from ABI 5), TCP (ABI 4+: no bind, connect only to the profile's
/// ports), and the scopes (ABI 6+: abstract unix sockets and signals stay inside the program's
/// own domain). Rights a kernel lacks are left out (best effort); `rein doctor` says which.
/// Paths that do not exist are left out (nothing can be created there).
#[cfg(target_os = "linux")]
pub fn prepare(profile: &Profile) -> Result<Prepared, ConfineError> {
    use landlock::{Access, AccessFs, AccessNet, CompatLevel, Compatible, NetPort, PathBeneath, Ruleset};
    use landlock::{RulesetAttr, RulesetCreatedAttr, Scope, ABI};

    let abi = ABI::V5;
    let fail = |e: &dyn std::fmt::Display| ConfineError(e.to_string());
    // Device files are opened, never driven: no IOCTL_DEV (no TIOCSTI, no USB transfers).
    let dev_node = AccessFs::from_all(abi) & !AccessFs::IoctlDev;
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .map_err(|e| fail(&e))?
        .handle_access(AccessNet::from_all(ABI::V4))
        .map_err(|e| fail(&e))?
        .scope(Scope::from_all(ABI::V6))
        .map_err(|e| fail(&e))?
        .create()
        .map_err(|e| fail(&e))?;
    let grants: Vec<super::carve::Grant> = profile
        .read
        .iter()
        .map(|p| (p.clone(), AccessFs::from_read(abi), true))
        .chain(profile.dev_nodes.iter().map(|p| (p.clone(), dev_node, true)))
        .chain(profile.write.iter().map(|p| (p.clone(), AccessFs::from_all(abi), true)))
        .chain(profile.write_no_link.iter().map(|p| (p.clone(), AccessFs::from_all(abi), false)))
        .collect();
    for rule in super::carve::expand(grants, &profile.carve, abi) {
        let rule_of = |e: &dyn std::fmt::Display| ConfineError(format!("{}: {e}", rule.path.display()));
        ruleset = ruleset.add_rule(PathBeneath::new(rule.handle, rule.access)).map_err(|e| rule_of(&e))?;
    }
    for port in &profile.connect_ports {
        ruleset = ruleset.add_rule(NetPort::new(*port, AccessNet::ConnectTcp)).map_err(|e| fail(&e))?;
    }
    let (capabilities, filter) =
        (super::privileges::CapabilityDrop::probe(), super::syscalls::filter(&profile.sockets));
    Ok(Prepared { ruleset: Some(ruleset), capabilities, filter })
}

#[cfg(not(target_os = "linux"))]
pub fn prepare(_profile: &Profile) -> Result<Prepared, ConfineError> {
    Err(ConfineError("Landlock exists only on Linux".to_string()))
}

/// The work the child does just before it executes the program: leave the person's IPC
/// namespace where it may, drop every capability (and set `no_new_privs`), enforce the ruleset,
/// then filter system calls (`process::syscalls`).
#[cfg(target_os = "linux")]
pub fn before_exec(prepared: Prepared) -> BeforeExec {
    let Prepared { ruleset, capabilities, filter } = prepared;
    let mut ruleset = Some(ruleset);
    Box::new(move || -> std::io::Result<()> {
        // SAFETY: between fork and exec, while the capabilities are held; one system call.
        unsafe { super::syscalls::own_ipc_namespace() };
        // SAFETY: between fork and exec; `apply` only makes system calls.
        unsafe { capabilities.apply()? };
        let Some(ruleset) = ruleset.take() else { return Err(std::io::Error::from_raw_os_error(libc::EINVAL)) };
        if let Some(ruleset) = ruleset {
            match ruleset.restrict_self() {
                Ok(status) if status.ruleset != landlock::RulesetStatus::NotEnforced => {}
                Ok(_) => return Err(std::io::Error::from_raw_os_error(libc::EPERM)),
                Err(_) => return Err(std::io::Error::last_os_error()),
            }
        }
        // SAFETY: between fork and exec, after no_new_privs; one prctl on a filter built before.
        unsafe { super::syscalls::install(&filter) }
    })
}

#[cfg(not(target_os = "linux"))]
pub fn before_exec(_prepared: Prepared) -> BeforeExec {
    Box::new(|| Ok(()))
}

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

    #[test]
    fn require_refuses_a_kernel_that_lacks_a_part_and_doctor_names_it() {
        let five = Level::Landlock { abi: 5 };
        assert!(matches!(decide(ConfineMode::Require, &five), Plan::Refuse(why) if why.contains("ABI 6")));
        assert_eq!(decide(ConfineMode::Auto, &five), Plan::Landlock { abi: 5 });
        assert!(five.describe(ConfineMode::Auto).contains("except abstract unix sockets"));
        assert!(Level::Landlock { abi: 3 }.describe(ConfineMode::Require).contains("TCP"));
        assert_eq!(missing(7), Vec::<&str>::new());
    }

    #[test]
    fn doctor_says_the_level_and_what_follows() {
        assert_eq!(Level::Landlock { abi: 7 }.describe(ConfineMode::Auto), "landlock ABI 7: enforced");
        let none = Level::Unavailable("no Landlock".to_string());
        assert!(none.describe(ConfineMode::Require).contains("refused"));
        assert!(none.describe(ConfineMode::Auto).contains("unconfined"));
    }

    /// Windows: a write-restricted token where one can be made (a real Windows: the workflow's
    /// runner); under Wine (`.ci/wine-test`) nothing confines, doctor says so and `require`
    /// refuses every spawn.
    #[cfg(windows)]
    #[test]
    fn windows_confines_with_a_restricted_token_or_says_plainly_that_nothing_does() {
        if crate::kernel::platform::token_windows::under_wine() {
            assert_eq!(level(), &Level::Unavailable(UNDER_WINE.to_string()));
            assert!(matches!(decide(ConfineMode::Require, level()), Plan::Refuse(why) if why == UNDER_WINE));
            assert!(level()
                .describe(ConfineMode::Require)
                .ends_with("programs are refused ([spawn] confine = \"require\")"));
            assert!(level().describe(ConfineMode::Auto).ends_with("programs run unconfined"));
        } else {
            assert_eq!(level(), &Level::RestrictedToken);
        }
    }

    /// The Windows decision on every OS: Wine never claims a confinement; a token that cannot be
    /// made means none, so `require` refuses and `auto` says so; a token means every mode but
    /// `off` runs under it, and doctor and the journal name it and what stays open.
    #[test]
    fn windows_runs_under_a_restricted_token_where_one_can_be_made_and_says_so() {
        let wine = windows_level(true, || panic!("under Wine no token is asked for"));
        assert_eq!(wine, Level::Unavailable(UNDER_WINE.to_string()));
        assert_eq!(decide(ConfineMode::Require, &wine), Plan::Refuse(UNDER_WINE.to_string()));
        assert_eq!(decide(ConfineMode::Auto, &wine).journal(), format!("none: {UNDER_WINE}"));
        let denied = windows_level(false, || Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied)));
        assert!(
            matches!(&denied, Level::Unavailable(why) if why.starts_with("a write-restricted token cannot be made here"))
        );
        assert!(matches!(decide(ConfineMode::Require, &denied), Plan::Refuse(_)));
        assert!(matches!(decide(ConfineMode::Auto, &denied), Plan::Unconfined(_)));
        assert!(denied.describe(ConfineMode::Auto).ends_with("programs run unconfined"));
        let token = windows_level(false, || Ok(()));
        assert_eq!(token, Level::RestrictedToken);
        assert_eq!(decide(ConfineMode::Require, &token), Plan::RestrictedToken);
        assert_eq!(decide(ConfineMode::Auto, &token), Plan::RestrictedToken);
        assert!(matches!(decide(ConfineMode::Off, &token), Plan::Unconfined(_)));
        assert_eq!(Plan::RestrictedToken.journal(), "restricted-token");
        assert_eq!(token.describe(ConfineMode::Require), RESTRICTED_TOKEN_DOCTOR);
        assert!(RESTRICTED_TOKEN_DOCTOR.ends_with("reads and the network stay open"));
        assert!(token.describe(ConfineMode::Off).starts_with("off"));
    }

    /// macOS: where sandbox-exec is, it is what confines (the macOS runner proves it is there).
    #[cfg(target_os = "macos")]
    #[test]
    fn macos_confines_with_seatbelt() {
        assert_eq!(level(), &Level::Seatbelt);
    }

    /// macOS: Seatbelt confines whatever the mode asks (it lacks no part `require` would refuse
    /// for); off stays off; the journal and doctor name it.
    #[test]
    fn seatbelt_is_the_plan_where_sandbox_exec_is_and_doctor_and_the_journal_say_so() {
        assert_eq!(decide(ConfineMode::Require, &Level::Seatbelt), Plan::Seatbelt);
        assert_eq!(decide(ConfineMode::Auto, &Level::Seatbelt), Plan::Seatbelt);
        assert!(matches!(decide(ConfineMode::Off, &Level::Seatbelt), Plan::Unconfined(_)));
        assert_eq!(Plan::Seatbelt.journal(), "seatbelt");
        assert!(Level::Seatbelt.describe(ConfineMode::Auto).starts_with("seatbelt (/usr/bin/sandbox-exec): enforced"));
        assert!(Level::Seatbelt.describe(ConfineMode::Off).starts_with("off"));
    }
}
