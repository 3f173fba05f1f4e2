//! What each spawned program may touch on disk (the OS enforces it; see
//! `process::confine`). The policy decides *whether* a program runs; this table decides what it
//! can reach while it runs: hvigorw executes the project's `hvigorfile.ts` and ohpm runs package
//! scripts — code an agent can write.
//!
//! Every program may write: the workspace's top-level entries except `.rein/` (the journal,
//! pre-images, run reports) and `.git/`, its own caches under the user's home, the
//! temp directories, the harmless devices, and existing outside paths named in its (approved)
//! command line. It may read and execute: the runtime (`/usr`, `/lib*`, `/bin`, `/etc`, `/proc`,
//! `/sys`, `/dev` …), the workspace, the directory it is installed in and the SDK/JDK/Node
//! directories rein's environment names. Nothing else: not `~/.ssh`, not other projects, not
//! rein's home. Landlock only allows; so the workspace root itself is read-only and each of its
//! entries is granted one by one (a grant on the root would reach `.rein/` and `.git/hooks/`).

use std::path::{Path, PathBuf};

use super::programs::Program;
use super::received::{recv_into_transit, RECEIVED_DIR};
use crate::kernel::process::grants::{guarded, outside_grants, Carve, Most, Profile};
use crate::kernel::process::sockets::SocketKind;
use crate::kernel::scope::protected;

/// Read and execute everywhere below these.
const RUNTIME: [&str; 10] = ["/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/proc", "/sys"];
/// Secret files under `/etc`, which no program reads: password hashes, sudo rules, host and
/// service keys. `/etc` is granted whole otherwise; as root (CI, containers) a program with every
/// capability dropped still runs as uid 0, which owns these (findings/13). Carved to nothing.
const ETC_SECRETS: [&str; 16] = [
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/ssh",
    "/etc/ssl/private",
    "/etc/security/opasswd",
    "/etc/krb5.keytab",
    "/etc/ipsec.secrets",
    "/etc/ppp/chap-secrets",
    "/etc/ppp/pap-secrets",
    "/etc/wireguard",
    "/etc/NetworkManager/system-connections",
    "/etc/letsencrypt",
];
/// The devices a program may open (never a terminal: no `/dev/tty`, `/dev/pts`, `/dev/ptmx`,
/// no console, no input device), and never drive with `ioctl` (`IOCTL_DEV` is not granted).
const DEVICES: [&str; 5] = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];
/// hdc's server port when `OHOS_HDC_SERVER_PORT` does not name one (developtools_hdc
/// `DEFAULT_PORT`; ../shared/toolchain/hdc/README.md).
pub const HDC_DEFAULT_PORT: u16 = 8710;
/// What hvigorw and ohpm fetch packages over (their registries: http and https).
const REGISTRY_PORTS: [u16; 2] = [80, 443];
/// Files that make a folder a hvigor module or an ohpm package.
const MODULE_MARKERS: [&str; 2] = ["hvigorfile.ts", "oh-package.json5"];
/// Variables in the child's environment that name toolchain directories it reads.
const TOOL_DIRS_ENV: [&str; 4] = ["DEVECO_SDK_HOME", "OHOS_BASE_SDK_HOME", "JAVA_HOME", "NODE_HOME"];

// Linux's numbers (linux/socket.h, linux/net.h, linux/in.h), which the filter compares.
const AF_INET: u32 = 2;
const AF_INET6: u32 = 10;
const SOCK_STREAM: u32 = 1;
const SOCK_DGRAM: u32 = 2;
const IPPROTO_TCP: u32 = 6;
const IPPROTO_UDP: u32 = 17;

const fn kind(domain: u32, kind: u32, protocol: u32) -> SocketKind {
    SocketKind { domain, kind, protocol }
}

/// TCP over IPv4 and IPv6 (protocol 0 is TCP for a stream): every program; Landlock then says
/// which ports it may connect to. Never MPTCP (262), which Landlock does not judge.
const TCP: [SocketKind; 4] = [
    kind(AF_INET, SOCK_STREAM, 0),
    kind(AF_INET, SOCK_STREAM, IPPROTO_TCP),
    kind(AF_INET6, SOCK_STREAM, 0),
    kind(AF_INET6, SOCK_STREAM, IPPROTO_TCP),
];
/// UDP over IPv4 and IPv6, for name lookups: glibc's resolver asks the DNS servers over UDP,
/// and `getaddrinfo` connects a UDP socket to each answer to sort them (RFC 3484 rule 1).
/// Landlock cannot limit UDP to port 53 before its ABI 10 ("landlock: Add UDP send+connect
/// access control", 2026), so a program holding these can send datagrams anywhere.
/// Netlink (`NETLINK_ROUTE`, which `getaddrinfo` opens for `AI_ADDRCONFIG`) is not granted:
/// without it glibc assumes both IPv4 and IPv6 are configured and the lookup still answers
/// (sysdeps/unix/sysv/linux/check_pf.c; node's `dns.lookup` and java's `InetAddress` checked).
const UDP: [SocketKind; 4] = [
    kind(AF_INET, SOCK_DGRAM, 0),
    kind(AF_INET, SOCK_DGRAM, IPPROTO_UDP),
    kind(AF_INET6, SOCK_DGRAM, 0),
    kind(AF_INET6, SOCK_DGRAM, IPPROTO_UDP),
];

/// One program's own places, relative to the user's home (`$HOME`) or the workspace.
struct Table {
    /// Caches it writes under `$HOME` (created before it starts, so it need not write `$HOME`).
    home_write: &'static [&'static str],
    /// What it only reads under `$HOME`.
    home_read: &'static [&'static str],
    /// Top-level workspace directories it creates on a fresh project (made before it starts:
    /// the workspace root itself is read-only to programs).
    workspace_dirs: &'static [&'static str],
    /// It reads the whole file system (git, for a command a person's rule allows: another
    /// repository, `~/.gitconfig`, ssh keys).
    reads_everything: bool,
    /// Which TCP ports it may connect to.
    network: Network,
    /// It looks names up (its registries'): UDP sockets ([`UDP`]).
    looks_up_names: bool,
    /// It only reads the project: no workspace entry is writable (codelinter, whose `--fix`
    /// rein refuses).
    reads_workspace_only: bool,
}

/// The TCP ports a program may connect to (it may never bind one).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Network {
    /// None (hap-sign-tool signs offline; git from scripts only reads local sources).
    Nothing,
    /// The package registries: http and https, plus what a person lists.
    Registries,
    /// Its own server on this machine: `OHOS_HDC_SERVER_PORT` or the port `-s` names.
    HdcServer,
}

const GENERIC: Table = Table {
    home_write: &[],
    home_read: &[],
    workspace_dirs: &[],
    reads_everything: false,
    network: Network::Nothing,
    looks_up_names: false,
    reads_workspace_only: false,
};

/// The per-program table. hvigor keeps its caches in its user home (`HVIGOR_USER_HOME`, one
/// per workspace, set by the kernel) and runs ohpm (`~/.ohpm`: ohpm's user-level `.ohpmrc` and
/// cache, which no variable moves); hdc's host key lives in `~/.harmony`. DevEco's signing
/// material (`~/.ohos/config`) is hap-sign-tool's; hvigorw gets it only where a person says so
/// ([`SpawnPlaces::hvigor_reads_signing_material`]): the project's `hvigorfile.ts` runs inside
/// hvigorw and would read it too.
fn table(program: &Program) -> Table {
    match program {
        Program::Hvigorw => Table {
            home_write: &[".ohpm"],
            workspace_dirs: &[".hvigor", "build", "oh_modules"],
            network: Network::Registries,
            looks_up_names: true,
            ..GENERIC
        },
        Program::Ohpm => Table {
            home_write: &[".ohpm"],
            workspace_dirs: &["oh_modules"],
            network: Network::Registries,
            looks_up_names: true,
            ..GENERIC
        },
        Program::HapSignTool => Table { home_read: &[".ohos/config"], ..GENERIC },
        // hdc keeps the host key it authenticates with in ~/.harmony/hdckey (as two independent
        // hdc host implementations describe it; not verified against hdc's own source).
        Program::Hdc => Table { home_write: &[".harmony"], network: Network::HdcServer, ..GENERIC },
        Program::Git => Table { reads_everything: true, ..GENERIC },
        // codelinter only reads the project (rein refuses --fix and -o) and needs no network.
        Program::Codelinter => Table { reads_workspace_only: true, ..GENERIC },
        // hstack only reads the build's maps in the workspace (rein refuses -i and -o) and
        // needs no network.
        Program::Hstack => Table { reads_workspace_only: true, ..GENERIC },
        // Its instances (`~/.Huawei/Emulator/deployed` on macOS, `AppData\Local\Huawei\Emulator`
        // on Windows) and its images (`~/Library/Huawei/Sdk`, `AppData\Local\Huawei\Sdk`):
        // shared/HARMONY-VERIFY.md §6 "Paths".
        Program::Emulator => Table {
            home_write: &[".Huawei/Emulator", "AppData/Local/Huawei/Emulator"],
            home_read: &["Library/Huawei/Sdk", "AppData/Local/Huawei/Sdk"],
            ..GENERIC
        },
        Program::Other(_) => GENERIC,
    }
}

/// The kinds of socket `program` may open: TCP for every program, UDP only for those that look
/// names up (hvigorw, ohpm). hap-sign-tool signs offline, hdc talks TCP to its server, git
/// from scripts reads local sources: none sends a datagram.
pub fn sockets(program: &Program) -> Vec<SocketKind> {
    let table = table(program);
    TCP.iter().chain(table.looks_up_names.then_some(&UDP).into_iter().flatten()).copied().collect()
}

/// The programs that may send datagrams (`rein doctor` names them).
pub fn datagram_programs() -> Vec<Program> {
    [
        Program::Hvigorw,
        Program::Ohpm,
        Program::HapSignTool,
        Program::Hdc,
        Program::Git,
        Program::Codelinter,
        Program::Emulator,
        Program::Hstack,
    ]
    .into_iter()
    .filter(|program| table(program).looks_up_names)
    .collect()
}

/// What rein knows about one spawn when it builds the program's profile.
pub struct SpawnPlaces<'a> {
    pub workspace: &'a Path,
    /// rein's home (approvals, approved policy copies): never granted, even inside the workspace.
    pub rein_home: &'a Path,
    /// The executable and, for hap-sign-tool, the jar.
    pub program: &'a Path,
    pub jar: Option<&'a Path>,
    /// The child's environment (HOME, TMPDIR and the toolchain directories come from it).
    pub env: &'a [(String, String)],
    /// Absolute paths outside the workspace named by the command line.
    pub outside_args: Vec<PathBuf>,
    /// When a person approved this command, the outside paths they were shown a yes lets it
    /// write (as they resolved then); None when the built-in policy allowed it alone (its
    /// outside paths are then only readable).
    pub approved_writes: Option<&'a [PathBuf]>,
    /// The command line (hdc's `-s` names its server's port).
    pub args: &'a [String],
    /// More TCP ports a person lets this program connect to (home `[spawn.connect_ports]`).
    pub extra_ports: &'a [u16],
    /// Directories a person lets every program write (home `[spawn] writable`).
    pub writable: &'a [PathBuf],
    /// The hdc binary (and its real path): no other program may execute it.
    pub hdc: &'a [PathBuf],
    /// Protected entries below the workspace's top level (nested `.git`): never writable.
    pub protected: &'a [PathBuf],
    /// A person lets hvigorw read DevEco's signing material (home `[spawn]
    /// hvigor_reads_signing_material`), so that hvigor signs with build-profile.json5's ciphertext.
    pub hvigor_reads_signing_material: bool,
}

/// The profile of `program` for this spawn. `entries` lists the workspace's top-level names.
pub fn profile(program: &Program, places: &SpawnPlaces, entries: &[String]) -> Profile {
    let table = table(program);
    let env =
        |name: &str| places.env.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str()).filter(|v| !v.is_empty());
    let mut p = Profile::default();
    p.read.extend(RUNTIME.iter().map(PathBuf::from));
    if table.reads_everything {
        p.read.push(PathBuf::from("/"));
    }
    p.read.push(places.workspace.to_path_buf());
    let user_home = env("HOME").map(PathBuf::from).filter(|h| h.is_absolute());
    let guarded = guarded(places.workspace, places.rein_home, user_home.as_deref());
    let mut programs = vec![places.program.to_path_buf()];
    programs.extend(std::fs::canonicalize(places.program));
    for program in &programs {
        p.read.push(narrow(
            &[install_dir(program), program.parent().unwrap_or(program).to_path_buf()],
            program,
            &guarded,
        ));
    }
    if let Some(jar) = places.jar {
        p.read.push(narrow(&[jar.parent().unwrap_or(jar).to_path_buf()], jar, &guarded));
    }
    let tool_dirs = TOOL_DIRS_ENV.iter().filter_map(|name| env(name)).map(PathBuf::from);
    p.read.extend(tool_dirs.filter(|dir| !guarded.iter().any(|g| g.starts_with(dir))));
    p.read.extend(path_dirs(env("PATH").unwrap_or_default(), user_home.as_deref(), &guarded));
    p.dev_nodes.extend(DEVICES.iter().map(PathBuf::from));
    // rein's private temp directory for this spawn (the shared ones are never granted).
    p.write.extend(env("TMPDIR").map(PathBuf::from).filter(|t| !guarded.iter().any(|g| g.starts_with(t))));
    p.write.extend(places.writable.iter().filter(|w| !guarded.iter().any(|g| g.starts_with(w))).cloned());
    p.connect_ports = match table.network {
        Network::Nothing => Vec::new(),
        Network::Registries => REGISTRY_PORTS.to_vec(),
        Network::HdcServer => vec![hdc_server_port(places.args, places.env)],
    };
    p.connect_ports.extend(places.extra_ports);
    p.sockets = sockets(program);
    if *program != Program::Hdc {
        p.carve.extend(places.hdc.iter().map(|path| Carve { path: path.clone(), most: Most::ReadNoExecute }));
    }
    p.carve.extend(places.protected.iter().map(|path| Carve { path: path.clone(), most: Most::Read }));
    p.carve.extend(ETC_SECRETS.iter().map(|path| Carve { path: PathBuf::from(path), most: Most::Nothing }));
    // A folder holding a nested repository (a module that is a git submodule) is granted entry by
    // entry, so the program cannot create in it: make its build outputs first, as at the root.
    let module_dirs = places.protected.iter().filter_map(|p| p.parent()).filter(|dir| {
        MODULE_MARKERS.iter().any(|marker| dir.join(marker).exists()) && dir.starts_with(places.workspace)
    });
    for dir in module_dirs {
        p.create.extend(table.workspace_dirs.iter().map(|name| dir.join(name)).filter(|d| !d.exists()));
    }
    // hvigor's own home for this workspace (the kernel sets HVIGOR_USER_HOME; ~/.hvigor, which
    // DevEco Studio and other projects use, is not granted).
    if *program == Program::Hvigorw {
        if let Some(hvigor_home) = env("HVIGOR_USER_HOME").map(PathBuf::from).filter(|h| h.is_absolute()) {
            p.write.push(hvigor_home.clone());
            p.create.push(hvigor_home);
        }
    }
    if let Some(home) = &user_home {
        for cache in table.home_write {
            p.write.push(home.join(cache));
            p.create.push(home.join(cache));
        }
        p.read.extend(table.home_read.iter().map(|r| home.join(r)));
        if *program == Program::Hvigorw && places.hvigor_reads_signing_material {
            p.read.push(home.join(".ohos/config"));
        }
    }
    let entries = if table.reads_workspace_only { &[] } else { entries };
    let mut names: Vec<&str> = entries.iter().map(String::as_str).collect();
    names.extend(table.workspace_dirs.iter().filter(|d| !entries.iter().any(|e| e == *d)));
    for name in names {
        let path = places.workspace.join(name);
        if protected::class_of(&[name]).is_some() || places.rein_home.starts_with(&path) {
            continue;
        }
        if table.workspace_dirs.contains(&name) {
            p.create.push(path.clone());
        }
        p.write_no_link.push(path);
    }
    // The one program that may write the transit folder: the hdc of a recv the kernel admitted
    // for a name it reserved (harmony::received; the policy refuses every other).
    if *program == Program::Hdc && recv_into_transit(places.args).is_some() {
        p.write_no_link.push(places.workspace.join(RECEIVED_DIR));
    }
    let outside = outside_grants(&places.outside_args, places.rein_home, &guarded);
    match places.approved_writes {
        // Only what the person was shown, as it resolved then: a link repointed while they read
        // grants nothing, and no link is followed when the grant is opened.
        Some(shown) => p.write_no_link.extend(outside.into_iter().filter(|path| shown.contains(path))),
        None => p.read.extend(outside),
    }
    p
}

/// The directories of the child's `PATH` outside the user's home (a person's environment: the
/// programs it names must run): `<root>` of a `<root>/bin` (node and java keep their libraries
/// there), never one that holds a guarded place (`PATH=/:…`). Inside the home nothing is
/// granted: half of a tool there (a pyenv shim without the rest of `~/.pyenv`) runs and fails,
/// while a refused one lets the search go on to the next directory.
fn path_dirs(path: &str, user_home: Option<&Path>, guarded: &[&Path]) -> Vec<PathBuf> {
    let holds_guarded = |dir: &Path| guarded.iter().any(|g| g.starts_with(dir));
    let in_home = |dir: &Path| user_home.is_some_and(|h| dir.starts_with(h));
    let mut dirs = Vec::new();
    for dir in path.split(':').map(Path::new).filter(|d| d.is_absolute() && !holds_guarded(d) && !in_home(d)) {
        let root = dir.parent().filter(|root| dir.ends_with("bin") && !holds_guarded(root));
        dirs.push(root.unwrap_or(dir).to_path_buf());
    }
    dirs
}

/// The first of `dirs` that holds none of the `guarded` places (the workspace, rein's home, the
/// user's home: a program in `~/bin` must not open all of `~`), else `file` alone.
fn narrow(dirs: &[PathBuf], file: &Path, guarded: &[&Path]) -> PathBuf {
    let holds_guarded = |dir: &PathBuf| guarded.iter().any(|g| g.starts_with(dir));
    dirs.iter().find(|dir| !holds_guarded(dir)).cloned().unwrap_or_else(|| file.to_path_buf())
}

/// The directory a program is installed in: `<root>/bin/x` gives `<root>`, otherwise the
/// program's own directory (hdc sits in `toolchains/`, next to its libraries).
fn install_dir(program: &Path) -> PathBuf {
    let dir = program.parent().unwrap_or(Path::new("/"));
    match dir.file_name() {
        Some(name) if name == "bin" => dir.parent().unwrap_or(dir).to_path_buf(),
        _ => dir.to_path_buf(),
    }
}

/// The port of the hdc server a command line talks to: `-s [host:]port` (before the command
/// word), else `OHOS_HDC_SERVER_PORT` from the program's environment, else 8710
/// (developtools_hdc src/host/main.cpp `ParseServerListenString`).
pub fn hdc_server_port(args: &[String], env: &[(String, String)]) -> u16 {
    let from_args = super::grammar::hdc::server_option(args).and_then(|value| {
        let port = value.rsplit_once(':').map_or(value.as_str(), |(_, port)| port);
        port.parse().ok()
    });
    let from_env = env.iter().find(|(name, _)| name == "OHOS_HDC_SERVER_PORT").and_then(|(_, v)| v.parse().ok());
    from_args.or(from_env).unwrap_or(HDC_DEFAULT_PORT)
}

// Not on Windows: these profiles are Landlock's (Linux), and the tables name Unix paths,
// which Windows does not read as absolute.
#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn places<'a>(env: &'a [(String, String)], program: &'a Path) -> SpawnPlaces<'a> {
        SpawnPlaces {
            workspace: Path::new("/w/app"),
            rein_home: Path::new("/w/app/.reinhome"),
            program,
            jar: None,
            env,
            outside_args: Vec::new(),
            approved_writes: None,
            args: &[],
            extra_ports: &[],
            writable: &[],
            hdc: &[],
            protected: &[],
            hvigor_reads_signing_material: false,
        }
    }

    #[test]
    fn hvigorw_writes_the_workspace_but_not_rein_state_git_or_home() {
        let env = vec![("HOME".to_string(), "/u".to_string()), ("TMPDIR".to_string(), "/t".to_string())];
        let entries: Vec<String> =
            [".rein", ".git", ".reinhome", "entry", "hvigorfile.ts"].iter().map(|s| s.to_string()).collect();
        let p = profile(&Program::Hvigorw, &places(&env, Path::new("/clt/bin/hvigorw")), &entries);
        let writable = |path: &str| p.write.iter().chain(&p.write_no_link).any(|w| w == Path::new(path));
        for allowed in ["/w/app/entry", "/w/app/hvigorfile.ts", "/w/app/build", "/u/.ohpm", "/t"] {
            assert!(writable(allowed), "{allowed} writable: {p:?}");
        }
        for denied in
            ["/w/app", "/w/app/.rein", "/w/app/.git", "/w/app/.reinhome", "/u", "/u/.ssh", "/", "/tmp", "/var/tmp"]
        {
            assert!(!writable(denied), "{denied} not writable: {p:?}");
        }
        assert!(p.write_no_link.iter().all(|w| w.starts_with("/w/app")), "{p:?}");
        assert!(p.read.contains(&PathBuf::from("/clt")) && p.read.contains(&PathBuf::from("/w/app")));
        assert!(!p.read.iter().any(|r| r == Path::new("/u") || r == Path::new("/")), "{p:?}");
        assert!(p.create.contains(&PathBuf::from("/u/.ohpm")) && p.create.contains(&PathBuf::from("/w/app/build")));
    }

    #[test]
    fn codelinter_reads_the_project_and_writes_nothing_of_it_and_reaches_no_network() {
        let env = vec![("HOME".to_string(), "/u".to_string()), ("TMPDIR".to_string(), "/t".to_string())];
        let entries: Vec<String> = ["entry", "AppScope", "build-profile.json5"].iter().map(|s| s.to_string()).collect();
        let p = profile(&Program::Codelinter, &places(&env, Path::new("/clt/bin/codelinter")), &entries);
        let writes: Vec<&PathBuf> = p.write.iter().chain(&p.write_no_link).chain(&p.create).collect();
        assert_eq!(writes, [&PathBuf::from("/t")], "only its private TMPDIR: {p:?}");
        assert!(p.read.contains(&PathBuf::from("/w/app")) && p.read.contains(&PathBuf::from("/clt")), "{p:?}");
        assert!(p.connect_ports.is_empty(), "{p:?}");
        assert!(!p.sockets.iter().any(|s| s.kind == SOCK_DGRAM), "{p:?}");
    }

    /// findings/07: hvigorfile.ts runs inside hvigorw, so hvigorw reads DevEco's signing material
    /// only where a person said so; hap-sign-tool (no project code) always. Every program loses
    /// the secret files under `/etc`.
    #[test]
    fn signing_material_is_hvigors_only_by_a_persons_choice_and_etc_secrets_are_nobodys() {
        let env = vec![("HOME".to_string(), "/u".to_string())];
        let material = PathBuf::from("/u/.ohos/config");
        let hvigorw = Path::new("/clt/bin/hvigorw");
        assert!(!profile(&Program::Hvigorw, &places(&env, hvigorw), &[]).read.contains(&material));
        let chosen = SpawnPlaces { hvigor_reads_signing_material: true, ..places(&env, hvigorw) };
        assert!(profile(&Program::Hvigorw, &chosen, &[]).read.contains(&material));
        let signer = profile(&Program::HapSignTool, &places(&env, Path::new("/usr/bin/java")), &[]);
        assert!(signer.read.contains(&material));
        for program in [Program::Hvigorw, Program::Git, Program::HapSignTool] {
            let p = profile(&program, &places(&env, hvigorw), &[]);
            let shadow = p.carve.iter().find(|c| c.path == Path::new("/etc/shadow"));
            assert_eq!(shadow.map(|c| c.most), Some(Most::Nothing), "{program:?}");
        }
    }

    /// On a disk that ignores case (casefolded ext4, like macOS and Windows) `.GIT` is git's
    /// folder: the profile reads the protected names as the scope does, in any case.
    #[test]
    fn protected_folders_in_another_case_are_not_writable() {
        let env = vec![("HOME".to_string(), "/u".to_string())];
        let entries: Vec<String> = [".GIT", ".Rein", "entry"].iter().map(|s| s.to_string()).collect();
        let p = profile(&Program::Hvigorw, &places(&env, Path::new("/clt/bin/hvigorw")), &entries);
        let writable = |path: &str| p.write.iter().chain(&p.write_no_link).any(|w| w == Path::new(path));
        assert!(writable("/w/app/entry"), "{p:?}");
        assert!(!writable("/w/app/.GIT") && !writable("/w/app/.Rein"), "{p:?}");
    }

    #[test]
    fn approved_outside_arguments_are_granted_and_rein_home_never() {
        let args: Vec<String> =
            ["-inFile", "/w/app/x.hap", "-outFile", "/out/x.hap", "p=/w/app/.reinhome/a"].map(String::from).to_vec();
        let outside = crate::kernel::process::grants::outside_paths(&args, Path::new("/w/app"));
        assert_eq!(outside, [PathBuf::from("/out/x.hap")]);
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        let (out, rein_home) = (root.join("out.hap"), root.join("home"));
        std::fs::write(&out, "").unwrap();
        std::fs::create_dir(&rein_home).unwrap();
        let env = Vec::new();
        let mut pl = places(&env, Path::new("/jdk/bin/java"));
        pl.rein_home = &rein_home;
        pl.outside_args = vec![out.clone(), rein_home.clone(), root.join("missing")];
        let by_policy = profile(&Program::HapSignTool, &pl, &[]);
        assert!(by_policy.read.contains(&out));
        assert!(!by_policy.write.contains(&out));
        let shown = [out.clone()];
        pl.approved_writes = Some(&shown);
        let p = profile(&Program::HapSignTool, &pl, &[]);
        assert!(p.write_no_link.contains(&out));
        pl.approved_writes = Some(&[]);
        let p = profile(&Program::HapSignTool, &pl, &[]);
        assert!(!p.write.contains(&out) && !p.write_no_link.contains(&out), "only what was shown: {p:?}");
        assert!(!p.read.contains(&rein_home) && !p.write.contains(&rein_home));
        assert!(!p.write.contains(&root.join("missing")), "nothing to grant: {p:?}");
        assert!(p.read.contains(&PathBuf::from("/jdk")));
    }

    #[test]
    #[cfg(unix)]
    fn an_outside_argument_is_granted_as_it_resolves() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        let (user_home, elsewhere) = (root.join("u"), root.join("elsewhere"));
        std::fs::create_dir_all(user_home.join(".ssh")).unwrap();
        std::fs::create_dir(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&user_home, root.join("to-home")).unwrap();
        std::os::unix::fs::symlink(user_home.join(".ssh"), root.join("to-ssh")).unwrap();
        std::os::unix::fs::symlink(&elsewhere, root.join("to-elsewhere")).unwrap();
        let args = [root.join("to-home"), root.join("to-ssh"), root.join("to-elsewhere")];
        let grants = outside_grants(&args, Path::new("/nowhere"), &[user_home.as_path()]);
        assert_eq!(grants, [user_home.join(".ssh"), elsewhere], "a link to the home itself is never granted");
    }

    #[test]
    fn a_program_in_the_users_home_opens_only_its_own_directory() {
        let env = vec![("HOME".to_string(), "/u".to_string()), ("JAVA_HOME".to_string(), "/u".to_string())];
        let p = profile(&Program::Hdc, &places(&env, Path::new("/u/bin/hdc")), &[]);
        assert!(p.read.contains(&PathBuf::from("/u/bin")), "{p:?}");
        assert!(!p.read.contains(&PathBuf::from("/u")), "{p:?}");
        let p = profile(&Program::Hdc, &places(&env, Path::new("/u/hdc")), &[]);
        assert!(p.read.contains(&PathBuf::from("/u/hdc")) && !p.read.contains(&PathBuf::from("/u")), "{p:?}");
    }

    #[test]
    fn path_directories_outside_home_are_readable() {
        let env = vec![
            ("HOME".to_string(), "/u".to_string()),
            ("PATH".to_string(), "/u/.cargo/bin:/opt/node/bin:/usr/bin:/u:/:relative".to_string()),
        ];
        let p = profile(&Program::Hdc, &places(&env, Path::new("/sdk/toolchains/hdc")), &[]);
        for readable in ["/opt/node", "/usr"] {
            assert!(p.read.contains(&PathBuf::from(readable)), "{readable}: {p:?}");
        }
        for hidden in ["/u/.cargo/bin", "/u/.cargo", "/u", "/", "relative"] {
            assert!(!p.read.contains(&PathBuf::from(hidden)), "{hidden}: {p:?}");
        }
    }

    #[test]
    fn an_approved_outside_path_holding_the_workspace_is_not_writable() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        let (workspace, out) = (root.join("w/app"), root.join("out"));
        std::fs::create_dir_all(&workspace).unwrap();
        std::fs::create_dir(&out).unwrap();
        let env = Vec::new();
        let mut pl = places(&env, Path::new("/usr/bin/hdc"));
        pl.workspace = &workspace;
        pl.outside_args = vec![root.join("w"), out.clone()];
        let shown = [out.clone(), root.join("w")];
        pl.approved_writes = Some(&shown);
        let p = profile(&Program::Hdc, &pl, &[]);
        assert!(p.write_no_link.contains(&out), "{p:?}");
        assert!(!p.write_no_link.contains(&root.join("w")), "{p:?}");
    }

    /// macOS: each program's row of the table as the Seatbelt profile sandbox-exec enforces
    /// (`kernel::process::seatbelt`): its network (none, its server's port, 80 and 443 with name
    /// lookups), its writes, the protected names, the hdc binary and the temp folder.
    #[test]
    fn each_programs_row_is_its_seatbelt_profile() {
        use crate::kernel::process::seatbelt::{self, Seatbelt};
        let env = vec![("HOME".to_string(), "/u".to_string()), ("TMPDIR".to_string(), "/t".to_string())];
        let entries: Vec<String> = [".git", ".rein", "entry"].iter().map(|s| s.to_string()).collect();
        let hdc = [PathBuf::from("/sdk/toolchains/hdc")];
        let seatbelt_of = |program: Program, path: &str, args: &[String]| -> Seatbelt {
            let mut pl = places(&env, Path::new(path));
            pl.hdc = &hdc;
            pl.args = args;
            seatbelt::profile(&profile(&program, &pl, &entries), &seatbelt::protected_names())
        };
        let values = |sb: &Seatbelt, kind: &str| -> Vec<String> {
            let of_kind = |k: &String| k.rsplit_once('_').is_some_and(|(k, _)| k == kind);
            sb.params.iter().filter(|(k, _)| of_kind(k)).map(|(_, v)| v.clone()).collect()
        };
        let network = |sb: &Seatbelt| -> Vec<String> {
            let remotes = sb.text.match_indices("(remote tcp \"").map(|(at, _)| &sb.text[at..]);
            remotes.filter_map(|rest| rest.find("\")").map(|end| rest[..end + 2].to_string())).collect()
        };
        let lookups = |sb: &Seatbelt| sb.text.contains("(allow network-outbound (literal (param \"DNS_0\")))");
        // program, its path, its TCP rules, whether it looks names up, what it writes
        type Row<'a> = (Program, &'a str, &'a [&'a str], bool, &'a [&'a str]);
        let rows: [Row; 5] = [
            (
                Program::Hvigorw,
                "/clt/bin/hvigorw",
                &["(remote tcp \"*:80\")", "(remote tcp \"*:443\")"],
                true,
                &["/t", "/u/.ohpm", "/w/app/entry", "/w/app/.hvigor", "/w/app/build", "/w/app/oh_modules"],
            ),
            (
                Program::Ohpm,
                "/clt/bin/ohpm",
                &["(remote tcp \"*:80\")", "(remote tcp \"*:443\")"],
                true,
                &["/t", "/u/.ohpm", "/w/app/entry", "/w/app/oh_modules"],
            ),
            (Program::HapSignTool, "/jdk/bin/java", &[], false, &["/t", "/w/app/entry"]),
            (
                Program::Hdc,
                "/sdk/toolchains/hdc",
                &["(remote tcp \"*:8710\")"],
                false,
                &["/t", "/u/.harmony", "/w/app/entry"],
            ),
            (Program::Git, "/usr/bin/git", &[], false, &["/t", "/w/app/entry"]),
        ];
        for (program, path, ports, looks_up, writes) in rows {
            let sb = seatbelt_of(program.clone(), path, &[]);
            assert!(sb.text.starts_with("(version 1)\n(deny default)\n"), "{program:?}");
            assert_eq!(network(&sb), ports.iter().map(|p| p.to_string()).collect::<Vec<_>>(), "{program:?}");
            assert_eq!(lookups(&sb), looks_up, "{program:?}: {}", sb.text);
            assert!(!sb.text.contains("network-bind") && !sb.text.contains("network-inbound"), "{program:?}");
            let mut written = values(&sb, "WRITE");
            written.sort();
            let mut expected: Vec<String> = writes.iter().map(|w| w.to_string()).collect();
            expected.sort();
            assert_eq!(written, expected, "{program:?} writes");
            assert!(sb.text.contains("(require-not (regex #\"/[.][Gg][Ii][Tt](/|$)\"))"), "{program:?}");
            assert!(values(&sb, "UNREADABLE").contains(&"/etc/shadow".to_string()), "{program:?}");
            let reads = values(&sb, "READ");
            assert!(reads.contains(&"/w/app".to_string()) && !reads.contains(&"/u".to_string()), "{program:?}");
            assert_eq!(reads.contains(&"/".to_string()), program == Program::Git, "{program:?}: only git reads all");
            let runs_hdc = !values(&sb, "NO_EXEC").contains(&"/sdk/toolchains/hdc".to_string());
            assert_eq!(runs_hdc, program == Program::Hdc, "{program:?}: only hdc may execute hdc");
            for (_, value) in &sb.params {
                assert!(value == "/" || !sb.text.contains(value.as_str()), "{program:?}: {value} in the text");
            }
        }
        let args: Vec<String> = ["-s", "127.0.0.1:9000", "list", "targets"].map(String::from).to_vec();
        let sb = seatbelt_of(Program::Hdc, "/sdk/toolchains/hdc", &args);
        assert_eq!(network(&sb), ["(remote tcp \"*:9000\")"], "hdc's server named by -s");
    }

    #[test]
    fn git_reads_everything_and_writes_nothing_under_rein() {
        let env = Vec::new();
        let entries = vec![".rein".to_string()];
        let p = profile(&Program::Git, &places(&env, Path::new("/usr/bin/git")), &entries);
        assert!(p.read.contains(&PathBuf::from("/")));
        assert!(!p.write.iter().chain(&p.write_no_link).any(|w| w.starts_with("/w/app/.rein")), "{p:?}");
    }
}
