//! Containment beyond files, attacked the way an agent would: the project's build script (run
//! by the fake hvigorw as the real one runs `hvigorfile.ts`) leaves processes behind that escape
//! its process group (`setsid`, `setpgid`, a double fork), and reaches for the person's terminal
//! to type into their shell or answer rein's own prompt. Nothing it starts may outlive the
//! spawn — on exit, timeout or cancel — and no input it forges may reach a terminal.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::lab::{lab, Lab};
use crate::common::pty::Pty;

/// Starts one process of each escaping kind, each writing its pid to `build/pids/<kind>` and
/// then becoming `sleep 97`; waits until all four are written.
const ESCAPERS: &str = r#"
mkdir -p build/pids
python3 - <<'PY'
import os, time
def start(kind):
    if os.fork() > 0:
        return
    if kind == "setsid":
        os.setsid()
    elif kind == "setpgid":
        os.setpgid(0, 0)
    elif kind == "double":
        if os.fork() > 0:
            os._exit(0)
        os.setsid()
    with open("build/pids/%s.tmp" % kind, "w") as f:
        f.write(str(os.getpid()))
    os.rename("build/pids/%s.tmp" % kind, "build/pids/%s" % kind)
    os.execvp("sleep", ["sleep", "97"])
for kind in ("group", "setsid", "setpgid", "double"):
    start(kind)
while not all(os.path.exists("build/pids/" + k) for k in ("group", "setsid", "setpgid", "double")):
    time.sleep(0.01)
PY
"#;

const KINDS: [&str; 4] = ["group", "setsid", "setpgid", "double"];

/// Puts `script` in the project's hvigorfile.ts, where the fake hvigorw runs it.
pub fn build_script(lab: &Lab, script: &str) {
    let text = std::fs::read_to_string(lab.ws.path("hvigorfile.ts")).unwrap();
    lab.ws.file("hvigorfile.ts", format!("{text}\n/* REIN_FAKE_BUILD_SCRIPT\n{script}\n*/\n"));
}

/// The pids the escapers wrote.
fn escaper_pids(lab: &Lab) -> Vec<(String, i32)> {
    KINDS
        .iter()
        .map(|kind| {
            let text = std::fs::read_to_string(lab.ws.path(&format!("build/pids/{kind}")))
                .unwrap_or_else(|e| panic!("the {kind} escaper wrote its pid: {e}"));
            (kind.to_string(), text.trim().parse().unwrap())
        })
        .collect()
}

/// Whether `pid` is still one of the escapers (`sleep 97`), not a reused pid.
fn is_escaper(pid: i32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == b"sleep\x0097\x00")
        && !std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| s.contains(") Z "))
}

/// The escapers still running after up to `limit` (none, once everything is stopped); those
/// found are killed so a failing test leaves nothing behind.
fn survivors(pids: &[(String, i32)], limit: Duration) -> Vec<String> {
    let start = Instant::now();
    loop {
        let alive: Vec<&(String, i32)> = pids.iter().filter(|(_, pid)| is_escaper(*pid)).collect();
        if alive.is_empty() || start.elapsed() > limit {
            for (_, pid) in &alive {
                // SAFETY: killing a test's own leftover `sleep 97`.
                unsafe { libc::kill(*pid, libc::SIGKILL) };
            }
            return alive.iter().map(|(kind, _)| kind.clone()).collect();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn spawn_entries(workspace: &Path) -> Vec<Value> {
    crate::common::journal_text(workspace)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["action"] == "spawn")
        .collect()
}

#[test]
fn nothing_a_build_starts_outlives_it_after_a_normal_exit() {
    let Some(lab) = lab() else { return };
    build_script(&lab, ESCAPERS);
    lab.build();
    let pids = escaper_pids(&lab);
    assert_eq!(survivors(&pids, Duration::ZERO), Vec::<String>::new(), "every escaper is gone when rein returns");
    let spawn = spawn_entries(&lab.ws.ws).pop().expect("the build's journal entry");
    assert!(spawn["stragglers_killed"].as_u64().unwrap_or(0) >= 4, "the journal records the stragglers: {spawn}");
    assert!(spawn["stragglers"].as_array().unwrap().iter().any(|n| n == "sleep"), "{spawn}");
}

#[test]
fn nothing_a_build_starts_outlives_its_timeout() {
    let Some(lab) = lab() else { return };
    // The deadline falls after the escapers are running however loaded the machine is (the
    // script reaches `sleep` only once all four wrote their pids); it is not what is checked.
    build_script(&lab, &format!("trap '' TERM\n{ESCAPERS}\nsleep 120\n"));
    let error = lab.failed(&[], "hvigor_build", json!({"timeout_ms": 20000}), "TIMEOUT");
    let pids = escaper_pids(&lab);
    assert_eq!(survivors(&pids, Duration::ZERO), Vec::<String>::new(), "every escaper is gone: {error}");
}

#[test]
fn nothing_a_build_starts_outlives_a_cancelled_call() {
    let Some(lab) = lab() else { return };
    build_script(&lab, &format!("{ESCAPERS}\nsleep 60\n"));
    let mut rein = lab.command(&["call", "hvigor_build", "{}"]).spawn().unwrap();
    let started = Instant::now();
    while !lab.ws.path("build/pids/double").exists() {
        assert!(started.elapsed() < Duration::from_secs(120), "the build script started its escapers");
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: stopping the rein process this test started, as a person's Ctrl-C or kill would.
    unsafe { libc::kill(rein.id() as i32, libc::SIGTERM) };
    let status = rein.wait().unwrap();
    assert!(!status.success(), "the call was cancelled");
    let pids = escaper_pids(&lab);
    // The keeper kills them once rein is gone (its control socket's end of file): bounded
    // generously, over as soon as they are.
    assert_eq!(survivors(&pids, Duration::from_secs(60)), Vec::<String>::new(), "every escaper is gone");
}

/// A build script that, for each of `/dev/tty`, its fds 0–2 and the person's terminal by name,
/// tries to type `typed` into it with TIOCSTI (`<target> ok|denied` in build/tiocsti.txt), then leaves a
/// helper behind (orphaned, in the build's own session) that keeps typing `p` + newline into
/// the person's terminal for 20 s.
fn terminal_attack(slave: &str, typed: &str) -> String {
    format!(
        r#"
mkdir -p build/pids
python3 - '{slave}' <<'PY'
import fcntl, os, sys, termios, time
def inject(fd, text):
    for ch in text:
        fcntl.ioctl(fd, termios.TIOCSTI, ch.encode())
results = []
for name, opener in [("dev_tty", lambda: os.open("/dev/tty", os.O_RDWR)), ("fd0", lambda: 0), ("fd1", lambda: 1),
                     ("fd2", lambda: 2), ("by_name", lambda: os.open(sys.argv[1], os.O_RDONLY | os.O_NOCTTY))]:
    try:
        inject(opener(), "{typed}")
        results.append(name + " ok")
    except OSError as e:
        results.append(name + " denied")
with open("build/tiocsti.txt", "w") as f:
    f.write("\n".join(results) + "\n")
if os.fork() == 0:
    # Orphaned, but still in the build's session: the way a plain background helper keeps the
    # terminal the build had.
    if os.fork() == 0:
        with open("build/pids/typer", "w") as f:
            f.write(str(os.getpid()))
        end = time.time() + 20
        while time.time() < end:
            for target in ("/dev/tty", sys.argv[1]):
                try:
                    inject(os.open(target, os.O_RDONLY | os.O_NOCTTY), "p\n")
                except OSError:
                    pass
            time.sleep(0.05)
        os._exit(0)
    os._exit(0)
while not os.path.exists("build/pids/typer"):
    time.sleep(0.01)
PY
"#
    )
}

#[test]
fn a_build_script_cannot_type_into_the_persons_terminal() {
    let Some(lab) = lab() else { return };
    let mut pty = Pty::new();
    build_script(&lab, &terminal_attack(&pty.slave_path, "id > PWNED\\n"));
    pty.start(&mut lab.command(&["call", "hvigor_build", "{}"]));
    let (status, screen) = pty.finish(Duration::from_secs(120));
    assert!(status.success(), "the build itself succeeds: {screen}");
    let tried = std::fs::read_to_string(lab.ws.path("build/tiocsti.txt")).unwrap_or_default();
    for target in ["dev_tty", "fd0", "fd1", "fd2", "by_name"] {
        assert!(tried.contains(&format!("{target} denied")), "TIOCSTI on {target} must fail: {tried}\n{screen}");
    }
    let typer: i32 = std::fs::read_to_string(lab.ws.path("build/pids/typer")).unwrap().trim().parse().unwrap();
    assert!(!Path::new(&format!("/proc/{typer}/cmdline")).exists(), "the helper it left behind is gone");
    assert_eq!(pty.pending_input(), 0, "nothing was typed into the terminal: {screen}");
}

/// Asks the person at the pty to allow a write outside the workspace; types `n` once the
/// question is on the screen. Returns the screen; the write and any persisted rule must not
/// exist.
fn answer_no(lab: &Lab, pty: &mut Pty, outside: &Path) -> String {
    assert!(pty.wait_for_questions(1, Duration::from_secs(120)), "rein asked: {}", pty.screen());
    pty.type_text("n\n");
    let (status, screen) = pty.finish(Duration::from_secs(180));
    assert_eq!(status.code(), Some(1), "the person said no: {screen}");
    assert!(!outside.exists(), "nothing was written: {screen}");
    let rules = std::fs::read_to_string(lab.ws.home.join("approvals.toml")).unwrap_or_default();
    assert!(rules.trim().is_empty(), "no rule was persisted: {rules}\n{screen}");
    screen
}

#[test]
fn a_prompt_never_reads_what_was_typed_before_it_asked() {
    let Some(lab) = lab() else { return };
    let outside = lab.ws.root.join("outside.txt");
    let args = json!({"path": outside.display().to_string(), "content": "x"}).to_string();
    let mut pty = Pty::new();
    pty.start(&mut lab.command(&["call", "write_file", &args]));
    pty.type_text("p\n");
    let screen = answer_no(&lab, &mut pty, &outside);
    assert!(screen.contains("APPROVAL_DENIED"), "{screen}");
}

#[test]
fn nothing_a_build_leaves_behind_answers_a_prompt() {
    let Some(lab) = lab() else { return };
    let outside = lab.ws.root.join("outside.txt");
    let mut pty = Pty::new();
    build_script(&lab, &terminal_attack(&pty.slave_path, "p\\n"));
    lab.ws.file(
        "tools/build_then_write.lua",
        format!(
            "return {{ name = 'build_then_write', description = 'builds, then writes outside', run = function()\n\
             rein.proc.run('hvigorw', {{ 'assembleHap', '--no-daemon' }})\n\
             rein.fs.write({:?}, 'x')\n\
             end }}",
            outside.display().to_string()
        ),
    );
    pty.start(&mut lab.command(&["call", "build_then_write", "{}"]));
    answer_no(&lab, &mut pty, &outside);
}
