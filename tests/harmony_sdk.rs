//! api_lookup and api_check against real SDK declaration files (tests/fixtures/sdk, copied
//! from openharmony/interface_sdk-js: its README names the commits), named as the person's
//! SDK in home config.toml.

use std::path::PathBuf;

use serde_json::json;

use crate::common::lab::{lab, Lab};

fn fixture_sdk() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sdk")
}

fn sdk_lab() -> Option<Lab> {
    let lab = lab()?;
    lab.toolchain("sdk", &fixture_sdk());
    Some(lab)
}

#[test]
fn api_lookup_follows_a_kit_and_gives_the_compact_facts() {
    let Some(lab) = sdk_lab() else { return };
    let found =
        lab.ok(&[], "api_lookup", json!({"module": "@kit.SensorServiceKit", "symbol": "vibrator.startVibration"}));
    assert_eq!(found["module"], json!("@ohos.vibrator"), "{found}");
    assert_eq!(found["via_kit"], json!("@kit.SensorServiceKit"));
    let first = &found["overloads"][0];
    assert_eq!(first["since"], json!(9));
    assert_eq!(first["permission"], json!("ohos.permission.VIBRATE"));
    assert_eq!(first["throws"], json!("201,401,801,14600101"));
    assert_eq!(first["syscap"], json!("SystemCapability.Sensors.MiscDevice"));
    assert_eq!(first["marks"], json!("atomicservice 11+, crossplatform 22+"));
    assert_eq!(found["overloads"].as_array().unwrap().len(), 2);
}

#[test]
fn api_lookup_finds_a_bare_symbol_and_gives_whole_records_when_asked() {
    let Some(lab) = sdk_lab() else { return };
    let found = lab.ok(&[], "api_lookup", json!({"symbol": "vibrator.vibrate", "full": true}));
    let symbol = &found["symbol"];
    assert_eq!(symbol["module"], json!("@ohos.vibrator"), "{found}");
    let doc = &symbol["overloads"][0]["doc"];
    assert_eq!(doc["deprecated"], json!(9));
    assert!(doc["useinstead"].as_str().unwrap().starts_with("vibrator.startVibration("), "{doc}");
    // The older stacked style: three blocks over UIAbility.onCreate.
    let stacked = lab.ok(&[], "api_lookup", json!({"symbol": "UIAbility.onCreate"}));
    assert_eq!(stacked["overloads"][0]["since"], json!(9), "{stacked}");
    assert_eq!(stacked["overloads"][0]["marks"], json!("atomicservice 11+, crossplatform 10+"));
}

#[test]
fn api_lookup_of_what_is_not_there_names_the_closest() {
    let Some(lab) = sdk_lab() else { return };
    let error = lab.failed(
        &[],
        "api_lookup",
        json!({"module": "@ohos.vibrator", "symbol": "vibrator.startVibrate"}),
        "API_NOT_FOUND",
    );
    assert_eq!(error["details"]["closest"][0], json!("vibrator.startVibration"), "{error}");
}

/// The agent names the module: a path instead reaches nothing outside the SDK's declaration
/// folders, and nothing is read.
#[test]
fn api_lookup_never_reads_a_path_the_agent_names() {
    let Some(lab) = sdk_lab() else { return };
    std::fs::write(lab.ws.path("secret.d.ts"), "declare namespace secret { function x(): void; }").unwrap();
    for module in
        ["../../../../etc/passwd", "@ohos.vibrator/../../../../../etc/passwd", "@ohos../secret", "/etc/passwd"]
    {
        let error = lab.failed(&[], "api_lookup", json!({"module": module}), "API_NOT_FOUND");
        assert_eq!(error["details"]["missing"], json!(module), "{error}");
    }
}

#[test]
fn without_an_sdk_the_tools_say_where_to_point_rein() {
    let Some(lab) = lab() else { return };
    let error = lab.failed(&[], "api_lookup", json!({"module": "@ohos.vibrator"}), "SDK_NOT_FOUND");
    assert!(error["message"].as_str().unwrap().contains("DEVECO_SDK_HOME"), "{error}");
    assert!(error["details"]["fix"].as_str().unwrap().contains("[toolchain] sdk"), "{error}");
}

const PAGE: &str = "entry/src/main/ets/pages/Vibrate.ets";

const CODE: &str = r#"import { vibrator } from '@kit.SensorServiceKit';
import deviceInfo from '@ohos.deviceInfo';

export function buzz(): void {
  vibrator.startVibration({ type: 'time', duration: 10 }, { usage: 'alarm' });
  vibrator.startVibrate();
  vibrator.isHdHapticSupported();
  if (deviceInfo.sdkApiVersion >= 20) {
    vibrator.getEffectInfoSync('haptic.clock.timer');
  }
  vibrator.vibrate(100);
}
"#;

#[test]
fn api_check_judges_a_file_against_the_projects_min_sdk_and_permissions() {
    let Some(lab) = sdk_lab() else { return };
    std::fs::write(lab.ws.path(PAGE), CODE).unwrap();
    // hello-app's compatibleSdkVersion is 5.0.0(12): isHdHapticSupported (12) is fine,
    // getEffectInfoSync (19) is guarded; neither needs a permission.
    let out = lab.ok(&[], "api_check", json!({"path": PAGE}));
    let seen: Vec<(u64, &str, &str)> = out["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["line"].as_u64().unwrap(), f["severity"].as_str().unwrap(), f["rule"].as_str().unwrap()))
        .collect();
    assert_eq!(
        seen,
        [
            (5, "warning", "permission"),
            (6, "error", "unknown_name"),
            (11, "hint", "deprecated"),
            (11, "warning", "permission"),
        ],
        "{out}"
    );
    assert_eq!((out["errors"].clone(), out["compatible_sdk"].clone()), (json!(1), json!("5.0.0(12)")));
    // Requested in module.json5 and the minimum lowered to 11: the permission warnings go and
    // the unguarded API 12 call is a warning.
    lab.replace_in(
        "entry/src/main/module.json5",
        "\"mainElement\"",
        "\"requestPermissions\": [{ \"name\": \"ohos.permission.VIBRATE\" }],\n    \"mainElement\"",
    );
    lab.replace_in("build-profile.json5", "\"5.0.0(12)\"", "\"4.1.0(11)\"");
    let out = lab.ok(&[], "api_check", json!({"path": PAGE}));
    let rules: Vec<&str> = out["findings"].as_array().unwrap().iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert_eq!(rules, ["unknown_name", "newer_than_min_sdk", "deprecated"], "{out}");
}

#[test]
fn api_check_reads_only_workspace_files() {
    let Some(lab) = sdk_lab() else { return };
    let (code, out) = lab.call(&[], "api_check", json!({"path": "/etc/passwd"}));
    assert_ne!(code, 0, "{out}");
    assert_ne!(out["error"]["code"], json!("SDK_NOT_FOUND"), "{out}");
}

/// edit-and-verify with `api_check`: an edit that calls an API the SDK lacks is rolled back
/// before anything slow runs (no hvigorw call), with the closest names.
#[test]
fn edit_and_verify_rolls_back_an_edit_that_invents_an_api_before_building() {
    let Some(lab) = sdk_lab() else { return };
    let page = "entry/src/main/ets/pages/Index.ets";
    let before = std::fs::read(lab.ws.path(page)).unwrap();
    let invented = "import { vibrator } from '@kit.SensorServiceKit';\n@Entry";
    let edits = json!([{"old_string": "@Entry", "new_string": invented},
                       {"old_string": "build() {", "new_string": "aboutToAppear() {\n    vibrator.startVibrate();\n  }\n\n  build() {"}]);
    let (status, out) = lab.recipe(&[], "edit-and-verify", json!({"path": page, "edits": edits, "api_check": true}));
    assert_eq!(status, 1, "{out}");
    assert_eq!(std::fs::read(lab.ws.path(page)).unwrap(), before, "the edit is rolled back");
    let report = lab.report(&out);
    assert_eq!(report["failure"]["code"], json!("API_CHECK_FAILED"), "{report}");
    let finding = &report["failure"]["details"]["findings"][0];
    assert_eq!(finding["closest"][0], json!("vibrator.startVibration"), "{report}");
    assert!(lab.calls().iter().all(|c| c["program"] != "hvigorw"), "nothing was built");
}

#[test]
fn lint_without_codelinter_says_where_the_command_line_tools_put_it() {
    let Some(lab) = lab() else { return };
    let error = lab.failed(&[], "lint", json!({}), "TOOLCHAIN_NOT_FOUND");
    assert!(error["details"]["fix"].as_str().unwrap().contains("<command-line-tools>/bin/codelinter"), "{error}");
}

/// A stand-in codelinter that prints nothing (no report text of codelinter's is confirmed,
/// HARMONY-VERIFY §4) and exits with the documented bits for errors and warnings (4 | 2).
#[cfg(unix)]
#[test]
fn lint_reads_the_documented_exit_bits_and_runs_read_only() {
    use std::os::unix::fs::PermissionsExt;
    let Some(lab) = lab() else { return };
    let bin = lab.ws.root.join("clt/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let linter = bin.join("codelinter");
    // It tries to write the project, as `--fix` would: confinement must stop it.
    std::fs::write(&linter, "#!/bin/sh\necho fixed > entry/src/main/ets/pages/Index.ets 2>/dev/null\nexit 6\n")
        .unwrap();
    std::fs::set_permissions(&linter, std::fs::Permissions::from_mode(0o755)).unwrap();
    lab.toolchain("codelinter", &linter);
    let page = "entry/src/main/ets/pages/Index.ets";
    let before = std::fs::read(lab.ws.path(page)).unwrap();
    let out = lab.ok(&[], "lint", json!({"paths": ["entry"]}));
    assert_eq!(out["clean"], json!(false), "{out}");
    assert_eq!(out["levels"], json!({"error": true, "warn": true, "suggestion": false}), "{out}");
    assert_eq!(out["records"], json!([]));
    assert_eq!(std::fs::read(lab.ws.path(page)).unwrap(), before, "codelinter may not write the project");
    // Paths outside the workspace are not linted.
    let (code, refused) = lab.call(&[], "lint", json!({"paths": ["/etc"]}));
    assert_ne!(code, 0, "{refused}");
}

#[test]
fn the_grounding_tools_are_read_only_and_closed_world() {
    let ws = crate::common::Workspace::new();
    let (status, out) = crate::common::rein_json(&ws, &["tools"]);
    assert_eq!(status, 0, "{out}");
    for name in ["api_lookup", "api_check", "lint"] {
        let tool = out["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap();
        assert_eq!(
            tool["annotations"],
            json!({"read_only": true, "destructive": false, "idempotent": true, "open_world": false}),
            "{name}"
        );
    }
}

/// The attack: a declaration file in the SDK that is a link to a file elsewhere (the SDK is
/// read outside the workspace scope, by module name). api_lookup reads only the SDK's own
/// files: a link is not followed, and nothing of its target is shown.
// Unix only: Wine 8 cannot make symbolic links (docs/src/platforms.md "Reparse points").
#[cfg(unix)]
#[test]
fn api_lookup_follows_no_link_out_of_the_sdk() {
    let Some(lab) = lab() else { return };
    let sdk = lab.tmp().join("sdk");
    let api = sdk.join("default/openharmony/ets/api");
    std::fs::create_dir_all(&api).unwrap();
    let elsewhere = lab.tmp().join("elsewhere.d.ts");
    std::fs::write(&elsewhere, "declare namespace leaked { const hunter2Token: string; }\n").unwrap();
    std::os::unix::fs::symlink(&elsewhere, api.join("@ohos.leak.d.ts")).unwrap();
    lab.toolchain("sdk", &sdk);
    let (_, out) = lab.call(&[], "api_lookup", json!({"module": "@ohos.leak"}));
    assert!(!out.to_string().contains("leaked"), "the link's target was read: {out}");
}

/// A workspace file is the agent's to write: one that uses an SDK name 20,000 times (560 KB)
/// kept api_check — a native call the Lua clock cannot stop — busy for over ten minutes, each
/// use reading (and journaling) the module's declarations again and parsing them again. Each
/// module is read once per call and each name judged once per check, at most 300 distinct names
/// (a finding says where it stopped): the call ends in seconds.
#[test]
fn api_check_of_a_file_with_thousands_of_uses_ends_within_seconds() {
    let Some(lab) = sdk_lab() else { return };
    for (file, distinct) in [("Same.ets", false), ("Distinct.ets", true)] {
        let mut text = String::from("import vibrator from '@ohos.vibrator';\n");
        for i in 0..20_000 {
            let name = if distinct { format!("startVibration{i}") } else { "startVibration".to_string() };
            text.push_str(&format!("vibrator.{name}(x);\n"));
        }
        let path = format!("entry/src/main/ets/pages/{file}");
        std::fs::write(lab.ws.path(&path), text).unwrap();
        let started = std::time::Instant::now();
        let (status, out) = lab.rein(&["call", "api_check", &json!({"path": path}).to_string()]);
        assert_eq!(status, 0, "{out}");
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "{file}: {:?}", started.elapsed());
        let findings = out["result"]["findings"].as_array().unwrap();
        let stopped = findings.iter().any(|f| f["rule"] == "too_many_names");
        assert_eq!(stopped, distinct, "{file}: {}", findings.last().unwrap());
    }
}

/// The attack: api_check's scan of the agent's file — a native call the Lua clock cannot stop —
/// searched from each `if` to its block's end, from each `import` for its `from`, the whole
/// file once per imported name, and read each of thousands of imports of one module again: a
/// file of a megabyte of `if(a){` kept it busy for hours, 5,000 imports for over five minutes.
/// Each bracket is matched in one pass, each name found in one pass over the file's words, each
/// module read once per check (within the check's bound of lookups), each use's imported name
/// found at once (not among its import's names: one name imported 50,000 times over).
#[test]
fn api_check_of_a_file_shaped_to_make_its_scan_slow_ends_within_seconds() {
    let Some(lab) = sdk_lab() else { return };
    let import = "import vibrator from '@ohos.vibrator';\n";
    let names: String = (0..20_000).map(|i| format!("n{i}, ")).collect();
    let uses: String = (0..20_000).map(|i| format!("n{i}.x;\n")).collect();
    let same: String = (0..50_000).map(|i| format!("vibrate as x{i}, ")).collect();
    let files = [
        ("Ifs.ets", format!("{import}{}", "if(a){".repeat(200_000))),
        ("Imports.ets", format!("{import}{}", "import {".repeat(200_000))),
        ("Nested.ets", format!("{import}{}x{}", "if(".repeat(100_000), "){}".repeat(100_000))),
        ("SameModule.ets", import.repeat(5_000)),
        ("Names.ets", format!("import {{ {names} }} from '@ohos.vibrator';\n{uses}")),
        // One SDK name bound to 50,000 local names (one lookup), the last used 100,000 times:
        // each use looked for its local name among the import's names.
        ("SameName.ets", format!("import {{ {same} }} from '@ohos.vibrator';\n{}", "x49999.y;\n".repeat(100_000))),
    ];
    for (file, text) in files {
        let path = format!("entry/src/main/ets/pages/{file}");
        std::fs::write(lab.ws.path(&path), text).unwrap();
        let started = std::time::Instant::now();
        let (status, out) = lab.rein(&["call", "api_check", &json!({"path": path}).to_string()]);
        assert_eq!(status, 0, "{file}: {out}");
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "{file}: {:?}", started.elapsed());
    }
}
