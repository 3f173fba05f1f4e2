//! The SDK reader against real declaration files (tests/fixtures/sdk, from interface_sdk-js:
//! its README names the commits).

use std::path::{Path, PathBuf};

use super::check::{self, Project};
use super::lookup::{self, Source};
use super::{jsdoc, layout, reader};

struct Dir(PathBuf);

impl Source for Dir {
    fn module(&self, name: &str) -> Option<(String, String)> {
        assert!(layout::is_module_name(name), "{name}");
        let file = layout::files(&self.0, name).into_iter().find(|f| f.is_file())?;
        Some((file.display().to_string(), std::fs::read_to_string(file).unwrap()))
    }
    fn modules_like(&self, name: &str) -> Vec<String> {
        layout::modules_like(&self.0, name)
    }
}

fn sdk() -> Dir {
    Dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sdk"))
}

fn codes(doc: &jsdoc::Doc) -> Vec<&str> {
    doc.throws.iter().map(|t| t.code.as_str()).collect()
}

#[test]
fn the_merged_style_gives_since_permission_throws_and_spanned_marks() {
    let found = lookup::symbol(&sdk(), "@ohos.vibrator", "vibrator.startVibration").unwrap();
    assert_eq!(found.overloads.len(), 2, "callback and promise overloads");
    let first = &found.overloads[0];
    assert_eq!(first.since, Some(9), "`@since 9 dynamic`, not `@since 23 static`");
    assert_eq!(first.doc.syscap.as_deref(), Some("SystemCapability.Sensors.MiscDevice"));
    assert_eq!(first.doc.permissions[0].text, "ohos.permission.VIBRATE");
    assert_eq!(codes(&first.doc), ["201", "401", "801", "14600101"]);
    assert_eq!(first.doc.marks["atomicservice"], Some(jsdoc::Span { from: 11, to: None }));
    assert_eq!(first.doc.marks["crossplatform"], Some(jsdoc::Span { from: 22, to: None }));
    assert_eq!(
        first.doc.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>(),
        ["effect", "attribute", "callback"]
    );
    assert!(first.signature.starts_with("function startVibration(effect: VibrateEffect"), "{}", first.signature);
}

#[test]
fn the_stacked_style_gives_the_first_level_and_when_each_mark_came() {
    let found = lookup::symbol(&sdk(), "@ohos.app.ability.UIAbility", "UIAbility.onCreate").unwrap();
    let on_create = &found.overloads[0];
    assert_eq!((on_create.blocks, on_create.since), (3, Some(9)), "blocks @since 9, 10, 11");
    assert_eq!(on_create.doc.marks["atomicservice"], Some(jsdoc::Span { from: 11, to: None }));
    assert_eq!(on_create.doc.marks["crossplatform"], Some(jsdoc::Span { from: 10, to: None }));
    // Bare `onCreate` is found inside the module's default export.
    assert_eq!(lookup::symbol(&sdk(), "@ohos.app.ability.UIAbility", "onCreate").unwrap().name, "UIAbility.onCreate");
}

#[test]
fn a_kit_is_followed_to_the_module_it_re_exports_from() {
    let found = lookup::symbol(&sdk(), "@kit.SensorServiceKit", "vibrator.isHdHapticSupported").unwrap();
    assert_eq!((found.module.as_str(), found.via_kit.as_deref()), ("@ohos.vibrator", Some("@kit.SensorServiceKit")));
    assert_eq!(found.overloads[0].since, Some(12));
    let kit = lookup::module(&sdk(), "@kit.SensorServiceKit").unwrap();
    assert_eq!(kit.kit.as_deref(), Some("SensorServiceKit"));
    assert!(kit.reexports.contains(&("vibrator".to_string(), "@ohos.vibrator".to_string())), "{:?}", kit.reexports);
    // The kit's other module is not in the fixture SDK: a clear miss.
    let missing = lookup::symbol(&sdk(), "@kit.SensorServiceKit", "sensor.on").unwrap_err();
    assert_eq!(missing.missing, "@ohos.sensor");
}

#[test]
fn deprecated_apis_carry_their_replacement() {
    let found = lookup::symbol(&sdk(), "@ohos.vibrator", "vibrate").unwrap();
    assert_eq!(found.name, "vibrator.vibrate");
    assert_eq!(found.overloads.len(), 4);
    assert!(found.overloads.iter().all(|o| o.doc.deprecated == Some(9)));
    assert!(found.overloads[0].doc.useinstead.as_deref().unwrap().starts_with("vibrator.startVibration("));
}

#[test]
fn an_ets_declaration_in_arkts_syntax_is_read() {
    let found = lookup::symbol(&sdk(), "@ohos.advertising.AutoAdComponent", "AutoAdComponent").unwrap();
    assert_eq!(found.overloads[0].kind, "struct");
    assert_eq!(found.overloads[0].since, Some(11));
    assert_eq!(found.members, ["adParam", "adOptions", "displayOptions", "interactionListener", "build"]);
}

#[test]
fn hms_versioned_since_gives_the_level_in_brackets() {
    let found = lookup::symbol(&sdk(), "@hms.reinfixture.versioned", "newer").unwrap();
    let doc = &found.overloads[0].doc;
    assert_eq!((found.overloads[0].since, doc.since[0].text.as_str()), (Some(15), "5.0.3(15)"));
    assert!(doc.marks.contains_key("stagemodelonly") && doc.marks.contains_key("atomicservice"));
}

#[test]
fn a_missing_name_comes_with_the_closest_ones() {
    let missing = lookup::symbol(&sdk(), "@ohos.vibrator", "vibrator.startVibrate").unwrap_err();
    assert_eq!(missing.closest.first().map(String::as_str), Some("vibrator.startVibration"), "{missing:?}");
    let module = lookup::module(&sdk(), "@ohos.vibrater").unwrap_err();
    assert_eq!(module.closest, ["@ohos.vibrator"]);
}

#[test]
fn module_names_never_reach_outside_the_declaration_folders() {
    for bad in [
        "../etc/passwd",
        "@ohos./../../x",
        "@ohos.a/b",
        "@ohos..x",
        "@ohos.",
        "ohos.vibrator",
        "@ohos.a\\b",
        "@other.x",
    ] {
        assert!(!layout::is_module_name(bad), "{bad}");
    }
    assert!(layout::is_module_name("@ohos.app.ability.UIAbility") && layout::is_module_name("@kit.ArkUI"));
}

#[test]
fn the_reader_skips_arkts_static_sections_and_reads_kit_exports() {
    let text = "/**\n * @file\n * @kit K\n */\n/*** if arkts static */\nimport s from '@ohos.s';\nexport { s };\n/*** endif */\n/*** if arkts dynamic */\nimport d, { x as y } from '@ohos.d';\nexport { d, y };\n/*** endif */\n";
    let file = reader::read(text);
    assert_eq!(file.kit.as_deref(), Some("K"));
    assert_eq!(file.imports.len(), 1);
    assert_eq!(file.imports[0].names, [("x".to_string(), "y".to_string())]);
    assert_eq!(file.exports, [("d".to_string(), "d".to_string()), ("y".to_string(), "y".to_string())]);
}

const PAGE: &str = r#"import { vibrator } from '@kit.SensorServiceKit';
import deviceInfo from '@ohos.deviceInfo';
import nothing from '@ohos.vibrater';

function go() {
  vibrator.startVibration({ type: 'time', duration: 10 }, { usage: 'alarm' });
  vibrator.startVibrate();
  let ok = vibrator.isHdHapticSupported();
  if (deviceInfo.sdkApiVersion >= 12) {
    vibrator.isHdHapticSupported();
  }
  // vibrator.notThere() in a comment is not a use
  vibrator.vibrate(100);
}
"#;

#[test]
fn a_file_s_uses_are_judged_against_the_sdk_and_the_project() {
    let (min_level, min_version) = Project::min_sdk("4.1.0(11)");
    assert_eq!((min_level, min_version), (Some(11), Some(40100)));
    let project = Project { min_level, min_version, permissions: Vec::new() };
    let findings = check::check(&sdk(), PAGE, &project);
    let seen: Vec<(usize, &str, &str)> = findings.iter().map(|f| (f.line, f.severity, f.rule)).collect();
    assert_eq!(
        seen,
        [
            (3, "error", "unknown_module"),
            (6, "warning", "permission"),
            (7, "error", "unknown_name"),
            (8, "warning", "newer_than_min_sdk"),
            (13, "hint", "deprecated"),
            (13, "warning", "permission"),
        ],
        "{findings:#?}"
    );
    assert_eq!(findings[0].closest, ["@ohos.vibrator"]);
    assert_eq!(findings[2].closest.first().map(String::as_str), Some("vibrator.startVibration"));
    assert!(findings[4].replacement.as_deref().unwrap().starts_with("vibrator.startVibration("));
    // With the permission requested and the minimum raised, only the errors and the hint stay.
    let project =
        Project { min_level: Some(12), min_version: Some(50000), permissions: vec!["ohos.permission.VIBRATE".into()] };
    let rules: Vec<&str> = check::check(&sdk(), PAGE, &project).iter().map(|f| f.rule).collect();
    assert_eq!(rules, ["unknown_module", "unknown_name", "deprecated"]);
}

#[test]
fn guards_follow_the_documented_forms() {
    let project = Project { min_level: Some(11), min_version: Some(40100), permissions: Vec::new() };
    for guard in [
        "deviceInfo.sdkApiVersion >= 12",
        "deviceInfo.sdkApiVersion > 11",
        "canIUse('SystemCapability.Sensors.MiscDevice')",
        "deviceInfo.apiAvailable(12)",
    ] {
        let text = format!("import {{ vibrator }} from '@kit.SensorServiceKit';\nif ({guard}) {{\n  vibrator.isHdHapticSupported();\n}}\n");
        let findings = check::check(&sdk(), &text, &project);
        assert!(findings.iter().all(|f| f.rule != "newer_than_min_sdk"), "{guard}: {findings:?}");
    }
    let weak = "import { vibrator } from '@kit.SensorServiceKit';\nif (deviceInfo.sdkApiVersion >= 11) {\n  vibrator.isHdHapticSupported();\n}\n";
    assert!(
        check::check(&sdk(), weak, &project).iter().any(|f| f.rule == "newer_than_min_sdk"),
        "a guard for 11 does not cover 12"
    );
}

/// Guards nest: a use counts every guard around it (the syscap of the outer block, the level
/// of the inner) and none whose block it has left.
#[test]
fn a_use_counts_every_guard_around_it_and_none_it_has_left() {
    let project = Project { min_level: Some(11), min_version: Some(40100), permissions: Vec::new() };
    let text = "import { vibrator } from '@kit.SensorServiceKit';
if (canIUse('SystemCapability.Sensors.MiscDevice')) {
  if (deviceInfo.sdkApiVersion >= 11) {
    vibrator.isHdHapticSupported();
  }
  vibrator.isHdHapticSupported();
}
if (deviceInfo.sdkApiVersion >= 12) {
  if (x) { }
  vibrator.isHdHapticSupported();
}
if (deviceInfo.sdkApiVersion >= 11) { if (y) { } }
vibrator.isHdHapticSupported();
";
    let newer: Vec<usize> = check::check(&sdk(), text, &project)
        .iter()
        .filter(|f| f.rule == "newer_than_min_sdk")
        .map(|f| f.line)
        .collect();
    assert_eq!(newer, [13]);
}
