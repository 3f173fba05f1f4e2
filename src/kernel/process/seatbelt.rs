//! macOS confinement: a program's grants (`grants::Profile`, the same ones Landlock enforces on
//! Linux) as a Seatbelt profile, run by `/usr/bin/sandbox-exec -p <profile> -D K=V … -- program
//! args`. A pure function of the grants, so its table tests run on every OS.
//!
//! The profile starts from `(deny default)` and allows only what the grants say. No path is ever
//! written into its text: every path — the grants', and the few system places every macOS program
//! needs — is a `-D` parameter the profile names as `(param "READ_3")`, so a path holding quotes,
//! parentheses or newlines is a string, never profile syntax. The text holds only rein's own
//! constants: parameter names, port numbers and the regular expression of the protected names.
//!
//! Read against Apple's profile language as the working profiles use it: OpenAI Codex
//! (`codex-rs/sandboxing/src/seatbelt.rs`, whose base policy `seatbelt_base_policy.sbpl` is taken
//! from Chrome's; it also hands every root over as `-DWRITABLE_ROOT_0=…` and excludes protected
//! paths with `(require-not …)`) and Anthropic's sandbox-runtime
//! (`src/sandbox/macos-sandbox-utils.ts`, which escapes paths into the text instead, and blocks
//! renaming the folders above a denied path, which rein does too: `keep_folders`).
//!
//! Differences from Landlock, each deliberate: Seatbelt matches the path a file resolves to, so
//! a link swapped into a writable entry reaches nothing (the parameter names the entry, not its
//! target); a protected name (`.git`, at any depth) is refused by name, so a program cannot make
//! one (Linux removes a planted one afterwards); metadata (`stat`) is readable everywhere, as on
//! Linux, where Landlock does not judge it.

use std::path::{Path, PathBuf};

use super::grants::{Most, Profile};
use super::sockets::SocketKind;

/// `sandbox-exec`, by its absolute path only (as Codex does): one found on `PATH` could be anyone's.
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// The places every macOS program reads to start at all (dyld's shared cache and the system
/// libraries, frameworks, time zones, preferences), after Codex's
/// `restricted_read_only_platform_defaults.sbpl`. Linux's equivalents (`/usr`, `/etc` …) come
/// from the toolchain's own table.
const SYSTEM_READS: [&str; 9] = [
    "/System",
    "/usr/lib",
    "/usr/share",
    "/Library/Apple",
    "/Library/Preferences",
    "/private/var/db/dyld",
    "/private/var/db/timezone",
    "/private/etc",
    "/dev/fd",
];
/// The folder itself only: `getcwd` and path lookups read the root.
const SYSTEM_LITERAL_READS: [&str; 1] = ["/"];
/// Where name lookups go on macOS: mDNSResponder's socket (Chrome's `network.sb`), for the
/// programs that may look names up (those that may open UDP sockets on Linux).
const DNS_SOCKET: &str = "/private/var/run/mDNSResponder";
/// The system services a program may look up: user and group names (every program; Codex's base
/// policy), and the resolver's configuration (programs that look names up; Codex's network policy).
const SERVICES: [&str; 1] = ["com.apple.system.opendirectoryd.libinfo"];
const DNS_SERVICES: [&str; 2] =
    ["com.apple.SystemConfiguration.DNSConfiguration", "com.apple.SystemConfiguration.configd"];
/// Linux's `SOCK_DGRAM`, in which `grants::Profile::sockets` is written.
const SOCK_DGRAM: u32 = 2;

/// A generated profile and the parameters it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seatbelt {
    /// The profile's text: constants and parameter names only.
    pub text: String,
    /// Each parameter and the path it stands for, in the order the text names them.
    pub params: Vec<(String, String)>,
}

impl Seatbelt {
    /// `sandbox-exec`'s arguments: the profile, each parameter (`-DKEY=value`, one argument, as
    /// Codex passes them), then `--` and the program with its own arguments.
    pub fn args(&self, program: &Path, args: Vec<String>) -> Vec<String> {
        let mut argv = vec!["-p".to_string(), self.text.clone()];
        argv.extend(self.params.iter().map(|(key, value)| format!("-D{key}={value}")));
        argv.push("--".to_string());
        argv.push(program.to_string_lossy().into_owned());
        argv.extend(args);
        argv
    }
}

/// The parameters as the profile is built: each path gets a name of its kind and number.
#[derive(Default)]
struct Params(Vec<(String, String)>);

impl Params {
    /// `(param "KIND_n")` for `path`; None for a path that is not absolute or not UTF-8 (APFS
    /// names are UTF-8 by design, so no file there has such a path; a grant to one reaches nothing).
    fn name(&mut self, kind: &str, path: &Path) -> Option<String> {
        let text = path.to_str().filter(|_| path.has_root())?;
        let of_kind = |key: &String| key.rsplit_once('_').is_some_and(|(k, _)| k == kind);
        if let Some((key, _)) = self.0.iter().find(|(key, value)| of_kind(key) && value == text) {
            return Some(format!("(param \"{key}\")"));
        }
        let n = self.0.iter().filter(|(key, _)| of_kind(key)).count();
        let key = format!("{kind}_{n}");
        self.0.push((key.clone(), text.to_string()));
        Some(format!("(param \"{key}\")"))
    }

    fn all(&mut self, kind: &str, filter: &str, paths: &[impl AsRef<Path>]) -> Vec<String> {
        let mut rules: Vec<String> = Vec::new();
        for rule in paths.iter().filter_map(|p| self.name(kind, p.as_ref())).map(|param| format!("({filter} {param})"))
        {
            if !rules.contains(&rule) {
                rules.push(rule);
            }
        }
        rules
    }
}

/// The profile of a program with `grants`. `protected_names`: the folder names a program may
/// never write or make, at any depth (`.git`); each is ASCII letters, digits, `.`, `-`, `_`.
pub fn profile(grants: &Profile, protected_names: &[&str]) -> Seatbelt {
    let mut params = Params::default();
    let mut text = String::from("(version 1)\n(deny default)\n");
    text.push_str("; generated by rein from the program's grants (kernel::process::seatbelt)\n");
    // The program's own processes only: it starts what it needs, and signals and inspects
    // nothing outside its sandbox (Landlock's signal scope on Linux).
    text.push_str("(allow process-fork)\n(allow signal (target same-sandbox))\n");
    text.push_str("(allow process-info* (target same-sandbox))\n");
    // What Linux programs read in /proc and /sys; and CFPreferences, which the JDK reads.
    text.push_str("(allow sysctl-read)\n(allow user-preference-read)\n(allow file-read-metadata)\n");
    text.push_str(&services(&SERVICES));

    let unreadable: Vec<&PathBuf> = carved(grants, Most::Nothing);
    let no_exec: Vec<&PathBuf> = carved(grants, Most::ReadNoExecute);
    let read_only: Vec<&PathBuf> = carved(grants, Most::Read);

    let mut readable = params.all("READ", "subpath", &grants.read);
    readable.extend(params.all("SYSTEM", "subpath", &SYSTEM_READS));
    readable.extend(params.all("SYSTEM_ROOT", "literal", &SYSTEM_LITERAL_READS));
    let writable = {
        let mut w = params.all("WRITE", "subpath", &grants.write);
        let more = params.all("WRITE", "subpath", &grants.write_no_link);
        w.extend(more.into_iter().filter(|rule| !w.contains(rule)).collect::<Vec<_>>());
        w
    };
    let hidden: Vec<String> = params.all("UNREADABLE", "subpath", &unreadable);
    let not_run: Vec<String> = params.all("NO_EXEC", "literal", &no_exec);

    // Reads: whatever is readable or writable, except what no program may read.
    let mut reach = readable.clone();
    reach.extend(writable.iter().cloned());
    text.push_str(&rule("file-read*", &reach, &hidden));
    // Running and mapping code: what is readable, never a file carved out of execution (the hdc
    // binary for every other program).
    let mut refused = hidden.clone();
    refused.extend(not_run.iter().cloned());
    text.push_str(&rule("process-exec file-map-executable", &reach, &refused));
    // Devices: opened, read and written, never driven (`file-ioctl` is not granted: no TIOCSTI).
    let nodes = params.all("DEV_NODE", "literal", &grants.dev_nodes);
    text.push_str(&rule("file-read* file-write-data", &nodes, &[]));
    // Writes: the writable grants, never a protected name at any depth, never a carved path,
    // and never the folders above one (renaming one would move the carved path out from under
    // its rule, as sandbox-runtime's move-blocking rules say).
    let mut kept: Vec<String> = Vec::new();
    for path in unreadable.iter().chain(&no_exec).chain(&read_only) {
        if let Some(param) = params.name("KEEP", path) {
            // Both, as Codex excludes them: the path itself (its first creation) and below it.
            kept.push(format!("(literal {param})"));
            kept.push(format!("(subpath {param})"));
        }
    }
    for folder in
        keep_folders(&unreadable.iter().chain(&no_exec).chain(&read_only).copied().collect::<Vec<_>>(), grants)
    {
        kept.extend(params.name("KEEP_FOLDER", &folder).map(|param| format!("(literal {param})")));
    }
    kept.extend(protected_names.iter().filter_map(|name| name_regex(name)).map(|re| format!("(regex #\"{re}\")")));
    text.push_str(&rule("file-write*", &writable, &kept));
    text.push_str(&network(grants, &mut params));
    Seatbelt { text, params: params.0 }
}

/// The folder names no program may write or make at any depth (`.git`): the scope's table.
pub fn protected_names() -> Vec<&'static str> {
    use crate::kernel::scope::protected::{Covers, PROTECTED};
    PROTECTED.iter().filter(|p| p.covers == Covers::FolderAnywhere).map(|p| p.name).collect()
}

/// The grants as Seatbelt matches them: by the path a file resolves to (`/etc` is
/// `/private/etc`, `/var/folders` is `/private/var/folders`), so each path is made real where it
/// exists, or its folder is. A writable workspace entry is resolved by its folder only, and left
/// out when it is a link (resolving it would grant its target: Linux's `write_no_link`).
/// The one part of this module that reads the disk.
pub fn as_resolved(mut grants: Profile) -> Profile {
    let real = |path: &PathBuf| -> PathBuf {
        if let Ok(real) = std::fs::canonicalize(path) {
            return real;
        }
        match (path.parent().map(std::fs::canonicalize), path.file_name()) {
            (Some(Ok(folder)), Some(name)) => folder.join(name),
            _ => path.clone(),
        }
    };
    for list in [&mut grants.read, &mut grants.write, &mut grants.dev_nodes] {
        *list = list.iter().map(real).collect();
    }
    for carve in &mut grants.carve {
        carve.path = real(&carve.path);
    }
    grants.write_no_link = grants
        .write_no_link
        .iter()
        .filter(|entry| !std::fs::symlink_metadata(entry).is_ok_and(|m| m.file_type().is_symlink()))
        .filter_map(|entry| {
            let folder = std::fs::canonicalize(entry.parent()?).ok()?;
            Some(folder.join(entry.file_name()?))
        })
        .collect();
    grants
}

/// The carved paths that get at most `most`.
fn carved(grants: &Profile, most: Most) -> Vec<&PathBuf> {
    grants.carve.iter().filter(|c| c.most == most).map(|c| &c.path).collect()
}

/// `(allow <ops> (require-all (require-any <allowed>…) (require-not <refused>)…))`; nothing when
/// nothing is allowed (an empty `require-any` would be a rule of its own to reason about).
fn rule(ops: &str, allowed: &[String], refused: &[String]) -> String {
    if allowed.is_empty() {
        return String::new();
    }
    let any = format!("(require-any\n    {})", allowed.join("\n    "));
    if refused.is_empty() {
        return format!("(allow {ops}\n  {any})\n");
    }
    let not: Vec<String> = refused.iter().map(|r| format!("(require-not {r})")).collect();
    format!("(allow {ops}\n  (require-all\n   {any}\n   {}))\n", not.join("\n   "))
}

/// The folders above each carved path, up to where the writable grants begin: none may be
/// renamed or removed.
fn keep_folders(carved: &[&PathBuf], grants: &Profile) -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = Vec::new();
    for path in carved {
        for writable in grants.write.iter().chain(&grants.write_no_link).filter(|w| path.starts_with(w)) {
            let mut folder = path.parent();
            while let Some(f) = folder.filter(|f| f.starts_with(writable) && f != writable) {
                if !folders.iter().any(|known| known == f) {
                    folders.push(f.to_path_buf());
                }
                folder = f.parent();
            }
        }
    }
    folders
}

/// A protected folder name as a regular expression matching it as a whole path component, in
/// any case (APFS ignores case by default): `.git` is `/[.][Gg][Ii][Tt](/|$)`. None for a name
/// with another character (the text holds rein's constants, never something to escape).
fn name_regex(name: &str) -> Option<String> {
    let ok = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_');
    if name.is_empty() || !name.chars().all(ok) {
        return None;
    }
    let mut re = String::from("/");
    for c in name.chars() {
        match c {
            c if c.is_ascii_alphabetic() => {
                re.push_str(&format!("[{}{}]", c.to_ascii_uppercase(), c.to_ascii_lowercase()))
            }
            c => re.push_str(&format!("[{c}]")),
        }
    }
    re.push_str("(/|$)");
    Some(re)
}

fn services(names: &[&str]) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("(global-name \"{n}\")")).collect();
    format!("(allow mach-lookup {})\n", names.join(" "))
}

/// TCP to the profile's ports on any host, as Landlock allows on Linux (a port number is all
/// the text holds), never a bind or an inbound connection; name lookups for the programs that
/// may open datagram sockets on Linux.
fn network(grants: &Profile, params: &mut Params) -> String {
    let mut text = String::new();
    let mut ports = grants.connect_ports.clone();
    ports.sort_unstable();
    ports.dedup();
    if !ports.is_empty() {
        let remotes: Vec<String> = ports.iter().map(|port| format!("(remote tcp \"*:{port}\")")).collect();
        text.push_str(&format!("(allow network-outbound\n  {})\n", remotes.join("\n  ")));
    }
    if looks_up_names(&grants.sockets) {
        if let Some(socket) = params.name("DNS", Path::new(DNS_SOCKET)) {
            text.push_str(&format!("(allow network-outbound (literal {socket}))\n"));
        }
        text.push_str(&services(&DNS_SERVICES));
    }
    text
}

fn looks_up_names(sockets: &[SocketKind]) -> bool {
    sockets.iter().any(|s| s.kind == SOCK_DGRAM)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::process::grants::Carve;

    fn grants() -> Profile {
        Profile {
            read: vec![PathBuf::from("/usr"), PathBuf::from("/w/app")],
            dev_nodes: vec![PathBuf::from("/dev/null")],
            write: vec![PathBuf::from("/t")],
            write_no_link: vec![PathBuf::from("/w/app/entry")],
            connect_ports: vec![443, 80],
            carve: vec![
                Carve { path: PathBuf::from("/sdk/hdc"), most: Most::ReadNoExecute },
                Carve { path: PathBuf::from("/w/app/entry/lib/.git"), most: Most::Read },
                Carve { path: PathBuf::from("/etc/ssh"), most: Most::Nothing },
            ],
            ..Profile::default()
        }
    }

    fn param<'a>(sb: &'a Seatbelt, key: &str) -> &'a str {
        sb.params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str()).unwrap_or_else(|| panic!("{key}: {sb:?}"))
    }

    #[test]
    fn the_profile_denies_by_default_and_names_every_path_by_parameter() {
        let sb = profile(&grants(), &[".git"]);
        assert!(sb.text.starts_with("(version 1)\n(deny default)\n"), "{}", sb.text);
        for (_, path) in &sb.params {
            assert!(!sb.text.contains(path.as_str()) || path == "/", "{path} pasted into the text:\n{}", sb.text);
        }
        assert_eq!(param(&sb, "READ_0"), "/usr");
        assert_eq!(param(&sb, "WRITE_0"), "/t");
        assert_eq!(param(&sb, "WRITE_1"), "/w/app/entry");
        assert_eq!(param(&sb, "NO_EXEC_0"), "/sdk/hdc");
        assert_eq!(param(&sb, "UNREADABLE_0"), "/etc/ssh");
        assert_eq!(param(&sb, "KEEP_FOLDER_0"), "/w/app/entry/lib");
        assert!(!sb.text.contains("/w/app"), "{}", sb.text);
    }

    #[test]
    fn the_profile_text_is_exactly_this() {
        let sb = profile(&grants(), &[".git"]);
        let expected = r#"(version 1)
(deny default)
; generated by rein from the program's grants (kernel::process::seatbelt)
(allow process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
(allow sysctl-read)
(allow user-preference-read)
(allow file-read-metadata)
(allow mach-lookup (global-name "com.apple.system.opendirectoryd.libinfo"))
(allow file-read*
  (require-all
   (require-any
    (subpath (param "READ_0"))
    (subpath (param "READ_1"))
    (subpath (param "SYSTEM_0"))
    (subpath (param "SYSTEM_1"))
    (subpath (param "SYSTEM_2"))
    (subpath (param "SYSTEM_3"))
    (subpath (param "SYSTEM_4"))
    (subpath (param "SYSTEM_5"))
    (subpath (param "SYSTEM_6"))
    (subpath (param "SYSTEM_7"))
    (subpath (param "SYSTEM_8"))
    (literal (param "SYSTEM_ROOT_0"))
    (subpath (param "WRITE_0"))
    (subpath (param "WRITE_1")))
   (require-not (subpath (param "UNREADABLE_0")))))
(allow process-exec file-map-executable
  (require-all
   (require-any
    (subpath (param "READ_0"))
    (subpath (param "READ_1"))
    (subpath (param "SYSTEM_0"))
    (subpath (param "SYSTEM_1"))
    (subpath (param "SYSTEM_2"))
    (subpath (param "SYSTEM_3"))
    (subpath (param "SYSTEM_4"))
    (subpath (param "SYSTEM_5"))
    (subpath (param "SYSTEM_6"))
    (subpath (param "SYSTEM_7"))
    (subpath (param "SYSTEM_8"))
    (literal (param "SYSTEM_ROOT_0"))
    (subpath (param "WRITE_0"))
    (subpath (param "WRITE_1")))
   (require-not (subpath (param "UNREADABLE_0")))
   (require-not (literal (param "NO_EXEC_0")))))
(allow file-read* file-write-data
  (require-any
    (literal (param "DEV_NODE_0"))))
(allow file-write*
  (require-all
   (require-any
    (subpath (param "WRITE_0"))
    (subpath (param "WRITE_1")))
   (require-not (literal (param "KEEP_0")))
   (require-not (subpath (param "KEEP_0")))
   (require-not (literal (param "KEEP_1")))
   (require-not (subpath (param "KEEP_1")))
   (require-not (literal (param "KEEP_2")))
   (require-not (subpath (param "KEEP_2")))
   (require-not (literal (param "KEEP_FOLDER_0")))
   (require-not (regex #"/[.][Gg][Ii][Tt](/|$)"))))
(allow network-outbound
  (remote tcp "*:80")
  (remote tcp "*:443"))
"#;
        assert_eq!(sb.text, expected);
    }

    #[test]
    fn no_ports_no_network_and_no_lookups_without_datagram_sockets() {
        let sb = profile(&Profile { read: vec![PathBuf::from("/usr")], ..Profile::default() }, &[]);
        assert!(!sb.text.contains("network"), "{}", sb.text);
        assert!(!sb.text.contains("file-write*"), "nothing writable, no write rule: {}", sb.text);
        let dgram = SocketKind { domain: 2, kind: SOCK_DGRAM, protocol: 0 };
        let sb = profile(&Profile { connect_ports: vec![8710], sockets: vec![dgram], ..Profile::default() }, &[]);
        assert!(sb.text.contains("(remote tcp \"*:8710\")"), "{}", sb.text);
        assert!(sb.text.contains("(allow network-outbound (literal (param \"DNS_0\")))"), "{}", sb.text);
        assert_eq!(param(&sb, "DNS_0"), DNS_SOCKET);
        assert!(sb.text.contains("DNSConfiguration"), "{}", sb.text);
        assert!(!sb.text.contains("network-bind") && !sb.text.contains("network-inbound"), "{}", sb.text);
    }

    /// The attack: a workspace folder named so that, pasted into the profile, it would close the
    /// rule and open one of its own (`(allow file-write* (subpath "/"))`). It only ever is the
    /// value of a `-D` argument: the text is the same whatever the path holds.
    #[test]
    fn a_path_with_quotes_parens_or_newlines_is_only_a_parameter() {
        let evil = "/w/app/x\")) (allow file-write* (subpath \"/\")) ;\n(allow network*) #\"";
        let with = |entry: &str| {
            let mut g = grants();
            g.write_no_link.push(PathBuf::from(entry));
            profile(&g, &[".git"])
        };
        let (plain, sb) = (with("/w/app/plain"), with(evil));
        assert_eq!(sb.text, plain.text, "the text does not depend on what a path holds");
        assert!(!sb.text.contains("network*") && !sb.text.contains("(subpath \"/\")"));
        assert_eq!(param(&sb, "WRITE_2"), evil);
        let argv = sb.args(Path::new("/clt/bin/hvigorw"), vec!["assembleHap".to_string()]);
        assert!(argv.contains(&format!("-DWRITE_2={evil}")), "{argv:?}");
    }

    #[test]
    fn sandbox_exec_runs_the_program_after_its_parameters() {
        let sb = profile(&grants(), &[]);
        let argv = sb.args(Path::new("/jdk/bin/java"), vec!["-jar".into(), "--".into()]);
        assert_eq!(argv[0], "-p");
        assert_eq!(argv[1], sb.text);
        let dashes = argv.iter().position(|a| a == "--").unwrap();
        assert!(argv[2..dashes].iter().all(|a| a.starts_with("-D") && a.contains('=')), "{argv:?}");
        assert_eq!(argv[2..dashes].len(), sb.params.len());
        assert_eq!(&argv[dashes + 1..], ["/jdk/bin/java", "-jar", "--"]);
    }

    #[test]
    fn a_path_that_is_not_absolute_is_granted_nothing() {
        let sb = profile(&Profile { write: vec![PathBuf::from("relative")], ..Profile::default() }, &[]);
        assert!(!sb.params.iter().any(|(_, v)| v == "relative"), "{sb:?}");
        assert!(!sb.text.contains("file-write*"), "{}", sb.text);
    }

    #[test]
    fn only_the_names_protected_at_any_depth_are_refused_by_name() {
        assert_eq!(protected_names(), [".git"]);
    }

    /// The attack: a writable workspace entry swapped for a link to the home between rein's
    /// listing and the spawn. Resolving it would grant the home; it is left out instead.
    #[cfg(unix)]
    #[test]
    fn a_writable_entry_that_is_a_link_is_not_granted_and_the_rest_are_made_real() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path().canonicalize().unwrap();
        let (home, ws) = (root.join("home"), root.join("ws"));
        std::fs::create_dir_all(ws.join("entry")).unwrap();
        std::fs::create_dir(&home).unwrap();
        std::os::unix::fs::symlink(&home, ws.join("swapped")).unwrap();
        std::os::unix::fs::symlink(&ws, root.join("ws-link")).unwrap();
        let grants = Profile {
            read: vec![root.join("ws-link")],
            write_no_link: vec![ws.join("entry"), ws.join("swapped"), root.join("ws-link").join("fresh")],
            ..Profile::default()
        };
        let resolved = as_resolved(grants);
        assert_eq!(resolved.read, std::slice::from_ref(&ws));
        assert_eq!(resolved.write_no_link, [ws.join("entry"), ws.join("fresh")]);
    }

    #[test]
    fn protected_names_are_matched_in_any_case_and_only_rein_constants_are_accepted() {
        assert_eq!(name_regex(".rein").as_deref(), Some("/[.][Rr][Ee][Ii][Nn](/|$)"));
        for bad in ["", "a\"b", "a)b", "x\n", "a/b", "é"] {
            assert_eq!(name_regex(bad), None, "{bad:?}");
        }
    }
}
