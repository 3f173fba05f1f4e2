//! What the fake hvigorw "compiles" of the project's ArkTS: the markers a test writes into an
//! `.ets` file (`REIN_FAKE_ARKTS_ERROR`, `REIN_FAKE_ARKTS_ERROR_ANY`, `REIN_FAKE_ARKTS_WARN`)
//! become ArkTS compiler errors and warnings in hvigor's words (shared/HARMONY.md §1, both
//! formats), and each ability's `onCreate()` hilog calls become what its code logs on the
//! device; and the project's build script, which hvigor runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use regex::Regex;
use serde_json::{json, Value};

use super::common::{conf_str, outln, Conf};
use super::hvigor::P;

const SKIP_DIRS: [&str; 7] = ["build", "oh_modules", "node_modules", ".hvigor", ".git", ".rein", ".idea"];

/// A marker: its kind (`ERROR`, `ERROR_ANY`, `WARN`), file, line and column (from 1).
pub struct Marker {
    kind: String,
    path: PathBuf,
    line: usize,
    column: usize,
}

/// Every marker in the `.ets` files under `root`, folders and files in name order.
pub fn scan_markers(root: &Path) -> Vec<Marker> {
    let marker = Regex::new(r"REIN_FAKE_ARKTS_(ERROR_ANY|ERROR|WARN)").expect("a valid pattern");
    let mut found = Vec::new();
    walk(root, &mut |path| {
        let Ok(bytes) = std::fs::read(path) else { return };
        let text = String::from_utf8_lossy(&bytes);
        for (n, line) in text.split_inclusive('\n').enumerate() {
            for m in marker.captures_iter(line) {
                let whole = m.get(0).expect("the match");
                let column = line[..whole.start()].chars().count() + 1;
                found.push(Marker { kind: m[1].to_string(), path: path.to_path_buf(), line: n + 1, column });
            }
        }
    });
    found
}

fn walk(dir: &Path, visit: &mut dyn FnMut(&Path)) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    let (dirs, files): (Vec<_>, Vec<_>) =
        entries.into_iter().partition(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()));
    for file in files.iter().filter(|f| f.extension().is_some_and(|e| e == "ets")) {
        visit(file);
    }
    for sub in dirs {
        let name = sub.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if !SKIP_DIRS.contains(&name.as_str()) && !name.starts_with('.') {
            walk(&sub, visit);
        }
    }
}

pub struct Blocks {
    pub warn_lines: Vec<String>,
    pub error_lines: Vec<String>,
    pub errors: usize,
    pub warns: usize,
}

/// The warning and error blocks in the format scenario.json chooses (`arkts_format: "old"`:
/// `ArkTS:ERROR File:` lines; else the numbered `ArkTS Compiler Error` blocks).
pub fn blocks(markers: &[Marker], conf: &Conf) -> Blocks {
    let errors: Vec<&Marker> = markers.iter().filter(|m| m.kind.starts_with("ERROR")).collect();
    let warns: Vec<&Marker> = markers.iter().filter(|m| m.kind == "WARN").collect();
    let mut warn_lines = Vec::new();
    if !warns.is_empty() {
        warn_lines.push(format!("{P}WARN: "));
        for (n, m) in warns.iter().enumerate() {
            warn_lines.push(format!("{} WARN: ArkTS:WARN File: {}:{}:{}", n + 1, m.path.display(), m.line, m.column));
            warn_lines.push(" 'pushUrl' has been deprecated.".into());
        }
    }
    let old = conf_str(conf, "arkts_format").as_deref() == Some("old");
    let mut error_lines = Vec::new();
    if !errors.is_empty() && !old {
        error_lines.push(format!("{P}ERROR: ArkTS Compiler Error"));
    }
    for (n, m) in errors.iter().enumerate() {
        let (code, msg) = if m.kind == "ERROR_ANY" {
            (10605008, "Use explicit types instead of \"any\", \"unknown\" (arkts-no-any-unknown)")
        } else {
            (10505001, "Cannot find name 'REIN_FAKE_ARKTS_ERROR'.")
        };
        let at = format!("{}:{}:{}", m.path.display(), m.line, m.column);
        if old {
            error_lines.extend([format!("{P}ERROR: ArkTS:ERROR File: {at}"), format!(" {msg}"), String::new()]);
        } else {
            if n > 0 {
                error_lines.push(String::new());
            }
            error_lines.push(format!("{} ERROR: {code} ArkTS Compiler Error", n + 1));
            error_lines.push(format!("Error Message: {msg} At File: {at}"));
        }
    }
    Blocks { warn_lines, error_lines, errors: errors.len(), warns: warns.len() }
}

/// The hilog lines an ability's `onCreate()` logs, read from its source: each
/// `hilog.<level>(DOMAIN, 'tag', 'format', 'arg')` call in the method's body, with a
/// `const NAME = 0x…` domain resolved. `None` when the source cannot be read.
fn on_create_logs(path: &Path) -> Option<Vec<Value>> {
    let text = std::fs::read_to_string(path).ok()?;
    let Some(body_start) = text.find("onCreate(").and_then(|start| text[start..].find('{').map(|b| start + b)) else {
        return Some(Vec::new());
    };
    let mut depth = 0i64;
    let mut end = text.len();
    for (i, c) in text[body_start..].char_indices() {
        depth += match c {
            '{' => 1,
            '}' => -1,
            _ => 0,
        };
        if depth == 0 {
            end = body_start + i;
            break;
        }
    }
    let call = Regex::new(
        r"hilog\.(debug|info|warn|error|fatal)\(\s*(\w+)\s*,\s*'([^']*)'\s*,\s*'([^']*)'\s*(?:,\s*'([^']*)'\s*)?\)",
    )
    .expect("a valid pattern");
    let constant = Regex::new(r"const\s+(\w+)\s*(?::\s*\w+)?\s*=\s*(0x[0-9a-fA-F]+|\d+)").expect("a valid pattern");
    let consts: BTreeMap<&str, &str> =
        constant.captures_iter(&text).map(|c| (c.get(1).unwrap().as_str(), c.get(2).unwrap().as_str())).collect();
    // A device prints "<private>" for an argument without {public} (hiviewdfx_hilog @d3ab8814
    // interfaces/js/kits/napi/src/hilog/src/hilog_napi_base.cpp ParseLogContent, PRIV_STR).
    let placeholder = Regex::new(r"%\{public\}[sd]|%\{private\}[sd]|%[sd]").expect("a valid pattern");
    let mut logs = Vec::new();
    for c in call.captures_iter(&text[body_start..end]) {
        let level = match &c[1] {
            "debug" => "D",
            "info" => "I",
            "warn" => "W",
            "error" => "E",
            _ => "F",
        };
        let domain = consts.get(&c[2]).copied().unwrap_or(&c[2]);
        let domain = match domain.strip_prefix("0x") {
            Some(hex) => i64::from_str_radix(hex, 16).unwrap_or(0),
            None => domain.parse::<i64>().unwrap_or(0),
        };
        let (format, arg) = (&c[4], c.get(5).map(|a| a.as_str()).unwrap_or(""));
        let message =
            if arg.is_empty() {
                format.to_string()
            } else {
                placeholder
                    .replace_all(format, |m: &regex::Captures| {
                        if m[0].starts_with("%{public}") {
                            arg.to_string()
                        } else {
                            "<private>".into()
                        }
                    })
                    .into_owned()
            };
        logs.push(json!({"level": level, "domain": domain, "tag": &c[3], "message": message}));
    }
    Some(logs)
}

/// Each ability's onCreate lines, read from its source (the fake compiler's output).
pub fn abilities_logs(module: &Value, src: &Path) -> BTreeMap<String, Vec<Value>> {
    let mut logs = BTreeMap::new();
    for a in module.get("abilities").and_then(Value::as_array).into_iter().flatten() {
        let entry = a.get("srcEntry").and_then(Value::as_str).unwrap_or("");
        if let Some(found) = on_create_logs(&src.join("src").join("main").join(entry)) {
            logs.insert(a.get("name").and_then(Value::as_str).unwrap_or("None").to_string(), found);
        }
    }
    logs
}

/// The project's code as a list of writes, for every OS (Windows has no /bin/sh): each line
/// `<name> <path>` of a `/* REIN_FAKE_BUILD_WRITES ... */` comment of hvigorfile.ts is one
/// attempt, made by hvigorw itself, to append a line to `<path>` (relative to the project root;
/// a leading `$NAME` is that environment variable), its folders made first; hvigorw prints
/// `<name> ok` or `<name> denied` (tests/fakes/README.md).
fn run_build_writes(root: &Path, text: &str) {
    let writes = Regex::new(r"(?s)/\*\s*REIN_FAKE_BUILD_WRITES\n(.*?)\*/").expect("a valid pattern");
    let Some(found) = writes.captures(text) else { return };
    for line in found[1].lines().map(str::trim).filter(|l| !l.is_empty()) {
        let Some((name, path)) = line.split_once(' ') else { continue };
        let path = match path.strip_prefix('$').and_then(|p| p.split_once(['/', '\\'])) {
            Some((var, rest)) => PathBuf::from(std::env::var_os(var).unwrap_or_default()).join(rest),
            None => root.join(path),
        };
        let written = path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| {
            use std::io::Write;
            std::fs::OpenOptions::new().create(true).append(true).open(&path)?.write_all(b"written by the build\n")
        });
        outln(&format!("{name} {}", if written.is_ok() { "ok" } else { "denied" }));
    }
}

/// Runs the project's code the way hvigor runs hvigorfile.ts: as a child of hvigorw, in the
/// project root, before the tasks. The fake cannot run TypeScript, so the code is a POSIX shell
/// script in a `/* REIN_FAKE_BUILD_SCRIPT ... */` comment of hvigorfile.ts (tests/fakes/README.md);
/// its output goes to hvigorw's, and its exit status is ignored, as a plugin's background work
/// would be. Where there is no /bin/sh (Windows), hvigorw says so on stderr and builds on.
pub fn run_build_script(root: &Path) {
    let Ok(text) = std::fs::read_to_string(root.join("hvigorfile.ts")) else { return };
    run_build_writes(root, &text);
    let script = Regex::new(r"(?s)/\*\s*REIN_FAKE_BUILD_SCRIPT\n(.*?)\*/").expect("a valid pattern");
    let Some(found) = script.captures(&text) else { return };
    let ran = std::process::Command::new("/bin/sh").arg("-c").arg(&found[1]).current_dir(root).status();
    if let Err(e) = ran {
        super::common::errln(&format!("fake hvigorw: the build script needs /bin/sh: {e}"));
    }
}
