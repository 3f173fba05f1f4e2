//! `bm`: install, uninstall, dump and get -u, with the texts of
//! `openharmony/bundlemanager_bundle_tool` @00c4770 `frameworks/include/bundle_command.h`
//! (STRING_* constants), `frameworks/src/bundle_command.cpp` (install: the OK/NG line, then
//! `GetMessageFromCode`) and `frameworks/src/shell_command.cpp` (`GetMessageFromCode`:
//! `code:<N>\n<message>\n`), messages from `frameworks/src/bundle_command_common.cpp`; codes
//! from `bundlemanager_bundle_framework` `status_receiver_interface.h` (shared/HARMONY.md §4).

use serde_json::{json, Value};

use crate::aa::abilities;
use crate::bm_install;
use crate::device::{sha256_upper, Device};
use crate::state::now_secs;
use crate::words::{flag, has};

/// Install failure codes and their messages as bm prints them.
pub const INSTALL_ERRORS: [(i64, &str); 23] = [
    (9568257, "error: fail to verify pkcs7 file."),
    (9568258, "error: install releaseType target not same."),
    (9568259, "error: install parse profile missing prop."),
    (9568263, "error: install version downgrade."),
    (9568266, "error: install permission denied."),
    (9568269, "error: install file path invalid."),
    (9568277, "error: install bundle name not same."),
    (9568278, "error: install version code not same."),
    (9568286, "error: install provision type not same."),
    (9568289, "error: install failed due to grant request permissions failed."),
    (9568297, "error: install failed due to older sdk version in the device."),
    (9568305, "error: Failed to install the HAP or HSP because the dependent module does not exist."),
    (
        9568314,
        "error: Failed to install the HSP because installing a shared bundle specified by hapFilePaths is not allowed.",
    ),
    (9568320, "error: no signature file."),
    (9568322, "error: signature verification failed due to not trusted app source."),
    (9568329, "error: verify signature failed."),
    (9568331, "error: install incompatible signature info."),
    (9568332, "error: install sign info inconsistent."),
    (9568336, "error: install debug type not same."),
    (9568337, "error: install parse unexpected."),
    (9568344, "error: install parse profile prop check error."),
    (9568347, "error: install parse native so failed."),
    (9568386, "error: uninstall missing installed bundle."),
];

pub fn bm(words: &[String], device: &mut Device, out: &mut String) {
    match words.get(1).map(String::as_str) {
        Some("install") => install(words, device, out),
        Some("uninstall") => uninstall(flag(words, "-n").unwrap_or(""), device, out),
        Some("dump") if has(words, "-n") => dump(flag(words, "-n").unwrap_or(""), device, out),
        Some("dump") if has(words, "-a") => {
            out.push_str("ID: 100:\n");
            let mut bundles: Vec<&String> = device.installed().keys().collect();
            bundles.sort();
            for b in bundles {
                out.push_str(&format!("\t{b}\n"));
            }
        }
        Some("get") if has(words, "-u") => {
            out.push_str(&format!("udid of current device is :\n{}\n", device.state["udid"].as_str().unwrap_or("")));
        }
        _ => out.push_str("error: parameter error.\n"),
    }
}

/// `code:<N>\n<message>\n`; the device's `install_error_message` replaces the message.
fn failure(code: i64, device: &Device) -> String {
    let custom = device.flag("install_error_message").as_str().map(|m| format!("error: {m}"));
    let known = INSTALL_ERRORS.iter().find(|(c, _)| *c == code).map(|(_, m)| m.to_string());
    format!("code:{code}\n{}\n", custom.or(known).unwrap_or_else(|| "error: install failed.".into()))
}

/// `bm install [-r] -p PATH...`: the packages in one transaction (`bm_install`).
fn install(words: &[String], device: &mut Device, out: &mut String) {
    let paths = bm_install::paths(words);
    if paths.is_empty() {
        out.push_str(&format!("error: failed to install bundle.\n{}", failure(9568269, device)));
        return;
    }
    match bm_install::install_all(&paths, device) {
        Ok(()) => out.push_str("install bundle successfully.\n"),
        Err(refusal) => {
            out.push_str(&format!("error: failed to install bundle.\n{}", failure(refusal.code, device)));
            if let Some(detail) = refusal.detail {
                out.push_str(&format!("{detail}\n"));
            }
        }
    }
}

fn uninstall(bundle: &str, device: &mut Device, out: &mut String) {
    if device.installed_mut().remove(bundle).is_some() {
        device.stop(bundle);
        out.push_str("uninstall bundle successfully.\n");
    } else {
        out.push_str(&format!("error: failed to uninstall bundle.\n{}", failure(9568386, device)));
    }
}

/// `bm dump -n BUNDLE`: `BUNDLE:` then the bundle's JSON (4-space indent, keys sorted).
fn dump(bundle: &str, device: &Device, out: &mut String) {
    let Some(app) = device.installed().get(bundle) else {
        out.push_str("error: failed to get information and the parameters may be wrong.\n");
        return;
    };
    let signer = app.get("signer").map(|s| s.as_str().map(String::from).unwrap_or(s.to_string())).unwrap_or_default();
    let fingerprint = sha256_upper(signer.as_bytes());
    let module = app.get("module").and_then(Value::as_str).unwrap_or("entry");
    let release = app.get("buildMode").and_then(Value::as_str) == Some("release");
    let now_ms = (now_secs() * 1000.0) as i64;
    let abilities: Vec<Value> = abilities(app)
        .into_iter()
        .map(|mut a| {
            a["bundleName"] = json!(bundle);
            a["moduleName"] = json!(module);
            a
        })
        .collect();
    let app_id = format!("{bundle}_{}", &fingerprint[..44]);
    let info = json!({
        "appId": app_id,
        "applicationInfo": {"appProvisionType": if release { "release" } else { "debug" }, "bundleName": bundle,
                            "debug": !release, "versionCode": app.get("versionCode"), "versionName": app.get("versionName")},
        "hapModuleInfos": [{"abilityInfos": abilities, "mainAbility": app.get("mainAbility"),
                            "mainElementName": app.get("mainAbility"), "moduleName": module, "name": module}],
        "installTime": app.get("installTime").cloned().unwrap_or(json!(now_ms)),
        "mainEntry": module,
        "name": bundle,
        "signatureInfo": {"appId": app_id, "fingerprint": fingerprint},
        "updateTime": app.get("updateTime").cloned().unwrap_or(json!(now_ms)),
        "versionCode": app.get("versionCode"),
        "versionName": app.get("versionName"),
    });
    out.push_str(&format!("{bundle}:\n{}\n", pretty4(&crate::state::sorted(&info))));
}

/// JSON with a 4-space indent, as bm prints it.
fn pretty4(value: &Value) -> String {
    let mut buf = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, formatter);
    serde::Serialize::serialize(value, &mut ser).expect("JSON");
    String::from_utf8(buf).expect("UTF-8")
}
