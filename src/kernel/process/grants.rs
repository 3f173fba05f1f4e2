//! What a spawned program may reach while it runs — read, write, connect — as the OS enforces
//! it (`confine`): the kernel's vocabulary for it and the rules every toolchain's grants obey
//! (the workspace, rein's home and the user's home are never granted whole; an outside path a
//! command line names is granted as it resolves, and written only where a person was shown it).
//! Which program gets what is its toolchain profile's (`toolchain::ToolchainProfile::grants`).

use super::sockets::SocketKind;
use std::path::{Path, PathBuf};

/// What rein knows about one spawn when a profile says what the program may reach.
pub struct SpawnFacts<'a> {
    pub workspace: &'a Path,
    /// rein's home (approvals, approved policy copies): never granted, even inside the workspace.
    pub rein_home: &'a Path,
    /// The workspace's top-level entries that may be granted (no link, nothing protected).
    pub entries: &'a [String],
    /// The child's environment (HOME, TMPDIR and the toolchain directories come from it).
    pub env: &'a [(String, String)],
    /// The command line.
    pub args: &'a [String],
    /// Absolute paths outside the workspace named by the command line.
    pub outside_args: Vec<PathBuf>,
    /// When a person approved this command, the outside paths they were shown a yes lets it
    /// write (as they resolved then); None when the built-in policy allowed it alone (its
    /// outside paths are then only readable).
    pub approved_writes: Option<&'a [PathBuf]>,
    /// More TCP ports a person lets this program connect to (home `[spawn.connect_ports]`).
    pub extra_ports: &'a [u16],
    /// Directories a person lets every program write (home `[spawn] writable`).
    pub writable: &'a [PathBuf],
    /// Protected entries below the workspace's top level (nested `.git`): never writable.
    pub protected: &'a [PathBuf],
}

/// The paths a program may read (and execute) and write; missing ones are skipped when applied.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    pub read: Vec<PathBuf>,
    /// Device files it may read and write, without device `ioctl`s.
    pub dev_nodes: Vec<PathBuf>,
    pub write: Vec<PathBuf>,
    /// Directories rein creates before the program starts (caches, fresh-project outputs).
    pub create: Vec<PathBuf>,
    /// Writable workspace entries: granted only if, when rein opens them, they are not links
    /// (one swapped in after rein listed the workspace would grant its target).
    pub write_no_link: Vec<PathBuf>,
    /// TCP ports it may connect to (on any host); it may bind none.
    pub connect_ports: Vec<u16>,
    /// Paths a grant above them must leave out, and what they get instead.
    pub carve: Vec<Carve>,
    /// The kinds of socket it may open (every other is refused).
    pub sockets: Vec<SocketKind>,
}

/// A path inside a granted directory that must get less than the directory: rein grants each
/// sibling on the way down instead of the directory (Landlock only ever adds).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Carve {
    pub path: PathBuf,
    pub most: Most,
}

/// The most a carved path may get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Most {
    /// No right at all (secret files under `/etc`).
    Nothing,
    /// Read, but never execute (the hdc binary, for every other program).
    ReadNoExecute,
    /// Read and execute, never write.
    Read,
}

/// The places no grant may hold: the workspace (granted entry by entry), rein's home and the
/// user's home.
pub fn guarded<'a>(workspace: &'a Path, rein_home: &'a Path, user_home: Option<&'a Path>) -> Vec<&'a Path> {
    [Some(workspace), Some(rein_home), user_home].into_iter().flatten().collect()
}

/// What the outside paths of a command line grant (to write, once a person approved it; else
/// to read): each as it resolves, since a grant follows links — never one that does not exist
/// (there is nothing to grant), lies in rein's home, or is or holds one of the `guarded` places
/// (the workspace, rein's home, the user's home).
pub fn outside_grants(outside_args: &[PathBuf], rein_home: &Path, guarded: &[&Path]) -> Vec<PathBuf> {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let guarded: Vec<PathBuf> = guarded.iter().map(|g| real(g)).collect();
    let rein_home = real(rein_home);
    let mut grants: Vec<PathBuf> = Vec::new();
    for path in outside_args.iter().filter_map(|a| std::fs::canonicalize(a).ok()) {
        let refused = path.starts_with(&rein_home) || guarded.iter().any(|g| g.starts_with(&path));
        if !refused && !grants.contains(&path) {
            grants.push(path);
        }
    }
    grants
}

impl Profile {
    /// The profile of a program rein runs only to read what it prints (`rein doctor`): the
    /// same reads; no folder made for it; writes only where nothing of the workspace, rein's
    /// home or the user's home is (the devices, a temp folder that holds none of them).
    pub fn looking(mut self, workspace: &Path, rein_home: &Path, env: &[(String, String)]) -> Profile {
        let user_home =
            env.iter().find(|(n, _)| n == "HOME").map(|(_, h)| PathBuf::from(h)).filter(|h| h.is_absolute());
        let guarded = guarded(workspace, rein_home, user_home.as_deref());
        self.create.clear();
        self.write_no_link.clear();
        self.write.retain(|w| !guarded.iter().any(|g| g.starts_with(w) || w.starts_with(g)));
        self
    }
}

/// The absolute paths outside `workspace` an argument names (`/x`, or `key=/x`).
pub fn outside_paths(args: &[String], workspace: &Path) -> Vec<PathBuf> {
    args.iter()
        .map(|a| a.split_once('=').map_or(a.as_str(), |(_, v)| v))
        .map(Path::new)
        .filter(|p| p.is_absolute() && !p.starts_with(workspace))
        .map(Path::to_path_buf)
        .collect()
}
