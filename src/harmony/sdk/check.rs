//! An ArkTS file's SDK uses checked against the SDK and the project: an import or member the
//! SDK does not have is an error (with the closest names), one newer than the project's
//! `compatibleSdkVersion` a warning unless a documented guard holds it (`uses`), a deprecated
//! one a hint with its `@useinstead`, a permission `module.json5` does not request a warning.

use std::collections::HashMap;

use serde::Serialize;

use super::lookup::{self, Source};
use super::uses::{self, Use, Uses};

/// The project's side: its minimum SDK and the permissions its module requests.
#[derive(Debug, Clone, Default)]
pub struct Project {
    /// `compatibleSdkVersion`'s API level (`5.0.0(12)` → 12, `12` → 12).
    pub min_level: Option<u32>,
    /// Its version number for `since M.S.F(N)` APIs (`5.0.0(12)` → 50000).
    pub min_version: Option<u32>,
    pub permissions: Vec<String>,
}

impl Project {
    /// From `compatibleSdkVersion` as written (`"5.0.0(12)"` or `12`).
    pub fn min_sdk(written: &str) -> (Option<u32>, Option<u32>) {
        let written = written.trim();
        let level = written.parse().ok().or_else(|| {
            let open = written.find('(')?;
            written[open + 1..].strip_suffix(')')?.parse().ok()
        });
        (level, uses::version_number(written))
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// `error`, `warning` or `hint`.
    pub severity: &'static str,
    /// `unknown_module`, `unknown_name`, `newer_than_min_sdk`, `deprecated`, `permission`.
    pub rule: &'static str,
    pub line: usize,
    pub column: usize,
    pub message: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub closest: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replacement: Option<String>,
}

/// The distinct symbols and modules one check looks up: each is a parse of a module's
/// declarations, and the file is the agent's to write (20,000 uses, or 5,000 imports of one
/// module, kept a check busy for minutes).
const MAX_LOOKUPS: usize = 300;

/// Each module and symbol looked up once per check, and at most [`MAX_LOOKUPS`] of them.
struct Lookups<'s> {
    src: &'s dyn Source,
    done: HashMap<(String, String), Result<lookup::Symbol, lookup::NotFound>>,
    modules: HashMap<String, Result<(), lookup::NotFound>>,
    defaults: HashMap<String, Option<String>>,
}

impl Lookups<'_> {
    fn spent(&self) -> bool {
        self.done.len() + self.modules.len() >= MAX_LOOKUPS
    }

    /// Whether the SDK has the module, or None once the check has looked up as many as it may.
    fn module(&mut self, module: &str) -> Option<Result<(), lookup::NotFound>> {
        if let Some(known) = self.modules.get(module) {
            return Some(known.clone());
        }
        if self.spent() {
            return None;
        }
        let found = lookup::load(self.src, module).map(|_| ());
        self.modules.insert(module.to_string(), found.clone());
        Some(found)
    }

    /// The symbol, or None once the check has looked up as many as it may.
    fn symbol(&mut self, module: &str, path: &str) -> Option<Result<lookup::Symbol, lookup::NotFound>> {
        let key = (module.to_string(), path.to_string());
        if let Some(known) = self.done.get(&key) {
            return Some(known.clone());
        }
        if self.spent() {
            return None;
        }
        let found = lookup::symbol(self.src, module, path);
        self.done.insert(key, found.clone());
        Some(found)
    }

    /// The module's default export (read once per check).
    fn default_export(&mut self, module: &str) -> Option<String> {
        let src = self.src;
        self.defaults
            .entry(module.to_string())
            .or_insert_with(|| lookup::module(src, module).ok().and_then(|m| m.default_export))
            .clone()
    }
}

pub fn check(src: &dyn Source, text: &str, project: &Project) -> Vec<Finding> {
    let scanned = uses::scan(text);
    let mut out = Vec::new();
    let mut lookups = Lookups { src, done: HashMap::new(), modules: HashMap::new(), defaults: HashMap::new() };
    for at in &scanned.imports {
        let import = &at.import;
        let Some(loaded) = lookups.module(&import.from) else {
            out.push(stopped(at.line, at.column));
            out.sort_by_key(|f| (f.line, f.column));
            return out;
        };
        if let Err(missing) = loaded {
            out.push(Finding {
                severity: "error",
                rule: "unknown_module",
                line: at.line,
                column: at.column,
                message: format!("{} is not in the SDK", import.from),
                closest: missing.closest,
                replacement: None,
            });
            continue;
        }
        for (imported, _) in &import.names {
            if let Some(Err(missing)) = lookups.symbol(&import.from, imported) {
                out.push(unknown(
                    at.line,
                    at.column,
                    &format!("{imported} is not exported by {}", import.from),
                    missing,
                ));
            }
        }
    }
    for used in &scanned.uses {
        if !check_use(&mut lookups, &scanned, used, project, &mut out) {
            out.push(stopped(used.line, used.column));
            break;
        }
    }
    out.sort_by_key(|f| (f.line, f.column));
    out
}

/// Where the check stopped, having looked up as many names as it may.
fn stopped(line: usize, column: usize) -> Finding {
    Finding {
        severity: "warning",
        rule: "too_many_names",
        line,
        column,
        message: format!(
            "api_check stopped here: it judges at most {MAX_LOOKUPS} distinct SDK modules and names per file; split the file to check the rest"
        ),
        closest: Vec::new(),
        replacement: None,
    }
}

fn unknown(line: usize, column: usize, message: &str, missing: lookup::NotFound) -> Finding {
    Finding {
        severity: "error",
        rule: "unknown_name",
        line,
        column,
        message: message.to_string(),
        closest: missing.closest,
        replacement: None,
    }
}

/// `local.a.b`: the import it comes from, then each member while it is a namespace, class,
/// interface or enum (past a function or property the chain is on a value rein does not type).
/// Judges one use; false when the check may look up no more names.
fn check_use(lookups: &mut Lookups, scanned: &Uses, used: &Use, project: &Project, out: &mut Vec<Finding>) -> bool {
    let Some(at) = scanned.import_of(&used.local) else {
        return true;
    };
    let import = &at.import;
    let head = match scanned.imported_name(&used.local) {
        Some(imported) => imported.to_string(),
        None => match lookups.default_export(&import.from) {
            Some(default) => default,
            None => return true,
        },
    };
    let mut path = head;
    for member in &used.members {
        path = format!("{path}.{member}");
        let Some(result) = lookups.symbol(&import.from, &path) else { return false };
        let found = match result {
            Ok(found) => found,
            Err(missing) => {
                let shown = format!("{}.{}", used.local, used.members.join("."));
                out.push(unknown(
                    used.line,
                    used.column,
                    &format!("{shown}: {} does not exist", missing.missing),
                    missing,
                ));
                return true;
            }
        };
        judge(scanned, used, &found, project, out);
        if !found.overloads.iter().any(|o| matches!(o.kind, "namespace" | "class" | "interface" | "enum" | "struct")) {
            return true;
        }
    }
    true
}

fn judge(scanned: &Uses, used: &Use, found: &lookup::Symbol, project: &Project, out: &mut Vec<Finding>) {
    let first = found.overloads.iter().filter_map(|o| o.since).min();
    let doc = &found.overloads[0].doc;
    let versioned =
        found.overloads.iter().flat_map(|o| o.doc.since.iter()).filter_map(|s| uses::version_number(&s.text)).min();
    let newer = match (versioned, project.min_version) {
        (Some(need), Some(have)) => need > have,
        _ => matches!((first, project.min_level), (Some(need), Some(have)) if need > have),
    };
    if newer && !scanned.guarded(used, first, versioned, doc.syscap.as_deref()) {
        let since = found.overloads.iter().flat_map(|o| o.doc.since.first()).map(|s| s.text.clone()).next();
        out.push(Finding {
            severity: "warning",
            rule: "newer_than_min_sdk",
            line: used.line,
            column: used.column,
            message: format!(
                "{} is available since {} but compatibleSdkVersion is lower: guard it (if (deviceInfo.sdkApiVersion >= {}) {{ … }}, or canIUse('{}')) or raise compatibleSdkVersion",
                found.name,
                since.unwrap_or_default(),
                first.map_or("N".to_string(), |l| l.to_string()),
                doc.syscap.as_deref().unwrap_or("SystemCapability.…"),
            ),
            closest: Vec::new(),
            replacement: None,
        });
    }
    if found.overloads.iter().all(|o| o.doc.deprecated.is_some()) {
        let replacement = found.overloads.iter().find_map(|o| o.doc.useinstead.clone());
        out.push(Finding {
            severity: "hint",
            rule: "deprecated",
            line: used.line,
            column: used.column,
            message: format!(
                "{} is deprecated since API {}{}",
                found.name,
                doc.deprecated.unwrap_or(0),
                replacement.as_ref().map(|r| format!("; use {r}")).unwrap_or_default()
            ),
            closest: Vec::new(),
            replacement,
        });
    }
    let needs: Vec<_> = found.overloads.iter().flat_map(|o| o.doc.permissions.iter()).collect();
    if let Some(permission) = needs.first() {
        let (names, any) = permission.names();
        let have = |n: &String| project.permissions.iter().any(|p| p == n);
        let ok = if any { names.iter().any(have) } else { names.iter().all(have) };
        if !ok && !names.is_empty() {
            out.push(Finding {
                severity: "warning",
                rule: "permission",
                line: used.line,
                column: used.column,
                message: format!(
                    "{} needs {}, which module.json5 does not request: add it to module.requestPermissions",
                    found.name, permission.text
                ),
                closest: Vec::new(),
                replacement: None,
            });
        }
    }
}
