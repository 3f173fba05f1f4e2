//! A module or a symbol looked up in the SDK's declarations: `@kit` files followed to the
//! module they re-export from (§8: kits only re-export), the overloads of a symbol with what
//! their JSDoc says.

use serde::Serialize;

use super::jsdoc::Doc;
use super::reader::{self, File};
use crate::error::closest_names;

/// Where declaration texts come from (the SDK on disk, through the kernel; a map in tests).
pub trait Source {
    /// The module's file (as shown) and text, if the SDK has it.
    fn module(&self, name: &str) -> Option<(String, String)>;
    /// The module names like `name` (its prefix) the SDK holds.
    fn modules_like(&self, name: &str) -> Vec<String>;
}

/// One declaration of the symbol (one overload).
#[derive(Debug, Clone, Serialize)]
pub struct Overload {
    pub kind: &'static str,
    pub signature: String,
    pub line: usize,
    /// The first API level ArkTS 1.1 code can use it at.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<u32>,
    /// Older SDKs' stacked blocks: how many there were above it.
    #[serde(skip_serializing_if = "is_one")]
    pub blocks: usize,
    pub doc: Doc,
}

fn is_one(n: &usize) -> bool {
    *n <= 1
}

#[derive(Debug, Clone, Serialize)]
pub struct Symbol {
    /// The module that declares it (after following a kit) and its file.
    pub module: String,
    pub file: String,
    /// The kit it was reached through.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via_kit: Option<String>,
    /// Its name in that file: `vibrator.startVibration`.
    pub name: String,
    pub overloads: Vec<Overload>,
    /// For a namespace, class, interface, struct or enum: the names inside it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Module {
    pub module: String,
    pub file: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kit: Option<String>,
    /// What a kit re-exports: (name, the module it comes from).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reexports: Vec<(String, String)>,
    /// The file's top-level names.
    pub names: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_export: Option<String>,
}

/// What is not there, and the names closest to it.
#[derive(Debug, Clone, Serialize)]
pub struct NotFound {
    pub missing: String,
    pub closest: Vec<String>,
}

/// A loaded module.
pub struct Loaded {
    pub module: String,
    pub file: String,
    pub parsed: File,
}

pub fn load(src: &dyn Source, name: &str) -> Result<Loaded, NotFound> {
    match src.module(name) {
        Some((file, text)) => Ok(Loaded { module: name.to_string(), file, parsed: reader::read(&text) }),
        None => {
            let like = src.modules_like(name);
            Err(NotFound { missing: name.to_string(), closest: closest_names(name, like.iter().map(String::as_str)) })
        }
    }
}

pub fn module(src: &dyn Source, name: &str) -> Result<Module, NotFound> {
    let loaded = load(src, name)?;
    let reexports = kit_exports(&loaded.parsed);
    Ok(Module {
        module: loaded.module,
        file: loaded.file,
        kit: loaded.parsed.kit.clone(),
        reexports,
        names: loaded.parsed.children("").into_iter().map(String::from).collect(),
        default_export: loaded.parsed.default_export.clone(),
    })
}

/// A kit's `export { … }` names with the module each is imported from.
fn kit_exports(file: &File) -> Vec<(String, String)> {
    file.exports
        .iter()
        .filter_map(|(local, exported)| source_of(file, local).map(|(from, _)| (exported.clone(), from)))
        .collect()
}

/// Where `local` is imported from in `file`: the module, and its name there (`None`: the
/// module's default export).
fn source_of(file: &File, local: &str) -> Option<(String, Option<String>)> {
    file.imports.iter().find_map(|import| {
        if import.default.as_deref() == Some(local) {
            return Some((import.from.clone(), None));
        }
        import.names.iter().find(|(_, l)| l == local).map(|(imported, _)| (import.from.clone(), Some(imported.clone())))
    })
}

/// `symbol` (dotted: `vibrator.startVibration`, or `startVibration` inside the module's
/// default namespace) in module `name`; a kit is followed to the module it re-exports from.
pub fn symbol(src: &dyn Source, name: &str, symbol: &str) -> Result<Symbol, NotFound> {
    let mut loaded = load(src, name)?;
    let mut path: Vec<String> = symbol.split('.').map(String::from).collect();
    let mut via_kit = None;
    for _ in 0..4 {
        let first = path[0].clone();
        let exported = loaded.parsed.exports.iter().find(|(_, e)| *e == first).map(|(l, _)| l.clone());
        let local = exported.unwrap_or(first.clone());
        let declared_here = loaded.parsed.decls.iter().any(|d| d.name == local);
        match source_of(&loaded.parsed, &local).filter(|_| !declared_here) {
            Some((from, imported)) if !from.starts_with('.') => {
                via_kit.get_or_insert(loaded.module.clone());
                let next = load(src, &from)?;
                let head = match imported {
                    Some(imported) => imported,
                    None => next.parsed.default_export.clone().unwrap_or(first),
                };
                path[0] = head;
                loaded = next;
            }
            _ => break,
        }
    }
    let mut wanted = path.join(".");
    if loaded.parsed.named(&wanted).next().is_none() {
        if let Some(default) = &loaded.parsed.default_export {
            let inside = format!("{default}.{wanted}");
            if loaded.parsed.named(&inside).next().is_some() {
                wanted = inside;
            }
        }
    }
    let overloads: Vec<Overload> = loaded
        .parsed
        .named(&wanted)
        .filter(|d| !d.doc.static_only())
        .map(|d| Overload {
            kind: d.kind,
            signature: d.signature.clone(),
            line: d.line,
            since: d.doc.first_level(),
            blocks: d.blocks,
            doc: d.doc.clone(),
        })
        .collect();
    if overloads.is_empty() {
        return Err(not_found_in(&loaded, &wanted));
    }
    let members = loaded.parsed.children(&wanted).into_iter().map(String::from).collect();
    Ok(Symbol { module: loaded.module, file: loaded.file, via_kit, name: wanted, overloads, members })
}

/// `wanted` is not in `loaded`: the closest names beside where it would be.
fn not_found_in(loaded: &Loaded, wanted: &str) -> NotFound {
    let (parent, last) = wanted.rsplit_once('.').unwrap_or(("", wanted));
    let siblings = loaded.parsed.children(parent);
    let closest = closest_names(last, siblings.iter().copied())
        .into_iter()
        .map(|n| if parent.is_empty() { n } else { format!("{parent}.{n}") })
        .collect();
    NotFound { missing: format!("{wanted} in {}", loaded.module), closest }
}

/// Which modules a bare symbol may be in: `vibrator.x` → `@ohos.vibrator`, `UIAbility` →
/// `@ohos.app.ability.UIAbility` (a module whose last word is the symbol's first), then HMS's.
pub fn modules_for(src: &dyn Source, symbol: &str) -> Vec<String> {
    let first = symbol.split('.').next().unwrap_or(symbol).to_ascii_lowercase();
    let mut out = Vec::new();
    for prefix in ["@ohos.x", "@hms.x"] {
        for module in src.modules_like(prefix) {
            if module.rsplit('.').next().is_some_and(|last| last.to_ascii_lowercase() == first) {
                out.push(module);
            }
        }
    }
    out
}
