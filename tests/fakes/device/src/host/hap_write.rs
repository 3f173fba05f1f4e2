//! The packages the fake hvigorw writes: real `.hap` zips, as hap-sign-tool and a device read
//! them (tests/fakes/README.md "The HAP"; the device side reads them in `hap.rs`).
//!
//! A HAP holds `module.json` (app.json5 and the module's module.json5 merged, the shape DevEco's
//! build writes), `pack.info`, `resources.index` and the compiled code `ets/modules.abc`. The fake
//! compiler's "code" is JSON saying what each ability logs in onCreate (read from its ArkTS
//! source, `hvigor_arkts.rs`), which the device side runs on `aa start`. Entries are stored, not
//! deflated, with a fixed time, so the same project gives the same bytes.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Map, Value};

use crate::state::sorted;

const ABC_FORMAT: &str = "rein-fake-abc/1";

/// 12 from 12, "12" or "5.0.0(12)"; `null` when unknown.
fn api_level(value: Option<&Value>) -> Value {
    let text = match value {
        Some(Value::Number(n)) => return json!(n),
        Some(Value::String(s)) => s.trim().to_string(),
        _ => return Value::Null,
    };
    let inner = text.strip_suffix(')').and_then(|t| t.rsplit_once('(')).map(|(_, n)| n).unwrap_or(&text);
    inner.parse::<i64>().map(|n| json!(n)).unwrap_or(Value::Null)
}

fn or<'a>(v: &'a Value, key: &str, default: &'a Value) -> &'a Value {
    v.get(key).unwrap_or(default)
}

/// What the build writes as module.json: the app's fields, the API levels of the product, and
/// the module's, abilities included.
pub fn module_json(app: &Value, module: &Value, product: &Value) -> Value {
    let api = api_level(product.get("compatibleSdkVersion"));
    let null = Value::Null;
    let abilities: Vec<Value> = module
        .get("abilities")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|a| {
            let kept: Map<String, Value> = ["name", "srcEntry", "exported", "skills"]
                .iter()
                .filter_map(|k| a.get(*k).map(|v| (k.to_string(), v.clone())))
                .collect();
            Value::Object(kept)
        })
        .collect();
    let debug = product.get("buildMode").and_then(Value::as_str).unwrap_or("debug") != "release";
    json!({
        "app": {
            "bundleName": or(app, "bundleName", &null), "vendor": or(app, "vendor", &json!("")),
            "versionCode": or(app, "versionCode", &null), "versionName": or(app, "versionName", &null),
            "icon": or(app, "icon", &null), "label": or(app, "label", &null),
            "minAPIVersion": api, "targetAPIVersion": api, "apiReleaseType": "Release",
            "compileSdkType": or(product, "runtimeOS", &json!("HarmonyOS")), "bundleType": "app", "debug": debug,
        },
        "module": {
            "name": or(module, "name", &null), "type": or(module, "type", &null),
            "mainElement": or(module, "mainElement", &null),
            "deviceTypes": module.get("deviceTypes").filter(|v| !v.is_null()).cloned().unwrap_or(json!([])),
            "deliveryWithInstall": or(module, "deliveryWithInstall", &json!(true)),
            "installationFree": or(module, "installationFree", &json!(false)),
            "pages": or(module, "pages", &null), "abilities": abilities, "compileMode": "esmodule",
        },
    })
}

/// pack.info: the summary app stores use to tell the packages of an app apart.
fn pack_info(module: &Value) -> Value {
    let (app, m) = (&module["app"], &module["module"]);
    json!({
        "summary": {
            "app": {"bundleName": app["bundleName"], "version": {"code": app["versionCode"], "name": app["versionName"]}},
            "modules": [{
                "mainAbility": m["mainElement"], "deviceType": m["deviceTypes"],
                "distro": {"moduleType": m["type"], "moduleName": m["name"],
                           "deliveryWithInstall": m["deliveryWithInstall"], "installationFree": m["installationFree"]},
                "apiVersion": {"compatible": app["minAPIVersion"], "target": app["targetAPIVersion"],
                               "releaseType": app["apiReleaseType"]},
            }],
        },
        "packages": [{"name": m["name"], "moduleType": m["type"], "deviceType": m["deviceTypes"],
                      "deliveryWithInstall": m["deliveryWithInstall"]}],
    })
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(&sorted(value)).expect("JSON")
}

/// Writes the HAP; `on_create_logs` maps each ability's name to what its onCreate logs.
/// `tests`: a test HAP's runner and cases (`hvigor_tests::code`), merged into its code.
pub fn write(
    path: &Path,
    module: &Value,
    on_create_logs: &BTreeMap<String, Vec<Value>>,
    tests: Option<&Value>,
) -> std::io::Result<()> {
    let abilities: Map<String, Value> =
        on_create_logs.iter().map(|(name, logs)| (name.clone(), json!({"onCreateLogs": logs}))).collect();
    let mut code = json!({"format": ABC_FORMAT, "abilities": abilities});
    for (key, value) in tests.and_then(Value::as_object).into_iter().flatten() {
        code[key] = value.clone();
    }
    let entries = [
        ("module.json", pretty(module)),
        ("pack.info", pretty(&pack_info(module))),
        ("resources.index", "rein fake resource index\n".to_string()),
        ("ets/modules.abc", pretty(&code)),
    ];
    let entries: Vec<(&str, &[u8])> = entries.iter().map(|(n, t)| (*n, t.as_bytes())).collect();
    std::fs::write(path, stored_zip(&entries))
}

/// A zip of stored entries (PKWARE APPNOTE.TXT 4.3.7 local file header, 4.3.12 central
/// directory header, 4.3.16 end of central directory), each dated 2024-01-01 00:00 (MS-DOS
/// time 0, date (44 << 9) | (1 << 5) | 1) and made on Unix with mode 0644, as Python's zipfile
/// writes them.
fn stored_zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    const DOS_TIME: u16 = 0;
    const DOS_DATE: u16 = (44 << 9) | (1 << 5) | 1;
    let mut zip = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let offset = zip.len() as u32;
        let crc = crc32(data);
        let size = data.len() as u32;
        let common = |out: &mut Vec<u8>| {
            for v in [20u16, 0, 0, DOS_TIME, DOS_DATE] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            for v in [crc, size, size] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
        };
        zip.extend_from_slice(b"PK\x03\x04");
        common(&mut zip);
        zip.extend_from_slice(name.as_bytes());
        zip.extend_from_slice(data);
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&(0x0314u16).to_le_bytes()); // made by: Unix, 2.0
        common(&mut central);
        for v in [0u16, 0, 0] {
            central.extend_from_slice(&v.to_le_bytes()); // comment length, disk, internal attributes
        }
        central.extend_from_slice(&(0o100644u32 << 16).to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let (central_offset, central_size) = (zip.len() as u32, central.len() as u32);
    zip.extend_from_slice(&central);
    zip.extend_from_slice(b"PK\x05\x06");
    for v in [0u16, 0, entries.len() as u16, entries.len() as u16] {
        zip.extend_from_slice(&v.to_le_bytes());
    }
    zip.extend_from_slice(&central_size.to_le_bytes());
    zip.extend_from_slice(&central_offset.to_le_bytes());
    zip.extend_from_slice(&0u16.to_le_bytes());
    zip
}

/// CRC-32 (ISO 3309, the zip format's), bit by bit: the packages are a few kilobytes.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}
