//! Apps of several packages (tests/fixtures/multi-app: an entry HAP and a feature HAP that both
//! depend on an HSP): every package is built, signed and installed together, as one `bm install
//! -p <folder>` on the device; the entry alone is refused with 9568305, as the real installer
//! refuses it. On the fakes and on the real hdc (the rig).

use serde_json::{json, Value};

use crate::common::lab::{lab_of, step, Lab, KEY};
use crate::common::rig::rig_lab_of;

const ENTRY: &str = "entry/build/default/outputs/default/entry-default-signed.hap";
const FEATURE: &str = "feature/build/default/outputs/default/feature-default-signed.hap";
const LIBRARY: &str = "library/build/default/outputs/default/library-default-signed.hsp";
const BUNDLE: &str = "com.example.multi";

/// The modules the device has of the app, sorted.
fn installed_modules(lab: &Lab, key: &str) -> Vec<String> {
    let app = &lab.read_device(key)["installed"][BUNDLE];
    let mut names: Vec<String> = app["modules"].as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default();
    names.sort();
    names
}

/// sign-install-launch on the lab's one device: the install step's evidence names every
/// package, the device has every module, and the app launched.
fn every_package_installs_and_launches(lab: &Lab, key: &str) -> Value {
    let (status, out) = lab.recipe(&["--yes"], "sign-install-launch", json!({}));
    assert_eq!(status, 0, "{out}");
    let report = lab.report(&out);
    let sign = step(&report, "sign");
    assert_eq!(sign["output"]["packages"], json!([ENTRY, FEATURE, LIBRARY]), "{sign:#}");
    let install = step(&report, "install");
    let evidence = install["evidence"][0].as_str().unwrap();
    assert_eq!(evidence, format!("install bundle successfully. ({ENTRY}, {FEATURE}, {LIBRARY})"));
    let staged = install["output"]["staged"].as_str().expect("a staged folder");
    assert!(staged.starts_with(".rein/install/"), "{install:#}");
    let command =
        install["commands"].as_array().unwrap().iter().find(|c| c["command"].as_str().unwrap().contains(" install "));
    assert!(command.unwrap()["command"].as_str().unwrap().ends_with(&format!("install -r {staged}")), "{install:#}");
    assert_eq!(installed_modules(lab, key), ["entry", "feature", "library"]);
    assert!(step(&report, "launch")["output"]["pid"].as_i64().is_some(), "{report:#}");
    report
}

#[test]
fn every_package_of_the_app_is_installed_together_and_the_app_launches() {
    let Some(lab) = lab_of("multi-app") else { return };
    lab.one_device();
    every_package_installs_and_launches(&lab, KEY);
    // The fake hdc sent the folder as one `bm install -p <folder>` (one transaction).
    let installs: Vec<Value> =
        lab.calls().into_iter().filter(|c| c["program"] == "bm" && c["argv"][0] == "install").collect();
    assert_eq!(installs.len(), 1, "{installs:?}");
}

/// What every helper before this change did: install the entry HAP alone. The device refuses it
/// with 9568305 and says which module is missing (the installer's result line).
#[test]
fn the_entry_hap_alone_is_refused_with_9568305() {
    let Some(lab) = lab_of("multi-app") else { return };
    lab.one_device();
    lab.build();
    let error = lab.failed(&["--yes"], "app_install", json!({"hap": ENTRY}), "INSTALL_FAILED");
    assert_eq!(error["details"]["code"], json!("9568305"), "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("entry's dependent module: library does not exist"), "{message}");
    assert!(error["details"]["remedy"].as_str().unwrap().contains("every package of the app together"), "{error}");
    assert!(installed_modules(&lab, KEY).is_empty(), "nothing was installed");

    let together = lab.ok(&["--yes"], "app_install", json!({"packages": [ENTRY, FEATURE, LIBRARY]}));
    assert_eq!(together["packages"], json!([ENTRY, FEATURE, LIBRARY]), "{together}");
    assert_eq!(installed_modules(&lab, KEY), ["entry", "feature", "library"]);
}

#[test]
fn a_package_set_is_refused_whole_for_a_foreign_package_and_no_folder_is_taken() {
    let Some(lab) = lab_of("multi-app") else { return };
    lab.one_device();
    lab.build();
    // A feature HAP of another bundle in the set: bm refuses the set (9568277), installs none.
    lab.replace_in("AppScope/app.json5", BUNDLE, "com.example.other");
    lab.ok(&[], "hvigor_build", json!({"module": "feature"}));
    let error = lab.failed(&["--yes"], "app_install", json!({"packages": [ENTRY, FEATURE, LIBRARY]}), "INSTALL_FAILED");
    assert_eq!(error["details"]["code"], json!("9568277"), "{error}");
    assert!(installed_modules(&lab, KEY).is_empty());
    // A folder of the workspace is no package: hdc would send it whole.
    let installs = || lab.ran("hdc").iter().filter(|line| line.contains(" install ")).count();
    let before = installs();
    for (packages, says) in [(json!(["entry", LIBRARY]), "not a package"), (json!([LIBRARY, LIBRARY]), "two packages")]
    {
        let (status, out) = lab.call(&["--yes"], "app_install", json!({ "packages": packages }));
        assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_ARGS")), "{out}");
        assert!(out["error"]["message"].as_str().unwrap().contains(says), "{out}");
    }
    assert_eq!(installs(), before, "no install ran");
}

#[test]
fn every_package_is_installed_together_through_the_real_hdc() {
    let Some((lab, rig)) = rig_lab_of("multi-app") else { return };
    every_package_installs_and_launches(&lab, &rig.key);
    // The real client sent the folder as one tar; the real daemon unpacked it in its
    // /data/local/tmp and ran one bm install on the folder, then removed it.
    let bm: Vec<Value> =
        lab.calls().into_iter().filter(|c| c["program"] == "bm" && c.get("device").is_some()).collect();
    let installs: Vec<&Value> = bm.iter().filter(|c| c["argv"][0] == "install").collect();
    assert_eq!(installs.len(), 1, "{bm:?}");
    let argv: Vec<&str> = installs[0]["argv"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert_eq!(argv[..3], ["install", "-r", "-p"], "{argv:?}");
    assert!(argv[3].starts_with("/data/local/tmp/") && !argv[3].ends_with(".hap"), "a folder: {argv:?}");
    let left: Vec<_> = std::fs::read_dir(rig.dir.path().join("data-local-tmp")).unwrap().collect();
    assert!(left.is_empty(), "the daemon removes what it unpacked: {left:?}");
}

#[test]
fn the_entry_hap_alone_is_refused_with_9568305_through_the_real_hdc() {
    let Some((lab, rig)) = rig_lab_of("multi-app") else { return };
    lab.build();
    let error = lab.failed(&["--yes"], "app_install", json!({"hap": ENTRY}), "INSTALL_FAILED");
    assert_eq!(error["details"]["code"], json!("9568305"), "{error}");
    assert!(installed_modules(&lab, &rig.key).is_empty());
}

/// Without a signingConfig on the product hvigor signs nothing: hap-sign-tool signs every
/// module's unsigned package, the HSP too, and all of them are installed.
#[test]
fn hap_sign_tool_signs_every_package_of_the_app() {
    use crate::common::signing::{KEY_PASSWORD, STORE_PASSWORD};
    let Some(lab) = lab_of("multi-app") else { return };
    lab.one_device();
    lab.configure(
        "\n[signing.default]\nkeystore_password_env = \"REIN_T_STORE_PW\"\nkey_password_env = \"REIN_T_KEY_PW\"\n",
    );
    lab.replace_in("build-profile.json5", "\"signingConfig\": \"default\",", "");
    let payload = json!({}).to_string();
    let mut cmd = lab.command(&["--yes", "recipe", "sign-install-launch", &payload]);
    cmd.env("REIN_T_STORE_PW", STORE_PASSWORD).env("REIN_T_KEY_PW", KEY_PASSWORD);
    let (status, out) = crate::common::run_json(&mut cmd, None);
    assert_eq!(status, 0, "{out}");
    let report = lab.report(&out);
    let sign = step(&report, "sign");
    assert_eq!(sign["output"]["signed_by"], json!("hap-sign-tool"), "{sign:#}");
    assert_eq!(sign["output"]["packages"], json!([ENTRY, FEATURE, LIBRARY]), "{sign:#}");
    let signed: Vec<&str> =
        sign["commands"].as_array().unwrap().iter().map(|c| c["command"].as_str().unwrap()).collect();
    assert_eq!(signed.len(), 3, "one sign-app per package: {signed:?}");
    for package in [ENTRY, FEATURE, LIBRARY] {
        assert!(lab.verify_app(package).contains("verify-app success"), "{package}");
    }
    assert_eq!(installed_modules(&lab, KEY), ["entry", "feature", "library"]);
}

/// The agent names a package outside the workspace: staging would copy it into `.rein/` and hdc
/// would send it on, though `hdc install` of the file itself is refused. Refused before anything
/// is read or asked, even with --yes.
#[test]
fn a_package_outside_the_workspace_is_not_staged_even_with_yes() {
    let Some(lab) = lab_of("multi-app") else { return };
    lab.one_device();
    lab.build();
    let outside = lab.ws.root.join("outside.hap");
    std::fs::copy(lab.ws.path(ENTRY), &outside).unwrap();
    let packages = json!([outside.display().to_string(), FEATURE, LIBRARY]);
    let (status, out) = lab.call(&["--yes"], "app_install", json!({ "packages": packages }));
    assert_eq!((status, out["error"]["code"].as_str()), (2, Some("INVALID_ARGS")), "{out}");
    assert!(out["error"]["message"].as_str().unwrap().contains("inside the workspace"), "{out}");
    let staged = std::fs::read_dir(lab.ws.path(".rein/install")).map(|d| d.count()).unwrap_or(0);
    assert_eq!(staged, 0, "nothing was staged");
    assert!(installed_modules(&lab, KEY).is_empty());
}
