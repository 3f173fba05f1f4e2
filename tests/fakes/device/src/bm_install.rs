//! `bm install [-r] -p PATH…`: every package of every path (a folder gives each `.hap` and `.hsp`
//! in it) installed in one transaction, refused whole at the first check that fails, as the
//! real installer checks a set of packages:
//!
//! - paths: `openharmony/bundlemanager_bundle_tool` @00c4770 `frameworks/src/bundle_command.cpp`
//!   `RunAsInstallCommand` (each `-p` value and the words after it up to the next option are
//!   bundle paths, all handed to one `InstallOperation`); a folder installs "multiple HAPs in a
//!   specified directory" (openharmony/docs `application-dev/tools/bm-tool.md`, `-p`);
//! - checks, `openharmony/bundlemanager_bundle_framework` @31815fd9
//!   `services/bundlemgr/src/`: `bundle_install_checker.cpp` `CheckMultipleHapsSignInfo` →
//!   `CheckProvisionInfoIsValid` (every package signed alike, else 9568331),
//!   `base_bundle_installer.cpp` `CheckAppLabelInfo` (an HSP of a cross-app shared bundle given
//!   with `-p`: 9568314) and `bundle_install_checker.cpp` `CheckAppLabelInfo` (one bundle name:
//!   9568277; one versionCode: 9568278), `CheckDependency` (each module's `dependencies` must be
//!   among the packages installed now or the bundle's installed modules, else 9568305 with the
//!   result message `<module>'s dependent module: <dep> does not exist`);
//! - the output: `bundle_command.cpp` prints `error: failed to install bundle.`, then
//!   `GetMessageFromCode` (`code:<N>\n<message>\n`, `shell_command.cpp`), then the installer's
//!   result message on a line of its own when it has one and it does not start with `[`.

use serde_json::{json, Map, Value};

use crate::device::Device;
use crate::hap;
use crate::state::now_secs;

/// A refusal: the code, and the installer's result message (a line after bm's own message).
pub struct Refusal {
    pub code: i64,
    pub detail: Option<String>,
}

impl From<i64> for Refusal {
    fn from(code: i64) -> Refusal {
        Refusal { code, detail: None }
    }
}

/// One package being installed.
struct Package {
    path: String,
    signer: String,
    app: Value,
    module: Value,
    code: Value,
}

/// The package paths of `bm install`'s words: each `-p` value and the words after it up to the
/// next option, a folder replaced by the packages in it (sorted).
pub fn paths(words: &[String]) -> Vec<String> {
    let mut paths = Vec::new();
    let mut taking = false;
    for word in words.iter().skip(2) {
        if word.starts_with('-') {
            taking = word == "-p" || word == "--bundle-path";
        } else if taking {
            paths.extend(expand(word));
        }
    }
    paths
}

fn expand(path: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(path) else { return vec![path.to_string()] };
    let mut found: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "hap" || x == "hsp"))
        .map(|p| p.display().to_string())
        .collect();
    found.sort();
    found
}

/// Installs every package of `paths` or none.
pub fn install_all(paths: &[String], device: &mut Device) -> Result<(), Refusal> {
    if let Some(code) = device.flag("install_error").as_i64().filter(|c| *c != 0) {
        return Err(code.into());
    }
    // Emulators install unsigned HAPs; real devices need signing (shared/HARMONY-VERIFY.md §6
    // "Limits", §7 [OBS a public file]).
    let emulator = device.params().get("const.product.name").and_then(Value::as_str) == Some("emulator");
    let packages = paths.iter().map(|p| read(p, emulator)).collect::<Result<Vec<_>, i64>>()?;
    let first = packages.first().ok_or(9568269)?;
    if packages.iter().any(|p| p.signer != first.signer) {
        return Err(9568331.into());
    }
    if packages.iter().any(|p| p.app["bundleType"] == "shared") {
        return Err(9568314.into());
    }
    if packages.iter().any(|p| p.app["bundleName"] != first.app["bundleName"]) {
        return Err(9568277.into());
    }
    if packages.iter().any(|p| p.app["versionCode"] != first.app["versionCode"]) {
        return Err(9568278.into());
    }
    check_device(first, device)?;
    let bundle = first.app["bundleName"].as_str().unwrap_or("").to_string();
    check_dependencies(&packages, device.installed().get(&bundle))?;
    record(&bundle, &packages, device);
    Ok(())
}

fn read(path: &str, unsigned_ok: bool) -> Result<Package, i64> {
    let bytes = std::fs::read(path).map_err(|_| 9568269)?;
    let hap = hap::read(&bytes).map_err(|_| 9568337)?;
    let signer = match hap.signer {
        Ok(signer) => signer,
        Err(_) if unsigned_ok => "unsigned".to_string(),
        Err(_) => return Err(9568320),
    };
    let app = hap.module_json["app"].clone();
    let module = hap.module_json["module"].clone();
    Ok(Package { path: path.to_string(), signer, app, module, code: hap.code })
}

/// The device's API level and what is installed of the bundle already.
fn check_device(first: &Package, device: &Device) -> Result<(), Refusal> {
    let need = first.app["minAPIVersion"].as_i64();
    let have = device.params().get("const.ohos.apiversion").and_then(|v| v.as_str()?.parse::<i64>().ok());
    if let (Some(need), Some(have)) = (need, have) {
        if need > have {
            return Err(9568297.into());
        }
    }
    let bundle = first.app["bundleName"].as_str().unwrap_or("");
    if let Some(old) = device.installed().get(bundle) {
        if old.get("signer").and_then(Value::as_str) != Some(first.signer.as_str()) {
            return Err(9568332.into());
        }
        let version = first.app["versionCode"].as_i64().unwrap_or(0);
        if version < old.get("versionCode").and_then(Value::as_i64).unwrap_or(0) {
            return Err(9568263.into());
        }
    }
    Ok(())
}

/// `CheckDependency`: a dependency on a module of the same bundle must be installed now or
/// already (a dependency naming another bundle is the shared-bundle installer's, not checked).
fn check_dependencies(packages: &[Package], installed: Option<&Value>) -> Result<(), Refusal> {
    let bundle = &packages[0].app["bundleName"];
    for package in packages {
        for dependency in package.module["dependencies"].as_array().into_iter().flatten() {
            let other_bundle = dependency["bundleName"].as_str().is_some_and(|b| !b.is_empty() && bundle != b);
            let name = dependency["moduleName"].as_str().unwrap_or("");
            let now = packages.iter().any(|p| p.module["name"] == name);
            let before = installed.and_then(|app| app.get("modules")).and_then(|m| m.get(name)).is_some()
                || installed.and_then(|app| app.get("module")).and_then(Value::as_str) == Some(name);
            if !other_bundle && !now && !before {
                let module = package.module["name"].as_str().unwrap_or("");
                let detail = format!("{module}'s dependent module: {name} does not exist");
                return Err(Refusal { code: 9568305, detail: Some(detail) });
            }
        }
    }
    Ok(())
}

/// The bundle as installed: its modules (the new ones replace those of the same name), every
/// module's abilities, and the entry module's main ability.
fn record(bundle: &str, packages: &[Package], device: &mut Device) {
    let old = device.installed().get(bundle).cloned().unwrap_or(json!({}));
    let mut modules: Map<String, Value> = old.get("modules").and_then(Value::as_object).cloned().unwrap_or_default();
    for p in packages {
        let name = p.module["name"].as_str().unwrap_or("").to_string();
        let abilities = abilities_of(p);
        let kind = p.module["type"].clone();
        let main = p.module["mainElement"].clone();
        let mut module = json!({"type": kind, "mainElement": main, "abilities": abilities, "hap": p.path});
        // A test HAP's code: its runner and the cases it declares (what `aa test` runs); an
        // app's pages (what its screen shows: layout.rs).
        for field in ["testRunner", "tests", "pages"] {
            if let Some(value) = p.code.get(field) {
                module[field] = value.clone();
            }
        }
        modules.insert(name, module);
    }
    let entry = modules.iter().find(|(_, m)| m["type"] == "entry").or_else(|| modules.iter().next());
    let (entry_name, entry_module) = entry.map(|(n, m)| (n.clone(), m.clone())).unwrap_or_default();
    let abilities: Vec<Value> =
        modules.values().flat_map(|m| m["abilities"].as_array().cloned().unwrap_or_default()).collect();
    let first = &packages[0];
    let app = json!({
        "versionCode": first.app["versionCode"], "versionName": first.app["versionName"], "signer": first.signer,
        "abilities": abilities, "mainAbility": entry_module["mainElement"], "module": entry_name,
        "buildMode": if first.app["debug"] == json!(false) { "release" } else { "debug" },
        "hap": entry_module["hap"], "modules": modules, "installTime": (now_secs() * 1000.0) as i64,
    });
    device.installed_mut().insert(bundle.to_string(), app);
    device.stop(bundle);
}

fn abilities_of(p: &Package) -> Vec<Value> {
    let list = p.module["abilities"].as_array().cloned().unwrap_or_default();
    list.iter()
        .map(|a| {
            let name = a["name"].as_str().unwrap_or("");
            let mut ability = json!({"name": name, "exported": a["exported"].as_bool().unwrap_or(false)});
            if let Some(logs) = p.code["abilities"][name].get("onCreateLogs") {
                ability["onCreateLogs"] = logs.clone();
            }
            ability
        })
        .collect()
}
