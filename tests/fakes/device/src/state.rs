//! The state directory the fakes share (tests/fakes/README.md "State directory"): small JSON
//! files tests write and read, `calls.log`, `scenario.json`, and the `.lock` that serialises
//! read-modify-write between concurrent fakes (the Python ones take the same lock).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Map, Value};

pub struct State {
    dir: PathBuf,
}

/// Holds the state lock until dropped (nothing when the caller already holds it).
pub struct Locked(#[allow(dead_code)] Option<File>);

impl State {
    /// `REIN_FAKE_STATE`, else `<temp dir>/rein-fake-state`, as the Python fakes find it.
    pub fn from_env() -> State {
        let dir = match std::env::var_os("REIN_FAKE_STATE").filter(|v| !v.is_empty()) {
            Some(dir) => PathBuf::from(dir),
            None => std::env::temp_dir().join("rein-fake-state"),
        };
        let _ = std::fs::create_dir_all(&dir);
        State { dir }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// The exclusive lock on `.lock`, unless `REIN_FAKE_LOCK_HELD=1` says the fake that ran
    /// this one (the Python hdc) holds it already.
    pub fn lock(&self) -> Locked {
        if std::env::var("REIN_FAKE_LOCK_HELD").is_ok_and(|v| v == "1") {
            return Locked(None);
        }
        let file = OpenOptions::new().create(true).append(true).open(self.path(".lock"));
        Locked(file.ok().filter(|f| f.lock().is_ok()))
    }

    /// A state file; a missing, empty or blank file is `default`.
    pub fn read_json(&self, name: &str, default: Value) -> Value {
        match std::fs::read_to_string(self.path(name)) {
            Ok(text) if !text.trim().is_empty() => {
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", self.path(name).display()))
            }
            _ => default,
        }
    }

    /// Replaces a state file atomically, keys sorted, so a test reading meanwhile never sees
    /// half a file.
    pub fn write_json(&self, name: &str, value: &Value) {
        let path = self.path(name);
        let tmp = self.path(&format!("{name}.{}.tmp", std::process::id()));
        let text = serde_json::to_string_pretty(&sorted(value)).expect("JSON") + "\n";
        std::fs::write(&tmp, text).unwrap_or_else(|e| panic!("write {}: {e}", tmp.display()));
        replace(&tmp, &path);
    }

    pub fn append_line(&self, name: &str, value: &Value) {
        let line = serde_json::to_string(&sorted(value)).expect("JSON") + "\n";
        let mut file = OpenOptions::new().create(true).append(true).open(self.path(name)).expect("open a log");
        file.write_all(line.as_bytes()).expect("append to a log");
    }

    /// `scenario.json`'s `"all"` section overlaid by `program`'s.
    pub fn scenario(&self, program: &str) -> Map<String, Value> {
        let data = self.read_json("scenario.json", json!({}));
        let mut merged = data.get("all").and_then(Value::as_object).cloned().unwrap_or_default();
        if let Some(own) = data.get(program).and_then(Value::as_object) {
            merged.extend(own.clone());
        }
        merged
    }

    /// One line of `calls.log`: what ran, where, with which environment (as the Python fakes
    /// log theirs), plus the device it ran on.
    pub fn log_call(&self, program: &str, argv: &[String], device: &str) {
        let env: Map<String, Value> = std::env::vars().map(|(k, v)| (k, Value::String(v))).collect();
        let cwd = std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default();
        self.append_line(
            "calls.log",
            &json!({"program": program, "argv": argv, "cwd": cwd, "pid": std::process::id(),
                    "time": now_secs(), "env": env, "device": device}),
        );
    }
}

pub fn now_secs() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

/// `value` with every object's keys in order, whatever serde_json's map keeps.
pub fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&map[k]))).collect())
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// Renames `tmp` over `path`. Where renames lack POSIX semantics (Windows without them; Wine), a
/// file another process has open at that instant cannot be replaced (access denied): readers
/// hold it for a moment, so the rename is tried again for a bounded time.
fn replace(tmp: &std::path::Path, path: &std::path::Path) {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        match std::fs::rename(tmp, path) {
            Ok(()) => return,
            Err(e) if cfg!(windows) && e.kind() == std::io::ErrorKind::PermissionDenied => {
                if std::time::Instant::now() >= until {
                    panic!("replace {}: {e} (still open elsewhere after 5 s)", path.display());
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => panic!("replace {}: {e}", path.display()),
        }
    }
}
