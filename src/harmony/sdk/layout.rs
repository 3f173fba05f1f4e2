//! Where the SDK's declaration files are (shared/HARMONY-VERIFY.md §8 "Shipped layout"):
//! `<sdk>/default/openharmony/ets/{api,kits,arkts}/` and `<sdk>/default/hms/ets/{api,kits}/`,
//! `<sdk>` being what `DEVECO_SDK_HOME` names (discovery.rs), and which file a module name is.
//!
//! A module name is all a caller chooses: it must be `@ohos.`, `@kit.`, `@hms.`, `@arkts.` or
//! `@system.` and dotted words, so no name reaches a file outside these folders.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// Where the SDK is, or every place looked at.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SdkPlace {
    pub root: Option<PathBuf>,
    pub via: String,
    pub tried: Vec<String>,
}

/// `<sdk>` has declarations when this folder exists.
const MARK: [&str; 4] = ["default", "openharmony", "ets", "api"];

/// The SDK: home config's `[toolchain] sdk`, then `DEVECO_SDK_HOME`, then `OHOS_BASE_SDK_HOME`
/// (`<sdk>/default/openharmony`), then the SDK around a found hdc
/// (`<sdk>/default/openharmony/toolchains/hdc`).
pub fn find(configured: Option<&Path>, env: &dyn Fn(&str) -> Option<String>, hdc: Option<&Path>) -> SdkPlace {
    let mut places: Vec<(PathBuf, String)> = Vec::new();
    if let Some(path) = configured {
        places.push((path.to_path_buf(), "config".into()));
    } else {
        if let Some(sdk) = env("DEVECO_SDK_HOME").filter(|v| !v.is_empty()) {
            places.push((PathBuf::from(sdk), "DEVECO_SDK_HOME".into()));
        }
        if let Some(base) = env("OHOS_BASE_SDK_HOME").filter(|v| !v.is_empty()) {
            if let Some(sdk) = Path::new(&base).parent().and_then(Path::parent) {
                places.push((sdk.to_path_buf(), "OHOS_BASE_SDK_HOME".into()));
            }
        }
        if let Some(sdk) = hdc.and_then(|h| h.ancestors().nth(4)) {
            places.push((sdk.to_path_buf(), "around hdc".into()));
        }
    }
    let mut tried = Vec::new();
    for (root, via) in places {
        if MARK.iter().fold(root.clone(), |p, part| p.join(part)).is_dir() {
            return SdkPlace { root: Some(root), via, tried };
        }
        tried.push(format!("{} ({via}): no default/openharmony/ets/api in it", root.display()));
    }
    SdkPlace { root: None, via: String::new(), tried }
}

pub const FIX: &str = "install the HarmonyOS command-line tools or DevEco Studio and set DEVECO_SDK_HOME to their sdk/ folder, or set [toolchain] sdk in home config.toml";

/// Whether `name` is a module name the SDK could hold.
pub fn is_module_name(name: &str) -> bool {
    let Some((prefix, rest)) = name.split_once('.') else { return false };
    matches!(prefix, "@ohos" | "@kit" | "@hms" | "@arkts" | "@system")
        && name.len() <= 200
        && rest.split('.').all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// The folders a module of this prefix may be in, under `<sdk>/default`.
fn folders(name: &str) -> &'static [&'static str] {
    match name.split('.').next() {
        Some("@kit") => &["openharmony/ets/kits", "hms/ets/kits"],
        Some("@hms") => &["hms/ets/api"],
        Some("@arkts") => &["openharmony/ets/arkts"],
        _ => &["openharmony/ets/api"],
    }
}

/// The files `name` may be, in order (`.d.ts` first, then `.d.ets`).
pub fn files(root: &Path, name: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for folder in folders(name) {
        for ext in ["d.ts", "d.ets"] {
            out.push(root.join("default").join(folder).join(format!("{name}.{ext}")));
        }
    }
    out
}

/// The module names of `name`'s prefix that the SDK holds (for "did you mean").
pub fn modules_like(root: &Path, name: &str) -> Vec<String> {
    let prefix = name.split('.').next().unwrap_or("@ohos");
    let mut out = Vec::new();
    for folder in folders(name) {
        let Ok(entries) = std::fs::read_dir(root.join("default").join(folder)) else { continue };
        for entry in entries.flatten() {
            let file = entry.file_name().to_string_lossy().to_string();
            let stem = file.strip_suffix(".d.ts").or_else(|| file.strip_suffix(".d.ets"));
            if let Some(stem) = stem.filter(|s| s.starts_with(prefix) && !s.ends_with(".static")) {
                out.push(stem.to_string());
            }
        }
    }
    out.sort();
    out.dedup();
    out
}
