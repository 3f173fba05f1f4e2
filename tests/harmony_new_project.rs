//! A new project (project_create, `rein new app`) and config_check: the project rein writes
//! builds with the fake hvigorw and passes config_check; a project is never written over; a
//! broken configuration is reported at its file:line:column with nothing changed on disk, and
//! stops every recipe before its build.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::lab::{lab, Lab};
use serde_json::{json, Value};

/// Every file under `dir` with its bytes (what "nothing changed on disk" compares).
fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/");
            if rel.starts_with(".rein") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                files.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// The lab with the fixture project taken away (its signing material and home config stay).
fn empty_lab() -> Option<Lab> {
    let lab = lab()?;
    for name in ["AppScope", "entry", "hvigor"] {
        std::fs::remove_dir_all(lab.ws.path(name)).unwrap();
    }
    for name in ["build-profile.json5", "oh-package.json5", "hvigorfile.ts", ".gitignore"] {
        std::fs::remove_file(lab.ws.path(name)).unwrap();
    }
    Some(lab)
}

const HELLO: &str = "com.example.hello";

#[test]
fn a_new_project_passes_config_check_and_builds_with_the_fakes() {
    let Some(lab) = empty_lab() else { return };
    let created = lab.ok(
        &[],
        "project_create",
        json!({"bundle_name": HELLO, "app_name": "Hello", "compatible_sdk": "5.0.0(12)", "target_sdk": "6.0.0(20)"}),
    );
    let files: Vec<&str> = created["files"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    for path in
        ["entry/src/ohosTest/module.json5", "entry/src/test/LocalUnit.test.ets", "AppScope/app.json5", ".gitignore"]
    {
        assert!(files.contains(&path) && lab.ws.path(path).is_file(), "{path}: {created}");
    }
    assert_eq!(created["check"]["errors"], json!(0), "{created}");
    let checked = lab.ok(&[], "config_check", json!({}));
    assert_eq!((checked["ok"].clone(), checked["errors"].clone()), (json!(true), json!(0)), "{checked}");
    assert_eq!(checked["warnings"], json!(1), "the template's unsigned default: {checked}");
    let app = std::fs::read_to_string(lab.ws.path("AppScope/app.json5")).unwrap();
    assert!(app.contains(HELLO), "{app}");
    let built = lab.build();
    assert!(!built["haps"].as_array().unwrap().is_empty(), "{built}");
}

#[test]
fn project_create_over_an_existing_project_is_refused_and_writes_nothing() {
    let Some(lab) = lab() else { return };
    let before = snapshot(&lab.ws.ws);
    let refused =
        lab.failed(&[], "project_create", json!({"bundle_name": HELLO, "app_name": "Hello"}), "PROJECT_EXISTS");
    assert!(refused["details"]["existing"].as_array().is_some_and(|e| !e.is_empty()), "{refused}");
    assert_eq!(snapshot(&lab.ws.ws), before, "nothing changed on disk");
    // One file of a project is enough: a folder holding only an entry/ module is refused too.
    let Some(lab) = empty_lab() else { return };
    std::fs::create_dir_all(lab.ws.path("entry/src/main")).unwrap();
    std::fs::write(lab.ws.path("entry/src/main/module.json5"), "{}").unwrap();
    let before = snapshot(&lab.ws.ws);
    lab.failed(&[], "project_create", json!({"bundle_name": HELLO, "app_name": "Hello"}), "PROJECT_EXISTS");
    assert_eq!(snapshot(&lab.ws.ws), before);
    // A bad request names its argument and writes nothing either.
    let (status, bad) = lab.call(
        &[],
        "project_create",
        json!({"bundle_name": HELLO, "app_name": "H", "compatible_sdk": "6.0.0(20)", "target_sdk": "5.0.0(12)"}),
    );
    assert_eq!((status, bad["error"]["code"].as_str()), (2, Some("INVALID_ARGS")), "{bad}");
    assert_eq!(bad["error"]["details"]["argument"], json!("compatible_sdk"), "{bad}");
    assert_eq!(snapshot(&lab.ws.ws), before);
}

/// Line and column (from 1) of `needle` in the workspace file `rel`.
fn place(lab: &Lab, rel: &str, needle: &str) -> (u64, u64) {
    let text = std::fs::read_to_string(lab.ws.path(rel)).unwrap();
    let at = text.find(needle).unwrap_or_else(|| panic!("{rel} holds {needle}"));
    let line = text[..at].matches('\n').count() + 1;
    (line as u64, (at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1) as u64)
}

fn error_at(checked: &Value, file: &str) -> Value {
    let problems = checked["problems"].as_array().unwrap();
    problems
        .iter()
        .find(|p| p["file"] == json!(file) && p["severity"] == json!("error"))
        .cloned()
        .unwrap_or_else(|| panic!("an error in {file}: {checked}"))
}

#[test]
fn config_check_reports_each_broken_reference_with_its_position_and_changes_nothing() {
    let Some(lab) = empty_lab() else { return };
    lab.ok(&[], "project_create", json!({"bundle_name": HELLO, "app_name": "Hello"}));
    let module = "entry/src/main/module.json5";
    let pages = "entry/src/main/resources/base/profile/main_pages.json";
    let profile = "build-profile.json5";
    lab.replace_in(module, "\"mainElement\": \"EntryAbility\"", "\"mainElement\": \"MainAbility\"");
    lab.replace_in(module, "\"$string:EntryAbility_label\"", "\"$string:EntryAbility_title\"");
    lab.replace_in(pages, "\"pages/Index\"", "\"pages/Index\", \"pages/Settings\"");
    lab.replace_in(profile, "\"compatibleSdkVersion\": \"6.0.0(20)\"", "\"compatibleSdkVersion\": \"26.0.0\"");
    let before = snapshot(&lab.ws.ws);
    let checked = lab.ok(&[], "config_check", json!({}));
    assert_eq!((checked["ok"].clone(), checked["errors"].clone()), (json!(false), json!(4)), "{checked}");
    let expected = [
        (module, "\"MainAbility\"", "EntryAbility"),
        (module, "\"$string:EntryAbility_title\"", "string.json"),
        (pages, "\"pages/Settings\"", "entry/src/main/ets/pages/Settings.ets"),
        (profile, "\"26.0.0\"", "compatibleSdkVersion"),
    ];
    for (file, needle, fix_says) in expected {
        let (line, column) = place(&lab, file, needle);
        let problems = checked["problems"].as_array().unwrap();
        let found = problems
            .iter()
            .find(|p| p["file"] == json!(file) && p["line"] == json!(line) && p["column"] == json!(column));
        let found = found.unwrap_or_else(|| panic!("{file}:{line}:{column}: {checked}"));
        assert_eq!(found["severity"], json!("error"));
        assert!(found["fix"].as_str().unwrap().contains(fix_says), "{found}");
    }
    assert_eq!(error_at(&checked, profile)["file"], json!(profile));
    assert_eq!(snapshot(&lab.ws.ws), before, "config_check changed nothing on disk");
}

#[test]
fn every_recipe_stops_at_a_broken_configuration_before_its_build() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.replace_in("entry/src/main/module.json5", "\"mainElement\": \"EntryAbility\"", "\"mainElement\": \"Nope\"");
    for (recipe, args) in [
        ("build-verify", json!({})),
        ("sign-install-launch", json!({})),
        ("device-matrix", json!({})),
        (
            "edit-and-verify",
            json!({"path": "entry/src/main/ets/pages/Index.ets", "edits": [{"old_string": "Hello World", "new_string": "Hello"}]}),
        ),
    ] {
        let before = snapshot(&lab.ws.ws);
        let (status, out) = lab.recipe(&["--yes"], recipe, args);
        assert_eq!(status, 1, "{recipe}: {out}");
        let failure = &out["error"]["details"]["failure"];
        assert_eq!(failure["code"], json!("CONFIG_INVALID"), "{recipe}: {out}");
        let problems = failure["details"]["problems"].as_array().unwrap();
        assert!(
            problems.iter().any(|p| p["file"] == json!("entry/src/main/module.json5") && p["line"].as_u64() > Some(1)),
            "{recipe}: {out}"
        );
        assert!(lab.command_lines("hvigorw").is_empty(), "{recipe}: nothing was built");
        let after: BTreeMap<String, Vec<u8>> = snapshot(&lab.ws.ws)
            .into_iter()
            .filter(|(k, _)| !k.starts_with("tmp") && !k.starts_with("fake-state"))
            .collect();
        let before: BTreeMap<String, Vec<u8>> =
            before.into_iter().filter(|(k, _)| !k.starts_with("tmp") && !k.starts_with("fake-state")).collect();
        assert_eq!(after, before, "{recipe}: the project is as it was");
    }
}

#[test]
fn rein_new_app_writes_through_project_create_into_a_folder_and_never_twice() {
    let Some(lab) = lab() else { return };
    let new_app = [
        "new",
        "app",
        "--bundle-name",
        HELLO,
        "--app-name",
        "Hello",
        "--path",
        "apps/hello",
        "--runtime-os",
        "OpenHarmony",
        "--compatible-sdk",
        "12",
        "--compile-sdk",
        "20",
    ];
    let (status, out) = lab.rein(&new_app);
    assert_eq!(status, 0, "{out}");
    assert_eq!(out["result"]["check"]["errors"], json!(0), "{out}");
    let profile = std::fs::read_to_string(lab.ws.path("apps/hello/build-profile.json5")).unwrap();
    assert!(
        profile.contains("\"compatibleSdkVersion\": 12,") && profile.contains("\"compileSdkVersion\": 20,"),
        "{profile}"
    );
    let checked = lab.ok(&[], "config_check", json!({"path": "apps/hello"}));
    assert_eq!(checked["errors"], json!(0), "{checked}");
    assert!(
        checked["problems"].as_array().unwrap().iter().all(|p| p["file"].as_str().unwrap().starts_with("apps/hello/")),
        "{checked}"
    );
    let before = snapshot(&lab.ws.ws);
    let (status, out) = lab.rein(&new_app);
    assert_eq!((status, out["error"]["code"].as_str()), (1, Some("PROJECT_EXISTS")), "{out}");
    assert_eq!(snapshot(&lab.ws.ws), before);
}

/// build-profile.json5 is the agent's to write: a module's `srcPath` leading out of the
/// workspace (`../elsewhere/entry`, or an absolute path) had config_check read that folder's
/// module.json5 — asking, so that `--yes` (or a person's yes for the run) let it — and show its
/// values in the problems, which land in every recipe's report. It reads only the workspace.
#[test]
fn config_check_reads_no_file_a_src_path_names_outside_the_workspace() {
    let ws = crate::common::Workspace::new();
    let outside = ws.root.join("elsewhere/entry/src/main");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("module.json5"),
        r#"{"module": {"name": "TOPSECRET-42", "type": "entry", "deviceTypes": ["phone"], "deliveryWithInstall": true}}"#,
    )
    .unwrap();
    let absolute = crate::common::toml_path(&ws.root.join("elsewhere/entry"));
    for src_path in ["\"../elsewhere/entry\"".to_string(), absolute] {
        ws.file(
            "build-profile.json5",
            format!(
                "{{ app: {{ products: [{{ name: \"default\" }}], signingConfigs: [] }},\n  modules: [{{ name: \"entry\", srcPath: {src_path} }}] }}\n"
            ),
        );
        let (status, out) = crate::common::rein_json(&ws, &["--yes", "call", "config_check"]);
        assert_eq!(status, 0, "{out}");
        assert!(!out.to_string().contains("TOPSECRET"), "a file outside the workspace was read: {out:#}");
        assert_eq!(out["result"]["ok"], json!(false), "the module is not in the workspace: {out:#}");
        let mut journal = String::new();
        for entry in std::fs::read_dir(ws.path(".rein/journal")).unwrap() {
            journal.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
        }
        assert!(!journal.contains("--yes"), "nothing was asked, so --yes allowed nothing: {journal}");
    }
}

/// The same for rein's own tools, which read the project through harmony.project (app_launch,
/// device_test, local_test, api_check, every recipe's preflight): a module whose srcPath leads
/// out of the workspace — a path, or a link in the workspace — is refused before anything of it
/// is read or asked about.
#[test]
fn rein_s_tools_read_no_module_a_src_path_or_link_places_outside_the_workspace() {
    let ws = crate::common::Workspace::new();
    let outside = ws.root.join("elsewhere/entry/src/main");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("module.json5"),
        r#"{"module": {"name": "entry", "type": "entry", "mainElement": "TOPSECRET-42"}}"#,
    )
    .unwrap();
    ws.file("AppScope/app.json5", r#"{"app": {"bundleName": "com.example.hello"}}"#);
    // A link out is tried where the test can make one (Wine cannot).
    #[cfg(unix)]
    let src_paths = {
        std::os::unix::fs::symlink(ws.root.join("elsewhere/entry"), ws.path("linked")).unwrap();
        ["../elsewhere/entry", "linked"].map(String::from).to_vec()
    };
    #[cfg(not(unix))]
    let src_paths = vec!["../elsewhere/entry".to_string()];
    for src_path in src_paths {
        ws.file("build-profile.json5", format!("{{ modules: [{{ name: \"entry\", srcPath: \"{src_path}\" }}] }}"));
        let (status, out) = crate::common::rein_json(&ws, &["--yes", "call", "project_info"]);
        assert_eq!(status, 1, "{out}");
        assert_eq!(out["error"]["code"], json!("CONFIG_INVALID"), "{out:#}");
        assert!(!out.to_string().contains("TOPSECRET"), "{src_path}: read outside the workspace: {out:#}");
    }
    let mut journal = String::new();
    for entry in std::fs::read_dir(ws.path(".rein/journal")).unwrap() {
        journal.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap());
    }
    assert!(!journal.contains("--yes"), "nothing was asked, so --yes allowed nothing: {journal}");

    // A module at the workspace's root (srcPath "./") is the workspace's own.
    ws.file("build-profile.json5", r#"{ modules: [{ name: "entry", srcPath: "./" }] }"#);
    let (status, out) = crate::common::rein_json(&ws, &["call", "project_info"]);
    assert_eq!(status, 0, "{out}");
}
