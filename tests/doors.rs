//! The doors beside files and TCP, attacked the way an agent would: code it wrote runs as the
//! project's build script (the fake hvigorw runs `hvigorfile.ts`'s script, as the real one runs
//! it) or stands in for hdc, hap-sign-tool's java and git, and tries MPTCP to the person's hdc
//! server (`OHOS_HDC_SERVER_PORT`) and an MPTCP listener, every other socket family and kind
//! (SCTP, raw, packet, vsock, bluetooth, netlink, crypto, ...), the person's System V shared
//! memory, message queue and semaphore (made by this test, outside the spawn), a segment left
//! behind, the user, session and persistent keyrings, new keys, user namespaces (`unshare`,
//! `clone`, `clone3`), joining a namespace (`setns`), UDP datagrams out, and the ways around a
//! system-call filter (type flags, protocol numbers above 255, high argument bits, the 32-bit
//! ABIs, `personality`, io_uring, `socketpair` of other families) and TCP Fast Open (a connect
//! made by `sendto`, which Landlock judges too). Each attempt is a forked child, so one that works changes
//! nothing the next one sees. The same build unconfined opens them, so the test can fail.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::json;

use crate::common::lab::{lab, Lab};
use crate::common::toml_path;
use crate::containment::build_script;
use rein::kernel::process::confine::{level, Level};

/// The attack. Prints `<name> ok`, `<name> errno <n>` or `<name> signal <n>` per attempt; reads
/// its targets from `$REIN_FAKE_STATE/doors.json`.
const ATTACK: &str = r#"
import ctypes, json, os, platform, socket, struct
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.shmat.restype = ctypes.c_void_p
ARCH = platform.machine()
NR = {"x86_64": dict(keyctl=250, add_key=248, request_key=249, clone=56, clone3=435, unshare=272, setns=308,
                     io_uring_setup=425, socket=41),
      "aarch64": dict(keyctl=219, add_key=217, request_key=218, clone=220, clone3=435, unshare=97, setns=268,
                      io_uring_setup=425, socket=198)}[ARCH]
t = json.load(open(os.path.join(os.environ["REIN_FAKE_STATE"], "doors.json")))
HDC_PORT = int(os.environ["OHOS_HDC_SERVER_PORT"])
def arg(a):
    return ctypes.c_long(a) if isinstance(a, int) else a
def fail():
    e = ctypes.get_errno()
    raise OSError(e, os.strerror(e))
def call(nr, *args):
    r = libc.syscall(ctypes.c_long(nr), *[arg(a) for a in args])
    if r < 0:
        fail()
    return r
def sys(name, *args):
    return call(NR[name], *args)
def checked(r):
    if r == -1:
        fail()
    return r
def attempt(name, action):
    pid = os.fork()
    if pid == 0:
        try:
            action()
            os._exit(0)
        except OSError as e:
            os._exit(e.errno or 255)
        except BaseException:
            os._exit(255)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        print("%s signal %d" % (name, os.WTERMSIG(status)), flush=True)
    elif os.WEXITSTATUS(status) == 0:
        print(name + " ok", flush=True)
    else:
        print("%s errno %d" % (name, os.WEXITSTATUS(status)), flush=True)
def sock(domain, kind, protocol):
    return lambda: os.close(sys("socket", domain, kind, protocol))
def mptcp_connect():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262); s.settimeout(5)
    s.connect(("127.0.0.1", HDC_PORT))
def mptcp_listen():
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM, 262); s.bind(("::1", 0)); s.listen()
def tcp_connect():
    socket.create_connection(("127.0.0.1", HDC_PORT), timeout=5).close()
def fastopen_connect():
    s = socket.socket()
    # Returns once the SYN carrying the data is out: Landlock refuses before that.
    s.sendto(b"hello", socket.MSG_FASTOPEN, ("127.0.0.1", HDC_PORT))
def udp_send():
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"the workspace", ("127.0.0.1", t["udp"]))
def socketpair():
    a, b = socket.socketpair(); a.send(b"x"); b.recv(1)
def shm_attach():
    at = libc.shmat(ctypes.c_int(t["shm"]), None, 0)
    if at is None or at == ctypes.c_void_p(-1).value:
        fail()
    if ctypes.string_at(at, len(t["marker"])) != t["marker"].encode():
        raise OSError(0, "read something else")
    ctypes.memmove(at, b"PWNED", 5)
def shm_leave():
    checked(libc.shmget(ctypes.c_int(t["leave_key"]), ctypes.c_size_t(4096), 0o1600))
def msg_send():
    message = struct.pack("l", 1) + b"PWNED"
    checked(libc.msgsnd(ctypes.c_int(t["msg"]), message, ctypes.c_size_t(5), 0o4000))
def sem_up():
    checked(libc.semop(ctypes.c_int(t["sem"]), struct.pack("Hhh", 0, 1, 0o4000), ctypes.c_size_t(1)))
def key_read(ring):
    def read():
        key = sys("keyctl", 10, ring, b"user", t["key"].encode(), 0)
        buf = ctypes.create_string_buffer(256)
        n = sys("keyctl", 11, key, buf, 256)
        if buf.raw[:n] != t["secret"].encode():
            raise OSError(0, "read something else")
    return read
def clone_user(flags):
    def clone():
        pid = sys("clone", flags | 17, 0, 0, 0, 0)
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    return clone
def clone3_user():
    args = ctypes.create_string_buffer(struct.pack("11Q", 0x10000000, 0, 0, 0, 17, 0, 0, 0, 0, 0, 0))
    pid = sys("clone3", args, 88)
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
def setns_own():
    sys("setns", os.open("/proc/self/ns/ipc", os.O_RDONLY), 0x08000000)
def own_ipc_namespace():
    if os.readlink("/proc/self/ns/ipc") == t["ipc_namespace"]:
        raise OSError(1, "the person's IPC namespace")
def personality_mptcp():
    checked(libc.personality(0x0008))
    sock(2, 1, 262)()
def io_uring():
    sys("io_uring_setup", 4, ctypes.create_string_buffer(120))
def int80_socket():
    import mmap
    # push rbx; mov eax, 359 (i386 socket); mov ebx, 2; mov ecx, 1; mov edx, 262; int 0x80; pop rbx; ret
    code = bytes.fromhex("53b867010000bb02000000b901000000ba06010000cd805bc3")
    page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(code)
    address = ctypes.addressof(ctypes.c_char.from_buffer(page))
    r = ctypes.CFUNCTYPE(ctypes.c_int)(address)()
    if r < 0:
        raise OSError(-r, "int 0x80")
attempt("tcp_socket", sock(2, 1, 0))
attempt("tcp_socket_tcp", sock(2, 1, 6))
attempt("tcp6_socket_flags", sock(10, 1 | 0o4000 | 0o2000000, 6))
attempt("socketpair", socketpair)
attempt("socketpair_mptcp", lambda: socket.socketpair(socket.AF_INET, socket.SOCK_STREAM, 262))
attempt("socketpair_tipc", lambda: socket.socketpair(30, 4, 0))
attempt("tcp_hdc_server", tcp_connect)
attempt("mptcp_hdc_server", mptcp_connect)
attempt("fastopen_hdc_server", fastopen_connect)
attempt("mptcp_listen", mptcp_listen)
attempt("mptcp_flags", sock(2, 1 | 0o4000 | 0o2000000, 262))
attempt("mptcp_high_bits", sock(2 | 1 << 32, 1, 262 | 1 << 40))
attempt("protocol_65542", sock(2, 1, 0x10006))
attempt("inet_seqpacket", sock(2, 5, 0))
attempt("sctp", sock(2, 1, 132))
attempt("sctp_seqpacket", sock(10, 5, 132))
attempt("raw_icmp", sock(2, 3, 1))
attempt("raw6", sock(10, 3, 58))
attempt("ping", sock(2, 2, 1))
attempt("udplite", sock(2, 2, 136))
attempt("packet", sock(17, 3, 0x0300))
attempt("vsock", sock(40, 1, 0))
attempt("bluetooth", sock(31, 5, 0))
attempt("netlink_route", sock(16, 3, 0))
attempt("netlink_uevent", sock(16, 2, 15))
attempt("crypto_alg", sock(38, 5, 0))
attempt("tipc", sock(30, 5, 0))
attempt("xdp", sock(44, 3, 0))
attempt("unix", sock(1, 1, 0))
attempt("udp_socket", sock(2, 2, 0))
attempt("udp6_socket", sock(10, 2 | 0o4000, 17))
attempt("udp_send", udp_send)
attempt("shm_attach", shm_attach)
attempt("shm_leave", shm_leave)
attempt("msg_send", msg_send)
attempt("sem_up", sem_up)
attempt("key_user", key_read(-4))
attempt("key_session", key_read(-3))
attempt("key_persistent", lambda: sys("keyctl", 22, -1, -2))
attempt("add_key", lambda: sys("add_key", b"user", b"rein-attack", b"x", 1, -2))
attempt("request_key", lambda: sys("request_key", b"user", t["key"].encode(), None, 0))
attempt("unshare_user", lambda: sys("unshare", 0x10000000))
attempt("unshare_user_mount", lambda: sys("unshare", 0x10000000 | 0x00020000))
attempt("clone_user", clone_user(0x10000000))
attempt("clone_user_mount", clone_user(0x10000000 | 0x00020000))
attempt("clone3_user", clone3_user)
attempt("setns_own", setns_own)
attempt("own_ipc_namespace", own_ipc_namespace)
attempt("personality_mptcp", personality_mptcp)
attempt("io_uring", io_uring)
print("uid", os.getuid(), flush=True)
if ARCH == "x86_64":
    attempt("x32_socket", lambda: call(0x40000000 | 41, 2, 1, 262))
    attempt("int80_socket", int80_socket)
"#;

/// What every confined program gets (`errno 13` EACCES: the socket is not on its list; `errno
/// 1` EPERM: IPC, keys, namespaces; `errno 38` ENOSYS: clone3, io_uring and the x32 ABI, which
/// programs fall back from; `signal 31` SIGSYS: the 32-bit ABI kills). `udp` marks the
/// datagram attempts, which only the programs that resolve names (hvigorw, ohpm) may make;
/// `hdc` what hdc alone may (TCP to its server); `root` what only a rein running as root can
/// give (an IPC namespace of the program's own, which dies with its last process).
const CONFINED: [(&str, &str); 52] = [
    ("tcp_socket", "ok"),
    ("tcp_socket_tcp", "ok"),
    ("tcp6_socket_flags", "ok"),
    ("socketpair", "ok"),
    ("socketpair_mptcp", "errno 13"),
    ("socketpair_tipc", "errno 13"),
    ("tcp_hdc_server", "hdc"),
    ("mptcp_hdc_server", "errno 13"),
    ("fastopen_hdc_server", "hdc"),
    ("mptcp_listen", "errno 13"),
    ("mptcp_flags", "errno 13"),
    ("mptcp_high_bits", "errno 13"),
    ("protocol_65542", "errno 13"),
    ("inet_seqpacket", "errno 13"),
    ("sctp", "errno 13"),
    ("sctp_seqpacket", "errno 13"),
    ("raw_icmp", "errno 13"),
    ("raw6", "errno 13"),
    ("ping", "errno 13"),
    ("udplite", "errno 13"),
    ("packet", "errno 13"),
    ("vsock", "errno 13"),
    ("bluetooth", "errno 13"),
    ("netlink_route", "errno 13"),
    ("netlink_uevent", "errno 13"),
    ("crypto_alg", "errno 13"),
    ("tipc", "errno 13"),
    ("xdp", "errno 13"),
    ("unix", "errno 13"),
    ("udp_socket", "udp"),
    ("udp6_socket", "udp"),
    ("udp_send", "udp"),
    ("shm_attach", "errno 1"),
    ("shm_leave", "errno 1"),
    ("msg_send", "errno 1"),
    ("sem_up", "errno 1"),
    ("key_user", "errno 1"),
    ("key_session", "errno 1"),
    ("key_persistent", "errno 1"),
    ("add_key", "errno 1"),
    ("request_key", "errno 1"),
    ("unshare_user", "errno 1"),
    ("unshare_user_mount", "errno 1"),
    ("clone_user", "errno 1"),
    ("clone_user_mount", "errno 1"),
    ("clone3_user", "errno 38"),
    ("setns_own", "errno 1"),
    ("own_ipc_namespace", "root"),
    ("personality_mptcp", "errno 13"),
    ("io_uring", "errno 38"),
    ("x32_socket", "errno 38"),
    ("int80_socket", "signal 31"),
];

/// What `program` must see for each attempt (x86-64 alone has the 32-bit ABIs to try), with
/// rein running as root or not.
fn expected(program: &str) -> Vec<(String, String)> {
    // SAFETY: geteuid has no preconditions.
    expected_as(program, unsafe { libc::geteuid() } == 0)
}

fn expected_as(program: &str, root: bool) -> Vec<(String, String)> {
    let resolves_names = program == "hvigorw";
    CONFINED
        .iter()
        .filter(|(name, _)| cfg!(target_arch = "x86_64") || !matches!(*name, "x32_socket" | "int80_socket"))
        .map(|(name, outcome)| {
            let outcome = match *outcome {
                "udp" if resolves_names => "ok",
                "udp" => "errno 13",
                "hdc" if program == "hdc" => "ok",
                "hdc" => "errno 13",
                "root" if root => "ok",
                "root" => "errno 1",
                other => other,
            };
            (name.to_string(), outcome.to_string())
        })
        .collect()
}

/// What the attack printed, as (name, outcome) in order.
fn outcomes(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(name, _)| CONFINED.iter().any(|(n, _)| n == name))
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

const IPC_CREAT: i32 = 0o1000;
const IPC_NOWAIT: i32 = 0o4000;
const MARKER: &str = "the person's pixels";
const SECRET: &str = "kerberos-ticket";

/// The person's things the attack aims at, made by the test outside any spawn: a shared-memory
/// segment holding [`MARKER`], a message queue, a semaphore (value 0), a key holding [`SECRET`]
/// in the user and the session keyring, a key no segment has (the attack leaves one there),
/// and a UDP socket listening for the workspace. Removed when dropped.
struct Doors {
    shm: i32,
    msg: i32,
    sem: i32,
    leave_key: i32,
    keys: Vec<i64>,
    udp: std::net::UdpSocket,
}

fn key_add(description: &str, ring: i32) -> i64 {
    let (kind, description) = (c"user", std::ffi::CString::new(description).unwrap());
    // SAFETY: add_key with NUL-terminated strings and a payload buffer that outlive the call.
    let id = unsafe {
        libc::syscall(libc::SYS_add_key, kind.as_ptr(), description.as_ptr(), SECRET.as_ptr(), SECRET.len(), ring)
    };
    assert!(id > 0, "the test adds a key: {}", std::io::Error::last_os_error());
    // Readable by its user too, not only by who possesses it: as a credential cache keeps it
    // for the person's other processes.
    // SAFETY: keyctl on the key just made.
    unsafe { libc::syscall(libc::SYS_keyctl, libc::KEYCTL_SETPERM, id, 0x3f3f_0000_u32) };
    id
}

impl Doors {
    fn open(lab: &Lab) -> Doors {
        // Tests run side by side in one process: each lab's own key and description.
        let unique = {
            use std::hash::{Hash, Hasher};
            let mut hasher = std::collections::hash_map::DefaultHasher::new();
            (std::process::id(), &lab.ws.root).hash(&mut hasher);
            hasher.finish() as i32
        };
        // SAFETY: System V IPC calls on objects this test makes, with buffers that outlive them.
        let (shm, msg, sem) = unsafe {
            // Open to every user: for a rein run as another user, the refusal is the filter's.
            let shm = libc::shmget(libc::IPC_PRIVATE, 4096, IPC_CREAT | 0o666);
            assert!(shm >= 0, "shmget: {}", std::io::Error::last_os_error());
            let at = libc::shmat(shm, std::ptr::null(), 0);
            assert_ne!(at as isize, -1, "shmat: {}", std::io::Error::last_os_error());
            std::ptr::copy_nonoverlapping(MARKER.as_ptr(), at.cast::<u8>(), MARKER.len());
            libc::shmdt(at);
            let msg = libc::msgget(libc::IPC_PRIVATE, IPC_CREAT | 0o666);
            let sem = libc::semget(libc::IPC_PRIVATE, 1, IPC_CREAT | 0o666);
            assert!(msg >= 0 && sem >= 0, "msgget, semget: {}", std::io::Error::last_os_error());
            (shm, msg, sem)
        };
        let description = format!("rein-doors-{unique}");
        let keys = vec![
            key_add(&description, libc::KEY_SPEC_USER_KEYRING),
            key_add(&description, libc::KEY_SPEC_SESSION_KEYRING),
        ];
        let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        udp.set_nonblocking(true).unwrap();
        let leave_key = 0x5245_0000 | (unique & 0xffff);
        let targets = json!({
            "shm": shm, "msg": msg, "sem": sem, "leave_key": leave_key, "marker": MARKER,
            "key": description, "secret": SECRET, "udp": udp.local_addr().unwrap().port(),
            "ipc_namespace": std::fs::read_link("/proc/self/ns/ipc").unwrap().display().to_string(),
        });
        std::fs::write(lab.state.join("doors.json"), targets.to_string()).unwrap();
        Doors { shm, msg, sem, leave_key, keys, udp }
    }

    /// What the attack did to the person's things: empty when nothing.
    fn changed(&self) -> Vec<&'static str> {
        let mut changed = Vec::new();
        // SAFETY: System V IPC calls on this test's objects, into buffers that outlive them.
        unsafe {
            let at = libc::shmat(self.shm, std::ptr::null(), libc::SHM_RDONLY);
            assert_ne!(at as isize, -1, "shmat: {}", std::io::Error::last_os_error());
            if std::slice::from_raw_parts(at.cast::<u8>(), MARKER.len()) != MARKER.as_bytes() {
                changed.push("shared memory overwritten");
            }
            libc::shmdt(at);
            let mut message = [0u8; 64];
            if libc::msgrcv(self.msg, message.as_mut_ptr().cast(), 56, 0, IPC_NOWAIT) >= 0 {
                changed.push("a message in the queue");
            }
            if libc::semctl(self.sem, 0, libc::GETVAL) != 0 {
                changed.push("the semaphore moved");
            }
            if libc::shmget(self.leave_key, 0, 0) >= 0 {
                changed.push("a segment left behind");
            }
        }
        if self.udp.recv(&mut [0u8; 64]).is_ok() {
            changed.push("a datagram arrived");
        }
        changed
    }
}

impl Drop for Doors {
    fn drop(&mut self) {
        // SAFETY: removing this test's own IPC objects and keys (and a segment the unconfined
        // attack left behind).
        unsafe {
            libc::shmctl(self.shm, libc::IPC_RMID, std::ptr::null_mut());
            libc::msgctl(self.msg, libc::IPC_RMID, std::ptr::null_mut());
            libc::semctl(self.sem, 0, libc::IPC_RMID);
            let left = libc::shmget(self.leave_key, 0, 0);
            if left >= 0 {
                libc::shmctl(left, libc::IPC_RMID, std::ptr::null_mut());
            }
            for key in &self.keys {
                libc::syscall(libc::SYS_keyctl, libc::KEYCTL_INVALIDATE, *key);
            }
        }
    }
}

fn no_landlock() -> Option<String> {
    match level() {
        Level::Landlock { abi } if *abi >= 4 => None,
        Level::Landlock { abi } => Some(format!("Landlock ABI {abi} lacks network rights")),
        Level::Seatbelt | Level::RestrictedToken => Some(
            "these attacks are Linux's; macOS runs tests/confinement.rs, Windows tests/confined_writes.rs".to_string(),
        ),
        Level::Unavailable(why) => Some(why.clone()),
    }
}

/// Runs the attack as the project's build script; what it printed.
fn build(lab: &Lab) -> String {
    build_as(lab, lab.command(&["call", "hvigor_build", "{}"]))
}

/// [`build`] through `rein`, a command of the lab.
fn build_as(lab: &Lab, mut rein: std::process::Command) -> String {
    build_script(lab, &format!("mkdir -p build\npython3 - > build/doors.txt <<'PY'\n{ATTACK}\nPY\n"));
    let (status, out) = crate::common::run_json(&mut rein, None);
    assert_eq!(status, 0, "{out}");
    std::fs::read_to_string(lab.ws.path("build/doors.txt")).expect("the attack wrote its results")
}

#[test]
fn a_build_script_opens_no_door_but_tcp_and_name_lookups() {
    if let Some(why) = no_landlock() {
        crate::common::real_tools::unavailable("a_build_script_opens_no_door_but_tcp_and_name_lookups", &why);
        return;
    }
    let Some(lab) = lab() else { return };
    let doors = Doors::open(&lab);
    let text = build(&lab);
    assert_eq!(outcomes(&text), expected("hvigorw"), "{text}");
    // hvigorw may send datagrams (DNS): the one change the attack could make is the datagram.
    assert_eq!(doors.changed(), ["a datagram arrived"], "{text}");
}

/// rein run by an ordinary user (uid 65534, through util-linux `setpriv`, when the test runs as
/// root), where no IPC namespace can be made: the filter alone shuts the same doors, the
/// person's IPC objects (open to every user here) included.
#[test]
fn an_ordinary_users_build_script_opens_no_door_either() {
    if let Some(why) = no_landlock() {
        crate::common::real_tools::unavailable("an_ordinary_users_build_script_opens_no_door_either", &why);
        return;
    }
    let Some(lab) = lab() else { return };
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        // The suite already runs as an ordinary user: the build it runs is this one.
        let doors = Doors::open(&lab);
        let text = build(&lab);
        assert_eq!(outcomes(&text), expected_as("hvigorw", false), "{text}");
        assert_eq!(doors.changed(), ["a datagram arrived"], "{text}");
        return;
    }
    let doors = Doors::open(&lab);
    let chown = std::process::Command::new("chown").args(["-R", "65534:65534"]).arg(&lab.ws.root).status().unwrap();
    assert!(chown.success(), "the lab becomes the ordinary user's");
    let inner = lab.command(&["call", "hvigor_build", "{}"]);
    let mut rein = std::process::Command::new("setpriv");
    rein.args(["--reuid=65534", "--regid=65534", "--clear-groups", "--"])
        .arg(inner.get_program())
        .args(inner.get_args());
    for (name, value) in inner.get_envs() {
        match value {
            Some(value) => rein.env(name, value),
            None => rein.env_remove(name),
        };
    }
    let text = build_as(&lab, rein);
    assert!(text.contains("uid 65534\n"), "the build ran as the ordinary user: {text}");
    assert_eq!(outcomes(&text), expected_as("hvigorw", false), "{text}");
    assert_eq!(doors.changed(), ["a datagram arrived"], "{text}");
}

/// The same build with confinement off opens every door this kernel has: each refusal above is
/// the confinement's doing, not an attempt that cannot work here.
#[test]
fn the_same_build_unconfined_opens_them_so_the_test_can_fail() {
    let Some(lab) = lab() else { return };
    lab.configure("confine = \"off\"\n");
    let doors = Doors::open(&lab);
    let text = build(&lab);
    let found = outcomes(&text);
    for door in [
        "mptcp_hdc_server",
        "fastopen_hdc_server",
        "mptcp_listen",
        "mptcp_flags",
        "udp_send",
        "shm_attach",
        "shm_leave",
        "msg_send",
        "sem_up",
        "key_user",
        "key_session",
        "add_key",
        "request_key",
        "unshare_user",
        "clone_user",
        "clone3_user",
        "setns_own",
    ] {
        assert!(found.contains(&(door.to_string(), "ok".to_string())), "{door} opens unconfined: {text}");
    }
    let changed = doors.changed();
    for change in
        ["shared memory overwritten", "a message in the queue", "the semaphore moved", "a segment left behind"]
    {
        assert!(changed.contains(&change), "{change} unconfined: {changed:?} {text}");
    }
}

/// A stand-in for `program` that runs the attack and prints what happened.
fn probe(lab: &Lab, program: &str) -> std::path::PathBuf {
    let path = lab.ws.root.join(format!("probe-{program}")).join(program);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, format!("#!/usr/bin/env python3\n{ATTACK}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Runs `run` (a tool body) with the attack standing in for `program`; what it printed.
fn as_program(lab: &Lab, program: &str, run: &str, path_first: Option<&Path>) -> String {
    lab.ws.file(
        "tools/probe.lua",
        format!("return {{ name = 'probe', description = 'p', run = function() return {run} end }}"),
    );
    let mut cmd = lab.command(&["call", "probe", "{}"]);
    if let Some(dir) = path_first {
        cmd.env("PATH", format!("{}:{}", dir.display(), crate::common::lab::fakes_path()));
    }
    let (status, out) = crate::common::run_json(&mut cmd, None);
    assert_eq!(status, 0, "{program}: {out}");
    out["result"]["stdout"].as_str().unwrap_or_else(|| panic!("{program} printed: {out}")).to_string()
}

/// hdc, hap-sign-tool (its java) and git need no datagram, and get none of the other doors.
#[test]
fn hdc_hap_sign_tool_and_git_open_no_door_and_send_no_datagram() {
    if let Some(why) = no_landlock() {
        crate::common::real_tools::unavailable("hdc_hap_sign_tool_and_git_open_no_door_and_send_no_datagram", &why);
        return;
    }
    let Some(lab) = lab() else { return };
    let doors = Doors::open(&lab);
    let hdc = probe(&lab, "hdc");
    lab.toolchain("hdc", &hdc);
    let text = as_program(&lab, "hdc", "rein.proc.run('hdc', { 'shell', 'param', 'get', 'x' })", None);
    assert_eq!(outcomes(&text), expected("hdc"), "hdc: {text}");

    let java = probe(&lab, "java");
    let config = lab.ws.home.join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    let real_java = format!("java = {}\n", toml_path(&lab.material.java));
    assert!(text.contains(&real_java), "the lab names its java: {text}");
    std::fs::write(&config, text.replace(&real_java, &format!("java = {}\n", toml_path(&java)))).unwrap();
    let text =
        as_program(&lab, "hap-sign-tool", "rein.proc.run('hap-sign-tool', { 'verify-app', '-inFile', 'a.hap' })", None);
    assert_eq!(outcomes(&text), expected("hap-sign-tool"), "hap-sign-tool: {text}");

    let git = probe(&lab, "git");
    let text = as_program(&lab, "git", "rein.proc.run('git', { '--version' })", git.parent());
    assert_eq!(outcomes(&text), expected("git"), "git: {text}");
    assert_eq!(doors.changed(), Vec::<&str>::new());
}
