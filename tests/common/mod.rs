//! Shared helpers for the integration tests: a workspace fixture, a runner for the `rein`
//! binary's `--json` contract, and a snapshot that proves a refusal changed nothing on disk.

#![allow(dead_code)]

pub mod lab;
#[cfg(target_os = "linux")]
pub mod peak;
#[cfg(target_os = "linux")]
pub mod pty;
pub mod raw_server;
pub mod real_tools;
#[cfg(target_os = "linux")]
pub mod rig;
pub mod signing;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, SystemTime};

use serde_json::Value;
use sha2::{Digest, Sha256};

pub const REIN: &str = env!("CARGO_BIN_EXE_rein");

/// A temp directory holding a workspace `ws/` and a home `home/` (plus whatever a test puts
/// next to them, e.g. `outside/` or a sibling `ws2/`). All paths are canonical.
pub struct Workspace {
    _dir: tempfile::TempDir,
    /// The temp directory that holds `ws/` and `home/`.
    pub root: PathBuf,
    pub ws: PathBuf,
    pub home: PathBuf,
}

impl Workspace {
    pub fn new() -> Workspace {
        Workspace::new_in(&std::env::temp_dir())
    }

    /// A workspace whose temp directory lives under `parent` (e.g. outside `/tmp`, which every
    /// confined program may write).
    pub fn new_in(parent: &Path) -> Workspace {
        serve_hdc_to_this_process();
        std::fs::create_dir_all(parent).expect("create the parent of the temp dir");
        let dir = tempfile::Builder::new().prefix("rein-it-").tempdir_in(parent).expect("create temp dir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical temp dir");
        let ws = root.join("ws");
        let home = root.join("home");
        std::fs::create_dir(&ws).expect("create ws");
        std::fs::create_dir(&home).expect("create home");
        Workspace { _dir: dir, root, ws, home }
    }

    /// `rel` inside the workspace.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.ws.join(rel)
    }

    /// Writes `bytes` to `rel` inside the workspace (creating parents) and returns its path.
    pub fn file(&self, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parents");
        }
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        path
    }

    /// Writes `bytes` to `rel` relative to the temp root (outside the workspace).
    pub fn outside_file(&self, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.root.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parents");
        }
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        path
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        let path = self.path(rel);
        std::fs::read(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
    }

    /// `rein --workspace WS --home HOME --json` with `args` appended, ready to run.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(REIN);
        cmd.arg("--workspace").arg(&self.ws).arg("--home").arg(&self.home).arg("--json");
        cmd.args(args);
        cmd.env_remove("REIN_HOME").env_remove("REIN_LOG");
        cmd.env("OHOS_HDC_SERVER_PORT", hdc_server_port().to_string());
        cmd
    }

    /// `rein --workspace WS --home HOME` with `args`, without `--json`: what a person sees.
    pub fn human_command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(REIN);
        cmd.arg("--workspace").arg(&self.ws).arg("--home").arg(&self.home);
        cmd.args(args);
        cmd.env_remove("REIN_HOME").env_remove("REIN_LOG").env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
        cmd.env("OHOS_HDC_SERVER_PORT", hdc_server_port().to_string());
        cmd
    }

    /// Runs [`Workspace::human_command`]: exit status, stdout, stderr.
    pub fn human(&self, args: &[&str]) -> (i32, String, String) {
        human(&mut self.human_command(args))
    }

    /// `rein call TOOL ARGS` with `--json`; see [`rein_json`].
    pub fn call(&self, tool: &str, args: &Value) -> (i32, Value) {
        rein_json(self, &["call", tool, &args.to_string()])
    }

    /// Like [`Workspace::call`] but passes the arguments on stdin (`call TOOL -`).
    pub fn call_stdin(&self, tool: &str, args: &Value) -> (i32, Value) {
        let mut cmd = self.command(&["call", tool, "-"]);
        run_json(&mut cmd, Some(args.to_string().as_bytes()))
    }

    /// Calls a tool that must succeed and returns its `result`.
    pub fn ok(&self, tool: &str, args: &Value) -> Value {
        let (code, out) = self.call(tool, args);
        assert_eq!(code, 0, "{tool} {args} should succeed, got {out}");
        out["result"].clone()
    }

    /// Calls a tool that must be refused with `code` (exit status 1, or 2 for usage errors)
    /// and returns the `error` object.
    pub fn refused(&self, tool: &str, args: &Value, code: &str) -> Value {
        let (status, out) = self.call(tool, args);
        assert_refusal(status, &out, code, &format!("{tool} {args}"));
        out["error"].clone()
    }

    /// `rein serve` on this workspace and home, with rein's own log level unset; the caller
    /// wires its stdio.
    pub fn serve_command(&self) -> Command {
        let mut command = Command::new(REIN);
        command.arg("--workspace").arg(&self.ws).arg("--home").arg(&self.home).arg("serve").env_remove("REIN_LOG");
        command.env("OHOS_HDC_SERVER_PORT", hdc_server_port().to_string());
        command
    }

    pub fn snapshot(&self) -> Snapshot {
        Snapshot::take(&self.root)
    }
}

/// Exit status the CLI contract promises for a refusal with `code`.
/// The port of a stand-in for the hdc server the person started (rein checks that one answers
/// before it runs hdc, and never lets hdc start one): a listener that accepts and closes, for the
/// whole test run. The fake hdc itself never connects to it; real-hdc tests start a real server.
pub fn hdc_server_port() -> u16 {
    static PORT: std::sync::OnceLock<u16> = std::sync::OnceLock::new();
    *PORT.get_or_init(|| {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port for the hdc stand-in");
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for connection in listener.incoming() {
                drop(connection);
            }
        });
        port
    })
}

/// Hosts built in this test process (embedding tests) find the hdc stand-in through this
/// process's own `OHOS_HDC_SERVER_PORT`, set once, at the first workspace a test makes.
fn serve_hdc_to_this_process() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| std::env::set_var("OHOS_HDC_SERVER_PORT", hdc_server_port().to_string()));
}

pub fn exit_status_for(code: &str) -> i32 {
    match code {
        "INVALID_ARGS" | "TOOL_NOT_FOUND" | "TOOL_INVALID" | "INVALID_CONFIG" => 2,
        _ => 1,
    }
}

pub fn assert_refusal(status: i32, out: &Value, code: &str, what: &str) {
    assert_eq!(out["ok"], Value::Bool(false), "{what} should be refused, got {out}");
    assert_eq!(out["error"]["code"], code, "{what}: wrong error code in {out}");
    assert_eq!(status, exit_status_for(code), "{what}: wrong exit status for {code}, output {out}");
    let message = out["error"]["message"].as_str().unwrap_or("");
    assert!(!message.is_empty(), "{what}: a refusal must carry a message, got {out}");
}

/// Runs `rein --workspace WS --home HOME --json ARGS` and returns the exit status and the one
/// JSON object the contract says stdout holds. Panics with stdout/stderr when stdout is not
/// exactly one JSON object, or when `ok` disagrees with the exit status.
pub fn rein_json(ws: &Workspace, args: &[&str]) -> (i32, Value) {
    run_json(&mut ws.command(args), None)
}

/// Runs a prepared command meant for people (no `--json`): exit status, stdout, stderr.
pub fn human(cmd: &mut Command) -> (i32, String, String) {
    let out = output_within(cmd, None, CALL_TIMEOUT);
    let status = out.status.code().unwrap_or_else(|| panic!("rein died by a signal: {:?}", out.status));
    (status, String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Runs a prepared `rein --json` command, feeding `stdin` when given. A run that has not
/// ended after [`CALL_TIMEOUT`] is killed and fails the test.
pub fn run_json(cmd: &mut Command, stdin: Option<&[u8]>) -> (i32, Value) {
    run_json_within(cmd, stdin, CALL_TIMEOUT)
}

/// Bound on one `rein` run, so a hang fails the test with a message instead of stalling it;
/// generous, as a loaded machine (several builds on two cores, java signing) can take minutes.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(300);

/// Like [`run_json`], with an explicit bound on how long rein may take.
pub fn run_json_within(cmd: &mut Command, stdin: Option<&[u8]>, timeout: Duration) -> (i32, Value) {
    let out = output_within(cmd, stdin, timeout);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let status =
        out.status.code().unwrap_or_else(|| panic!("rein died by a signal: {:?}\nstderr: {stderr}", out.status));
    let value: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| {
        panic!("stdout is not exactly one JSON object ({e})\nstatus {status}\nstdout: {stdout}\nstderr: {stderr}")
    });
    assert!(value.is_object(), "stdout must be a JSON object, got {value}");
    assert_eq!(
        value["ok"] == Value::Bool(true),
        status == 0,
        "exit status {status} disagrees with {value}\nstderr: {stderr}"
    );
    (status, value)
}

/// Starts `cmd`. Wine's CreateProcess fails now and then with ERROR_INTERNAL_ERROR (1359)
/// when several processes start at once (seen in CI under `.ci/wine`, never on Linux): that
/// one error is tried again, a few times; any other, or the same one persisting, fails the test.
pub fn spawn(cmd: &mut Command) -> std::process::Child {
    const WINE_INTERNAL_ERROR: i32 = 1359;
    let mut tries = 0;
    loop {
        match cmd.spawn() {
            Ok(child) => return child,
            Err(e) if cfg!(windows) && e.raw_os_error() == Some(WINE_INTERNAL_ERROR) && tries < 5 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(200));
            }
            Err(e) => panic!("spawn {:?}: {e}", cmd.get_program()),
        }
    }
}

/// Runs `cmd` to completion, or kills it and panics once `timeout` has passed.
pub fn output_within(cmd: &mut Command, stdin: Option<&[u8]>, timeout: Duration) -> Output {
    cmd.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = spawn(cmd);
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().expect("stdin pipe");
        let bytes = bytes.to_vec();
        // A thread, so a child that stops reading early cannot deadlock us.
        std::thread::spawn(move || {
            let _ = pipe.write_all(&bytes);
        });
    }
    let pid = child.id();
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(child.wait_with_output());
    });
    match finished.recv_timeout(timeout) {
        Ok(out) => out.expect("wait for rein"),
        Err(_) => {
            // SAFETY: kill(2) has no memory effects. The waiter has not answered, so the child
            // is almost surely unreaped and the pid still ours (only a child exiting at this
            // very instant could free it).
            kill(pid);
            let out = finished.recv().expect("waiter thread").expect("wait for rein");
            panic!(
                "rein did not finish within {timeout:?} and was killed: {cmd:?}\nstdout: {}\nstderr: {}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    format!("{:x}", Sha256::digest(bytes))
}

/// What a snapshot remembers about one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Dir { mode: u32 },
    File { bytes: Vec<u8>, mode: u32, mtime: SystemTime, ino: u64 },
    Symlink { target: PathBuf },
    Other { mode: u32 },
}

impl Entry {
    fn short(&self) -> String {
        match self {
            Entry::Dir { mode } => format!("dir {mode:o}"),
            Entry::File { bytes, mode, mtime, ino } => format!(
                "file {} bytes sha256 {} mode {mode:o} mtime {mtime:?} ino {ino}",
                bytes.len(),
                &sha256_hex(bytes)[..12]
            ),
            Entry::Symlink { target } => format!("symlink -> {}", target.display()),
            Entry::Other { mode } => format!("special {mode:o}"),
        }
    }
}

/// Every entry under a directory (not following symlinks): files with their bytes, mode, mtime
/// and inode (so a replaced file with equal bytes still counts as changed), directories,
/// symlinks with their targets.
pub struct Snapshot {
    root: PathBuf,
    entries: BTreeMap<PathBuf, Entry>,
}

impl Snapshot {
    pub fn take(root: &Path) -> Snapshot {
        let mut entries = BTreeMap::new();
        walk(root, root, &mut entries);
        Snapshot { root: root.to_path_buf(), entries }
    }

    /// Panics listing every entry created, removed or changed since the snapshot.
    pub fn assert_unchanged(&self, context: &str) {
        let now = Snapshot::take(&self.root);
        let mut problems = Vec::new();
        for (path, before) in &self.entries {
            match now.entries.get(path) {
                None => problems.push(format!("removed {}: was {}", path.display(), before.short())),
                Some(after) if after != before => {
                    problems.push(format!("changed {}: {} -> {}", path.display(), before.short(), after.short()))
                }
                Some(_) => {}
            }
        }
        for (path, after) in &now.entries {
            if !self.entries.contains_key(path) {
                problems.push(format!("created {}: {}", path.display(), after.short()));
            }
        }
        assert!(
            problems.is_empty(),
            "{context}: files under {} changed:\n  {}",
            self.root.display(),
            problems.join("\n  ")
        );
    }
}

fn is_journal(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "journal")
        && path.parent().and_then(Path::file_name).is_some_and(|n| n == ".rein")
}

fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Entry>) {
    let mut children: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("list {}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .collect();
    children.sort();
    for path in children {
        // rein's own audit trail records refusals too; it is not a change to the project.
        if is_journal(&path) {
            continue;
        }
        let meta = std::fs::symlink_metadata(&path).expect("stat");
        let rel = path.strip_prefix(root).expect("under root").to_path_buf();
        if path.file_name().is_some_and(|n| n == ".rein") && meta.is_dir() {
            walk(root, &path, out);
            continue;
        }
        let mode = mode_of(&meta);
        let entry = if meta.file_type().is_symlink() {
            Entry::Symlink { target: std::fs::read_link(&path).expect("read link") }
        } else if meta.is_dir() {
            walk(root, &path, out);
            Entry::Dir { mode }
        } else if meta.is_file() {
            let bytes = std::fs::read(&path).expect("read file");
            Entry::File { bytes, mode, mtime: meta.modified().expect("mtime"), ino: ino_of(&meta) }
        } else {
            Entry::Other { mode }
        };
        out.insert(rel, entry);
    }
}

/// Size, mtime and inode of a file too big to snapshot byte by byte.
pub fn stamp(path: &Path) -> (u64, SystemTime, u64) {
    let meta = std::fs::metadata(path).expect("stat");
    (meta.len(), meta.modified().expect("mtime"), ino_of(&meta))
}

/// Names of entries in `dir` that look like temp files of an atomic write.
pub fn temp_debris(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("list dir")
        .map(|e| e.expect("dir entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains(".rein-tmp."))
        .collect()
}

/// Copies a directory tree (fixtures into a test's workspace).
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the copy");
    for entry in std::fs::read_dir(from).expect("list the source").flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy a file");
        }
    }
}

/// Pins the pack folder `source` (a `pack.toml` naming `name` at version 1.0.0) in the
/// workspace's rein.lock and installs it into home by hand, as `rein pack add` would, then
/// approves the policy files as a person would.
pub fn pin_local_pack(ws: &Workspace, name: &str, source: &Path) {
    let sha = rein::packs::hash::content_hash(source).unwrap();
    copy_dir(source, &ws.home.join("packs").join(name).join(&sha));
    ws.file(
        "rein.lock",
        format!(
            "[[pack]]\nname = \"{name}\"\nversion = \"1.0.0\"\nsource = {}\nsha256 = \"{sha}\"\n",
            toml_path(source)
        ),
    );
    approve_policy(ws);
}

/// Plays the person who reviews the project's policy files at a terminal and approves them as
/// they are (`rein approvals policy`), as after hand-editing rein.toml or rein.lock.
pub fn approve_policy(ws: &Workspace) {
    if cfg!(windows) {
        // No terminal to play there: the person's yes comes through the library, as an embedder's own
        // interface would give it.
        let host = rein::Host::builder().workspace(&ws.ws).home(&ws.home).build().expect("a host to review the policy");
        let review = host.policy_review().expect("the policy review");
        host.approve_policy(&review).expect("approving the policy files");
        return;
    }
    let command =
        format!("{REIN} --workspace {} --home {} --json approvals policy", ws.ws.display(), ws.home.display());
    let screen = in_terminal(&command, "yes\n");
    assert!(screen.contains("\"ok\":true"), "approving the policy files: {screen}");
}

/// Whether these tests run under Wine (its ntdll exports `wine_get_version`), for the few
/// tests Wine cannot judge; each says so when it skips.
#[cfg(windows)]
pub fn under_wine() -> bool {
    #[link(name = "kernel32")]
    extern "system" {
        fn GetModuleHandleA(name: *const u8) -> *mut std::ffi::c_void;
        fn GetProcAddress(module: *mut std::ffi::c_void, name: *const u8) -> *mut std::ffi::c_void;
    }
    // SAFETY: NUL-terminated names; ntdll is loaded in every Windows process.
    unsafe {
        let ntdll = GetModuleHandleA(c"ntdll.dll".as_ptr().cast());
        !ntdll.is_null() && !GetProcAddress(ntdll, c"wine_get_version".as_ptr().cast()).is_null()
    }
}

#[cfg(not(windows))]
pub fn under_wine() -> bool {
    false
}

/// `path` as a TOML string, quoted and escaped: the `\` of a Windows path would otherwise
/// start an escape.
pub fn toml_path(path: &Path) -> String {
    toml::Value::String(path.to_string_lossy().into_owned()).to_string()
}

#[cfg(target_os = "linux")]
pub use pty::in_terminal;

/// Runs `command` under util-linux `script`, typing `input` at once (where there is no pty
/// helper; these tests run on Linux).
#[cfg(not(target_os = "linux"))]
pub fn in_terminal(command: &str, input: &str) -> String {
    let mut cmd = Command::new("script");
    cmd.args(["-qec", command, "/dev/null"]);
    let out = output_within(&mut cmd, Some(input.as_bytes()), Duration::from_secs(60));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The first `sh` block after `heading` in the repository's `file` (README.md,
/// tests/fakes/README.md): commands a reader is told to run, for a test to run as written.
pub fn shell_block(file: &str, heading: &str) -> String {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).unwrap();
    let section = text.split(heading).nth(1).unwrap_or_else(|| panic!("{file} has a section {heading:?}"));
    let block = section.split("```sh\n").nth(1).and_then(|s| s.split("```").next());
    block.unwrap_or_else(|| panic!("{file}: {heading:?} has a shell block")).to_string()
}

/// Runs `command` under a pseudo-terminal like [`in_terminal`], but plays a person who reads
/// first: once `prompt` is on the screen, `meanwhile` runs (e.g. an agent changing a file while
/// the person reads), and only then is `answer` typed. What the screen showed, to the end.
pub fn answer_in_terminal_after(command: &str, prompt: &str, meanwhile: impl FnOnce(), answer: &str) -> String {
    use std::io::Read;
    let mut child = Command::new("script")
        .args(["-qec", command, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn script");
    let mut stdout = child.stdout.take().expect("stdout pipe");
    let (chunks, screen_parts) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = stdout.read(&mut buf) {
            if chunks.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut screen = Vec::new();
    let read_until = |done: &dyn Fn(&str) -> bool, screen: &mut Vec<u8>| {
        while !done(&String::from_utf8_lossy(screen)) {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match screen_parts.recv_timeout(left) {
                Ok(bytes) => screen.extend(bytes),
                Err(_) => return false,
            }
        }
        true
    };
    if !read_until(&|text| text.contains(prompt), &mut screen) {
        kill(child.id());
        panic!("{prompt:?} never showed within 60 s: {}", String::from_utf8_lossy(&screen));
    }
    meanwhile();
    let mut stdin = child.stdin.take().expect("stdin pipe");
    stdin.write_all(answer.as_bytes()).expect("type the answer");
    // Nothing more is typed: a second question reads the end of input, as with `in_terminal`.
    drop(stdin);
    // The screen ends when the command does (the reader thread then drops its sender).
    read_until(&|_| false, &mut screen);
    if std::time::Instant::now() >= deadline {
        kill(child.id());
        panic!("{command} did not end within 60 s of the answer: {}", String::from_utf8_lossy(&screen));
    }
    let _ = child.wait();
    String::from_utf8_lossy(&screen).into_owned()
}

/// Runs git in `dir` with no user configuration, hooks or fsmonitor, as a fixed author;
/// its trimmed stdout.
pub fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Stops process `pid` at once.
fn kill(pid: u32) {
    #[cfg(unix)]
    // SAFETY: kill(2) has no memory effects. The waiter has not answered, so the child is
    // almost surely unreaped and the pid still ours (only a child exiting at this very instant
    // could free it).
    unsafe {
        libc::kill(pid as i32, libc::SIGKILL);
    }
    #[cfg(windows)]
    let _ = Command::new("taskkill").args(["/F", "/T", "/PID", &pid.to_string()]).status();
}

/// Permission bits (Windows: read-only or not, as 0o444 / 0o666).
fn mode_of(meta: &std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o7777
    }
    #[cfg(windows)]
    {
        if meta.permissions().readonly() {
            0o444
        } else {
            0o666
        }
    }
}

/// The file's inode (Windows: none that std exposes; size and mtime must tell).
fn ino_of(meta: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        std::os::unix::fs::MetadataExt::ino(meta)
    }
    #[cfg(windows)]
    {
        let _ = meta;
        0
    }
}

/// Every line of the workspace's journal (`.rein/journal/*.jsonl`), in file-name order.
pub fn journal_text(workspace: &Path) -> String {
    let mut files: Vec<PathBuf> = std::fs::read_dir(workspace.join(".rein/journal"))
        .map(|entries| {
            entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "jsonl")).collect()
        })
        .unwrap_or_default();
    files.sort();
    files.iter().map(|f| std::fs::read_to_string(f).unwrap_or_default()).collect()
}

/// The journal's entries whose `action` is `action` (every entry when `None`), in order. Lines
/// that are not JSON are left out: the unconfined builds of the confinement tests forge some.
pub fn journal_entries(workspace: &Path, action: Option<&str>) -> Vec<serde_json::Value> {
    journal_text(workspace)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| action.is_none_or(|a| e["action"] == a))
        .collect()
}
