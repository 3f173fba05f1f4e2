//! What the fake hvigorw builds of each module: `assembleHap` packages the entry and feature
//! modules as `.hap`, `assembleHsp` the shared ones as `.hsp` (shared/HARMONY.md §1, the tasks;
//! a module's `type` in its module.json5, §2), each as
//! `<module>/build/<product>/outputs/<target>/<module>-<target>-{unsigned,signed}.<ext>`.
//!
//! A module that depends on a shared module of the project (`"library": "file:../library"` in
//! its oh-package.json5) gets `{"moduleName": "library"}` in the `dependencies` of its
//! module.json: the field the device's installer checks (bundlemanager_bundle_framework
//! `bundle_install_checker.cpp` `CheckDependency`).

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{json, Value};

use super::hvigor_build::{module_dir, normalize};

fn kind_of(module: &Value) -> &str {
    module.get("type").and_then(Value::as_str).filter(|t| !t.is_empty()).unwrap_or("entry")
}

/// Whether `task` packages the module whose module.json5 `module` object is `module`.
pub fn built_by(task: &str, module: &Value) -> bool {
    match task {
        "assembleHap" => ["entry", "feature"].contains(&kind_of(module)),
        "assembleHsp" => kind_of(module) == "shared",
        _ => false,
    }
}

pub fn extension(module: &Value) -> &'static str {
    if kind_of(module) == "shared" {
        ".hsp"
    } else {
        ".hap"
    }
}

fn load(path: &Path) -> Value {
    super::json5::load_file(path).unwrap_or(json!({}))
}

/// The project's shared modules that the module in `src` names in its oh-package.json5.
pub fn dependencies(root: &Path, profile: &Value, src: &Path) -> Vec<Value> {
    let package = load(&src.join("oh-package.json5"));
    let wanted = package.get("dependencies").and_then(Value::as_object).cloned().unwrap_or_default();
    let folders: BTreeSet<_> = wanted
        .values()
        .filter_map(Value::as_str)
        .filter_map(|spec| spec.strip_prefix("file:"))
        .map(|rel| normalize(&src.join(rel)))
        .collect();
    let mut deps = Vec::new();
    for m in profile.get("modules").and_then(Value::as_array).into_iter().flatten() {
        let folder = module_dir(root, m);
        let manifest = load(&folder.join("src").join("main").join("module.json5"));
        if folders.contains(&folder) && kind_of(manifest.get("module").unwrap_or(&json!({}))) == "shared" {
            deps.push(json!({"moduleName": m.get("name")}));
        }
    }
    deps
}
