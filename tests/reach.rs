//! What a build script can reach besides files, attacked through the project's `hvigorfile.ts`
//! (run by the fake hvigorw as the real one runs it): the hdc server and the rest of the
//! network, unix sockets (abstract and on disk), other processes' signals and environment, the
//! hdc binary itself, the shared temp directories and `/run`, and capabilities when rein runs as
//! root. hdc itself may reach its own server and nothing else; with no server running, rein says
//! so before anything runs.

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::common::lab::{lab, Lab};
use crate::containment::build_script;
use rein::kernel::process::confine::{level, Level};

/// Each attempt prints `<name> ok` or `<name> denied <why>` to build/reach.txt. The test writes
/// `build/targets.json`: ports, socket paths, its own pid.
const ATTACK: &str = r#"
mkdir -p build
python3 - <<'PY'
import json, os, socket, subprocess, shutil
t = json.load(open("build/targets.json"))
results = []
def attempt(name, action):
    try:
        action()
        results.append(name + " ok")
    except Exception as e:
        results.append("%s denied %s" % (name, e))
def connect(port):
    socket.create_connection(("127.0.0.1", port), timeout=5).close()
def bind():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()
def unix(address):
    s = socket.socket(socket.AF_UNIX); s.settimeout(5); s.connect(address)
def write(path):
    open(path, "w").write("x")
def parent(pid):
    return int(open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[1])
def rein_environ():
    rein = parent(parent(os.getppid()))
    if "REIN_T_SECRET" not in open("/proc/%d/environ" % rein, "rb").read().decode("latin-1"):
        raise Exception("not rein's environment")
def capabilities():
    held = [l for l in open("/proc/self/status") if l.startswith("CapEff:")][0].split()[1]
    if int(held, 16) == 0:
        raise Exception("none held")
def hdc():
    out = subprocess.run([shutil.which("hdc"), "-v"], capture_output=True, timeout=10)
    if out.returncode != 0:
        raise Exception(out.stderr)
attempt("hdc_server", lambda: connect(int(os.environ["OHOS_HDC_SERVER_PORT"])))
attempt("other_port", lambda: connect(t["listener"]))
attempt("bind", bind)
attempt("abstract_unix", lambda: unix("\0" + t["abstract"]))
attempt("pathname_unix", lambda: unix(t["socket"]))
attempt("signal", lambda: os.kill(t["test_pid"], 0))
attempt("hdc_binary", hdc)
attempt("shared_tmp", lambda: write("/tmp/rein-reach-%d" % os.getpid()))
attempt("var_tmp", lambda: write("/var/tmp/rein-reach-%d" % os.getpid()))
attempt("private_tmp", lambda: write(os.path.join(os.environ["TMPDIR"], "x")))
attempt("run_dir", lambda: os.listdir("/run"))
attempt("rein_environ", rein_environ)
attempt("capabilities", capabilities)
open("build/reach.txt", "w").write("\n".join(results) + "\n")
PY
"#;

/// The outcome each attempt must have.
const CONFINED: [(&str, &str); 13] = [
    ("hdc_server", "denied"),
    ("other_port", "denied"),
    ("bind", "denied"),
    ("abstract_unix", "denied"),
    ("pathname_unix", "denied"),
    ("signal", "denied"),
    ("hdc_binary", "denied"),
    ("shared_tmp", "denied"),
    ("var_tmp", "denied"),
    ("private_tmp", "ok"),
    ("run_dir", "denied"),
    ("rein_environ", "denied"),
    ("capabilities", "denied"),
];

/// Listeners the attack aims at, alive while the test runs.
struct Targets {
    _tcp: std::net::TcpListener,
    _abstract: std::os::unix::net::UnixListener,
    _pathname: std::os::unix::net::UnixListener,
}

fn targets(lab: &Lab) -> Targets {
    use std::os::linux::net::SocketAddrExt;
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let name = format!("rein-reach-{}-{}", std::process::id(), lab.ws.root.file_name().unwrap().to_string_lossy());
    let abstract_address = std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes()).unwrap();
    let abstract_listener = std::os::unix::net::UnixListener::bind_addr(&abstract_address).unwrap();
    let socket = lab.ws.root.join("agent.sock");
    let pathname = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o777)).unwrap();
    let described = json!({
        "listener": tcp.local_addr().unwrap().port(),
        "abstract": name,
        "socket": socket.display().to_string(),
        "test_pid": std::process::id(),
    });
    lab.ws.file("build/targets.json", described.to_string());
    Targets { _tcp: tcp, _abstract: abstract_listener, _pathname: pathname }
}

fn outcomes(lab: &Lab) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(lab.ws.path("build/reach.txt")).expect("the attack wrote its results");
    text.lines()
        .map(|l| {
            let mut words = l.splitn(3, ' ');
            (words.next().unwrap().to_string(), words.next().unwrap_or("").to_string())
        })
        .collect()
}

fn no_landlock() -> Option<String> {
    match level() {
        Level::Landlock { abi } if *abi >= 6 => None,
        Level::Landlock { abi } => Some(format!("Landlock ABI {abi} lacks network or scope rights")),
        Level::Seatbelt | Level::RestrictedToken => Some(
            "these attacks are Linux's; macOS runs tests/confinement.rs, Windows tests/confined_writes.rs".to_string(),
        ),
        Level::Unavailable(why) => Some(why.clone()),
    }
}

#[test]
fn a_build_script_reaches_no_network_socket_process_or_device() {
    if let Some(why) = no_landlock() {
        crate::common::real_tools::unavailable(
            "a_build_script_reaches_no_network_socket_process_or_device",
            &format!("this kernel cannot confine with Landlock: {why}"),
        );
        return;
    }
    let Some(lab) = lab() else { return };
    let text = attack(&lab);
    let expected: Vec<(String, String)> = CONFINED.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(outcomes(&lab), expected, "{text}");
}

/// Runs [`ATTACK`] through `hvigor_build` against live targets; what it wrote.
fn attack(lab: &Lab) -> String {
    let _targets = targets(lab);
    build_script(lab, ATTACK);
    let (status, out) = {
        let mut cmd = lab.command(&["call", "hvigor_build", "{}"]);
        cmd.env("REIN_T_SECRET", "in rein's environment");
        crate::common::run_json(&mut cmd, None)
    };
    assert_eq!(status, 0, "{out}");
    std::fs::read_to_string(lab.ws.path("build/reach.txt")).unwrap()
}

/// The same attack with confinement off reaches every target: each denial above is the
/// confinement's doing, not a probe that cannot succeed (`run_dir` was denied by the file rules
/// before this confinement existed too; only root reads a non-dumpable rein's environment).
#[test]
fn the_same_attack_unconfined_reaches_everything_so_the_test_can_fail() {
    let Some(lab) = lab() else { return };
    let config = lab.ws.home.join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap().replacen("[spawn]\n", "[spawn]\nconfine = \"off\"\n", 1);
    std::fs::write(&config, text).unwrap();
    let text = attack(&lab);
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    for (name, outcome) in outcomes(&lab) {
        if !root && (name == "rein_environ" || name == "capabilities") {
            continue;
        }
        assert_eq!(outcome, "ok", "{name} is reachable unconfined: {text}");
    }
}

/// An hdc that tries its own server, another port and a bind, and prints what happened.
const PROBING_HDC: &str = r#"#!/usr/bin/env python3
import os, socket, sys
def attempt(name, action):
    try:
        action(); print(name, "ok")
    except OSError as e:
        print(name, "denied", e.errno)
attempt("server", lambda: socket.create_connection(("127.0.0.1", int(os.environ["OHOS_HDC_SERVER_PORT"])), 5).close())
attempt("other", lambda: socket.create_connection(("127.0.0.1", int(sys.argv[-1])), 5).close())
attempt("bind", lambda: socket.socket().bind(("127.0.0.1", 0)))
print("argv", " ".join(sys.argv[1:]))
"#;

#[test]
fn hdc_reaches_its_own_server_and_nothing_else() {
    if let Some(why) = no_landlock() {
        crate::common::real_tools::unavailable(
            "hdc_reaches_its_own_server_and_nothing_else",
            &format!("this kernel cannot confine with Landlock: {why}"),
        );
        return;
    }
    let Some(lab) = lab() else { return };
    let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let hdc = lab.ws.root.join("probe/hdc");
    std::fs::create_dir_all(hdc.parent().unwrap()).unwrap();
    std::fs::write(&hdc, PROBING_HDC).unwrap();
    std::fs::set_permissions(&hdc, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = lab.ws.home.join("config.toml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("[toolchain]\n", &format!("[toolchain]\nhdc = {}\n", crate::common::toml_path(&hdc)));
    std::fs::write(&config, text).unwrap();
    let port = other.local_addr().unwrap().port().to_string();
    lab.ws.file(
        "tools/probe.lua",
        format!("return {{ name = 'probe', description = 'p', run = function() return rein.proc.run('hdc', {{ 'shell', 'param', 'get', '{port}' }}) end }}"),
    );
    let result = lab.ok(&[], "probe", json!({}));
    let stdout = result["stdout"].as_str().unwrap();
    assert!(stdout.contains("server ok"), "hdc reaches its server: {stdout}");
    assert!(stdout.contains("other denied 13"), "and no other port: {stdout}");
    assert!(stdout.contains("bind denied 13"), "and binds none: {stdout}");
    assert!(stdout.contains(&format!("argv -p shell param get {port}")), "hdc never starts a server: {stdout}");
    // The journal shows the command line hdc really got, not the one the script gave.
    let ran = stdout.lines().find_map(|l| l.strip_prefix("argv ")).unwrap();
    let journal = crate::common::journal_text(&lab.ws.ws);
    let spawn: serde_json::Value = journal
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .rfind(|e: &serde_json::Value| e["action"] == "spawn")
        .unwrap();
    assert_eq!(spawn["target"], json!(format!("hdc {ran}")), "the journal shows what ran: {spawn}");
}

#[test]
fn without_an_hdc_server_rein_says_so_and_runs_nothing() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut cmd = lab.command(&["call", "device_list", "{}"]);
    cmd.env("OHOS_HDC_SERVER_PORT", closed.to_string());
    let (status, out) = crate::common::run_json(&mut cmd, None);
    assert_eq!(status, 1, "{out}");
    let error = &out["error"];
    let failure = if error["code"] == "HDC_SERVER_NOT_RUNNING" { error } else { &error["details"]["failure"] };
    assert_eq!(failure["code"], json!("HDC_SERVER_NOT_RUNNING"), "{out}");
    assert!(failure["message"].as_str().unwrap().contains("hdc start"), "the next step: {out}");
    assert_eq!(failure["details"]["port"], json!(closed), "{out}");
    assert!(lab.command_lines("hdc").is_empty(), "nothing ran: {:?}", lab.command_lines("hdc"));
}
