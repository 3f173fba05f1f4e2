//! What every host fake does first (tests/fakes/README.md "Common behaviours"): log its
//! invocation to `calls.log`, then, when scenario.json (or a `REIN_FAKE_*` variable) asks and its
//! `match` fits the command line, ignore SIGTERM, write `spam_bytes` of output, start a child and
//! sleep. Output is written as bytes and flushed at once, so `\r\n`, trailing spaces and the
//! order of stdout and stderr reach the caller as they are.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::state::{now_secs, State};

pub type Conf = Map<String, Value>;

const SPAM_BEGIN: &[u8] = b"REIN_FAKE_SPAM_BEGIN\n";
const SPAM_END: &[u8] = b"REIN_FAKE_SPAM_END\n";

pub fn out(text: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();
}

pub fn err(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_bytes());
    let _ = stderr.flush();
}

pub fn outln(text: &str) {
    out(&format!("{text}\n"));
}

pub fn errln(text: &str) {
    err(&format!("{text}\n"));
}

/// A scenario value as text (`"5.0.8"`, `3512`, `true`), or `None` when unset.
pub fn conf_str(conf: &Conf, key: &str) -> Option<String> {
    match conf.get(key)? {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// A scenario number (a JSON number or a numeric string), else `default`.
pub fn conf_i64(conf: &Conf, key: &str, default: i64) -> i64 {
    conf_str(conf, key).and_then(|v| v.parse::<f64>().ok()).map(|v| v as i64).unwrap_or(default)
}

pub fn truthy(value: &str) -> bool {
    matches!(value.to_ascii_lowercase().as_str(), "1" | "true")
}

/// A path as the real tools see it: relative to the current directory, not normalised.
pub fn resolve(path: &str) -> PathBuf {
    let p = Path::new(path);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    }
}

/// Log, then the common behaviours.
pub fn start(state: &State, program: &str, argv: &[String]) {
    let env: Map<String, Value> = std::env::vars().map(|(k, v)| (k, Value::String(v))).collect();
    let cwd = std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default();
    state.append_line(
        "calls.log",
        &json!({"program": program, "argv": argv, "cwd": cwd, "pid": std::process::id(),
                "time": now_secs(), "env": env}),
    );
    behave(state, program, argv);
}

/// The variable `env_name` when set and not empty, else scenario.json's `key`.
fn setting(env_name: &str, conf: &Conf, key: &str) -> Option<String> {
    std::env::var(env_name).ok().filter(|v| !v.is_empty()).or_else(|| conf_str(conf, key))
}

fn behave(state: &State, program: &str, argv: &[String]) {
    let conf = state.scenario(program);
    if let Some(wanted) = setting("REIN_FAKE_MATCH", &conf, "match").filter(|m| !m.is_empty()) {
        if !argv.join(" ").contains(&wanted) {
            return;
        }
    }
    if setting("REIN_FAKE_IGNORE_TERM", &conf, "ignore_term").is_some_and(|v| truthy(&v)) {
        ignore_term();
    }
    let number = |env_name, key| setting(env_name, &conf, key).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    let spam = number("REIN_FAKE_SPAM_BYTES", "spam_bytes") as usize;
    let stream = setting("REIN_FAKE_SPAM_STREAM", &conf, "spam_stream").unwrap_or_else(|| "stdout".into());
    write_spam(spam, &stream);
    let sleep_ms = number("REIN_FAKE_SLEEP_MS", "sleep_ms");
    if sleep_ms <= 0.0 {
        return;
    }
    if setting("REIN_FAKE_CHILD", &conf, "spawn_child").is_some_and(|v| truthy(&v)) {
        spawn_child(state, program, sleep_ms / 1000.0 + 30.0);
    }
    std::thread::sleep(std::time::Duration::from_secs_f64(sleep_ms / 1000.0));
}

#[cfg(unix)]
fn ignore_term() {
    // SAFETY: SIG_IGN for SIGTERM, before any thread exists.
    unsafe { libc::signal(libc::SIGTERM, libc::SIG_IGN) };
}

/// Windows has no SIGTERM: a program there is ended, never asked.
#[cfg(not(unix))]
fn ignore_term() {}

/// Exactly `total` bytes: a BEGIN line, numbered filler lines of 100 bytes, an END line.
fn write_spam(total: usize, stream: &str) {
    if total == 0 {
        return;
    }
    let mut bytes = Vec::with_capacity(total);
    let body = total as isize - (SPAM_BEGIN.len() + SPAM_END.len()) as isize;
    if body < 0 {
        bytes.extend_from_slice(&[SPAM_BEGIN, SPAM_END].concat()[..total]);
    } else {
        let line = [b"spam ".as_slice(), &[b'x'; 94], b"\n"].concat();
        bytes.extend_from_slice(SPAM_BEGIN);
        bytes.extend(line.iter().cycle().take(body as usize));
        bytes.extend_from_slice(SPAM_END);
    }
    if stream != "stderr" {
        let _ = std::io::stdout().lock().write_all(&bytes).and_then(|()| std::io::stdout().flush());
    }
    if stream != "stdout" {
        let _ = std::io::stderr().lock().write_all(&bytes);
    }
}

/// A child that outlives its parent's sleep (`rein-fake-device sleep SECS`), recorded in
/// `children.log`, so a test sees whether what ended the fake ended its children too.
fn spawn_child(state: &State, program: &str, secs: f64) {
    let me = crate::host::install::device_program();
    // Never waited for: the child is meant to outlive this fake, which the test ends.
    #[allow(clippy::zombie_processes)]
    let child = std::process::Command::new(&me)
        .args(["sleep", &format!("{secs}")])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("start {}: {e}", me.display()));
    state.append_line("children.log", &json!({"program": program, "pid": std::process::id(), "child_pid": child.id()}));
}
