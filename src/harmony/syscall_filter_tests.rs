//! The kernel's system-call filter with HarmonyOS's socket lists, run in a child that installed
//! it (as the spawn path does, without Landlock): what it refuses, as root and as an ordinary user, and that the toolchain's
//! runtimes (node, java) still start and look names up under it.

use std::os::unix::process::CommandExt;

use super::confinement::sockets;
use super::programs::Program;
use crate::kernel::process::syscalls::{filter, install, own_ipc_namespace};

/// Runs `program args` in a child that installed the filter of `as_program` (after becoming
/// nobody, uid and gid 65534, when `nobody` and the test runs as root), for at most two
/// minutes; what it printed.
fn filtered(program: &str, args: &[&str], as_program: &Program, nobody: bool) -> String {
    let filter = filter(&sockets(as_program));
    // Bounded: coreutils `timeout` (under the same filter) ends a program that hangs.
    let mut cmd = std::process::Command::new("timeout");
    cmd.args(["--kill-after=5", "120", program]).args(args);
    // SAFETY: system calls only, on values made before the fork.
    unsafe {
        cmd.pre_exec(move || {
            own_ipc_namespace();
            if nobody
                && libc::geteuid() == 0
                && (libc::setgroups(0, std::ptr::null()) < 0 || libc::setgid(65534) < 0 || libc::setuid(65534) < 0)
            {
                return Err(std::io::Error::last_os_error());
            }
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            install(&filter)
        });
    }
    let out = cmd.output().unwrap_or_else(|e| panic!("{program}: {e}"));
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// Each attempt prints `<name> ok` or `<name> <errno>`.
const PROBE: &str = r#"
import ctypes, os, platform, socket
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NR = {"x86_64": dict(keyctl=250, unshare=272, clone3=435, bpf=321, userfaultfd=323, perf_event_open=298),
      "aarch64": dict(keyctl=219, unshare=97, clone3=435, bpf=280, userfaultfd=282, perf_event_open=241)}[platform.machine()]
def attempt(name, action):
    try:
        action(); print(name, "ok")
    except OSError as e:
        print(name, e.errno)
def checked(r):
    if r == -1:
        e = ctypes.get_errno(); raise OSError(e, os.strerror(e))
def sock(family, kind, protocol):
    return lambda: socket.socket(family, kind, protocol).close()
def in_child(action):
    def run():
        pid = os.fork()
        if pid == 0:
            try:
                action(); os._exit(0)
            except OSError as e:
                os._exit(e.errno)
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        if code:
            raise OSError(code, "")
    return run
attempt("tcp", sock(socket.AF_INET, socket.SOCK_STREAM, 0))
attempt("tcp6_nonblock", sock(socket.AF_INET6, socket.SOCK_STREAM | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC, 6))
attempt("mptcp", sock(socket.AF_INET, socket.SOCK_STREAM, 262))
attempt("mptcp_nonblock", sock(socket.AF_INET6, socket.SOCK_STREAM | socket.SOCK_NONBLOCK, 262))
attempt("seqpacket", sock(socket.AF_INET, socket.SOCK_SEQPACKET, 0))
attempt("udp", sock(socket.AF_INET, socket.SOCK_DGRAM, 0))
attempt("udp6", sock(socket.AF_INET6, socket.SOCK_DGRAM, 17))
attempt("icmp", sock(socket.AF_INET, socket.SOCK_DGRAM, 1))
attempt("netlink", sock(16, socket.SOCK_RAW, 0))
attempt("unix", sock(socket.AF_UNIX, socket.SOCK_STREAM, 0))
attempt("vsock", sock(40, socket.SOCK_STREAM, 0))
def pair():
    a, b = socket.socketpair(); a.send(b"x"); assert b.recv(1) == b"x"
attempt("socketpair", pair)
attempt("socketpair_inet", lambda: socket.socketpair(socket.AF_INET, socket.SOCK_STREAM, 0))
attempt("shmget", lambda: checked(libc.shmget(0, 4096, 0o1600)))
attempt("msgget", lambda: checked(libc.msgget(0, 0o1600)))
attempt("semget", lambda: checked(libc.semget(0, 1, 0o1600)))
attempt("keyctl", lambda: checked(libc.syscall(NR["keyctl"], 0, -4, 0)))
attempt("unshare_user", in_child(lambda: checked(libc.syscall(NR["unshare"], 0x10000000))))
attempt("clone3", lambda: checked(libc.syscall(NR["clone3"], None, 0)))
# Unfiltered, root gets EINVAL, EFAULT and a descriptor here; the filter answers first.
attempt("bpf", lambda: checked(libc.syscall(NR["bpf"], 0, None, 0)))
attempt("perf_event_open", lambda: checked(libc.syscall(NR["perf_event_open"], None, 0, -1, -1, 0)))
attempt("userfaultfd", lambda: checked(libc.syscall(NR["userfaultfd"], 0)))
attempt("fork", in_child(lambda: None))
print("uid", os.getuid())
"#;

fn outcomes(text: &str) -> Vec<(String, String)> {
    text.lines().filter_map(|l| l.split_once(' ')).map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

fn expected(udp: bool) -> Vec<(String, String)> {
    let udp = if udp { "ok" } else { "13" };
    [
        ("tcp", "ok"),
        ("tcp6_nonblock", "ok"),
        ("mptcp", "13"),
        ("mptcp_nonblock", "13"),
        ("seqpacket", "13"),
        ("udp", udp),
        ("udp6", udp),
        ("icmp", "13"),
        ("netlink", "13"),
        ("unix", "13"),
        ("vsock", "13"),
        ("socketpair", "ok"),
        ("socketpair_inet", "13"),
        ("shmget", "1"),
        ("msgget", "1"),
        ("semget", "1"),
        ("keyctl", "1"),
        ("unshare_user", "1"),
        ("clone3", "38"),
        ("bpf", "1"),
        ("perf_event_open", "13"),
        ("userfaultfd", "1"),
        ("fork", "ok"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect()
}

#[test]
fn every_program_gets_tcp_and_only_hvigorw_and_ohpm_get_udp() {
    for (program, udp) in [
        (Program::Hvigorw, true),
        (Program::Ohpm, true),
        (Program::Hdc, false),
        (Program::HapSignTool, false),
        (Program::Git, false),
        (Program::Other("x".to_string()), false),
    ] {
        let out = filtered("python3", &["-c", PROBE], &program, false);
        let mut found = outcomes(&out);
        found.retain(|(name, _)| name != "uid");
        assert_eq!(found, expected(udp), "{program:?}: {out}");
    }
}

/// Without root no IPC namespace can be made: the filter alone refuses System V IPC, keys and
/// user namespaces (which an ordinary user could otherwise make).
#[test]
fn an_ordinary_user_is_refused_the_same() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        let out = filtered("python3", &["-c", PROBE], &Program::Hdc, false);
        assert!(out.contains("shmget 1") && out.contains("unshare_user 1"), "{out}");
        return;
    }
    let out = filtered("python3", &["-c", PROBE], &Program::Hdc, true);
    assert!(out.contains("uid 65534"), "{out}");
    let mut found = outcomes(&out);
    found.retain(|(name, _)| name != "uid");
    assert_eq!(found, expected(false), "{out}");
}

/// The toolchain's runtimes under the filter: node (hvigor's) and java start their threads
/// (clone3 falls back to clone), look `localhost` up without netlink and connect. Each is
/// skipped only where it is not installed, and says so.
#[test]
fn node_and_java_start_and_look_names_up_under_the_filter() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!(
        "require('dns').lookup('localhost', (e, a) => {{ console.log('lookup', e ? e.code : a);\n\
         const s = require('net').connect({port}, 'localhost', () => {{ console.log('connected'); s.destroy(); }});\n\
         s.on('error', e => console.log('error', e.code)); }});"
    );
    match which("node") {
        Some(node) => {
            let out = filtered(&node, &["-e", &script], &Program::Hvigorw, false);
            assert!(out.contains("lookup 127.0.0.1") && out.contains("connected"), "{out}");
        }
        // A skip is not a pass: `bash .ci/setup` installs node (npm) and java.
        None => panic!("node under the filter cannot judge: no node on PATH (`bash .ci/setup` installs it)"),
    }
    match which("java") {
        Some(java) => {
            let out = filtered(&java, &["-version"], &Program::HapSignTool, false);
            assert!(out.contains("version"), "{out}");
            // java looks names up when hvigor runs it (as hvigorw's child, under its filter).
            let dir = tempfile::tempdir().unwrap();
            let source = dir.path().join("Lookup.java");
            std::fs::write(&source, JAVA_LOOKUP).unwrap();
            let (source, port) = (source.display().to_string(), port.to_string());
            let out = filtered(&java, &[&source, &port], &Program::Hvigorw, false);
            assert!(out.contains("lookup 127.0.0.1") && out.contains("connected"), "{out}");
        }
        None => panic!("java under the filter cannot judge: no java on PATH (`bash .ci/setup` installs it)"),
    }
}

/// Looks `localhost` up and connects to the port it is given (a single-file java program).
const JAVA_LOOKUP: &str = "public class Lookup { public static void main(String[] a) throws Exception {\n\
    System.out.println(\"lookup \" + java.net.InetAddress.getByName(\"localhost\").getHostAddress());\n\
    try (java.net.Socket s = new java.net.Socket(\"localhost\", Integer.parseInt(a[0]))) { System.out.println(\"connected\"); }\n\
} }\n";

fn which(name: &str) -> Option<String> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| p.is_file()).map(|p| p.display().to_string())
}

#[test]
fn a_foreign_architecture_is_killed_and_the_longest_filter_assembles() {
    let built = filter(&sockets(&Program::Hvigorw));
    let program = built.instructions();
    assert_eq!(program[0].k, 4, "it reads the architecture first");
    let kill = &program[2 + program[1].jf as usize];
    assert_eq!((kill.code, kill.k), (0x06, 0x8000_0000), "a foreign architecture is killed");
    assert!(program.len() < 200, "{}", program.len());
}
