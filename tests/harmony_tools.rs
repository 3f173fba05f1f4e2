//! The HarmonyOS tools against the fake toolchain (tests/fakes): builds, signing, devices,
//! installs whose failures hdc reports with exit 0, launches and logs.

use crate::common::run_json;
use serde_json::json;

use crate::common::lab::{fakes_path, lab, KEY};

const SIGNED: &str = "entry/build/default/outputs/default/entry-default-signed.hap";
const UNSIGNED: &str = "entry/build/default/outputs/default/entry-default-unsigned.hap";

#[test]
fn project_info_reads_the_json5_files() {
    let Some(lab) = lab() else { return };
    let info = lab.ok(&[], "project_info", json!({}));
    assert_eq!(info["bundle_name"], json!("com.example.hello"));
    assert_eq!(info["version_code"], json!(1000000));
    assert_eq!(info["modules"][0]["main_element"], json!("EntryAbility"));
    assert_eq!(info["modules"][0]["abilities"][0], json!({"name": "EntryAbility", "exported": true}));
    assert_eq!(info["signing_configs"], json!(["default"]));
}

#[test]
fn a_build_returns_its_haps_and_runs_the_documented_command() {
    let Some(lab) = lab() else { return };
    let result = lab.build();
    let paths: Vec<&str> = result["haps"].as_array().unwrap().iter().map(|h| h["path"].as_str().unwrap()).collect();
    assert!(paths.contains(&SIGNED) && paths.contains(&UNSIGNED), "{result}");
    // hvigor's SignHap signed with the real hap-sign-tool: the real verify-app accepts it, and
    // refuses the unsigned one.
    assert!(lab.verify_app(SIGNED).contains("verify-app success"), "{}", lab.verify_app(SIGNED));
    assert!(lab.verify_app(UNSIGNED).contains("No Hap Signing Block"), "{}", lab.verify_app(UNSIGNED));
    let call = lab.calls().into_iter().find(|c| c["program"] == "hvigorw").unwrap();
    assert_eq!(
        call["argv"],
        json!(["--mode", "module", "-p", "product=default", "-p", "buildMode=debug", "assembleHap", "--no-daemon"])
    );
}

#[test]
fn arkts_errors_come_back_structured_in_both_formats() {
    for format in ["new", "old"] {
        let Some(lab) = lab() else { return };
        lab.scenario(json!({"hvigorw": {"arkts_format": format}}));
        let page = "entry/src/main/ets/pages/Index.ets";
        let text = std::fs::read_to_string(lab.ws.path(page)).unwrap();
        std::fs::write(lab.ws.path(page), text.replacen("build() {", "build() {\n    REIN_FAKE_ARKTS_ERROR", 1))
            .unwrap();
        let error = lab.failed(&[], "hvigor_build", json!({}), "BUILD_FAILED");
        assert_eq!(error["details"]["class"], json!("arkts"), "{format}: {error}");
        let first = &error["details"]["errors"][0];
        assert!(first["file"].as_str().unwrap().ends_with("Index.ets"), "{format}: {first}");
        assert!(first["line"].as_u64().unwrap() > 1 && first["column"].as_u64().is_some(), "{format}: {first}");
        assert!(!first["message"].as_str().unwrap().is_empty());
    }
}

#[test]
fn each_build_failure_class_is_recognised() {
    for (fail, class) in [
        ("sdk_home", "sdk_home"),
        ("java_missing", "java_missing"),
        ("signing", "signing"),
        ("dependency", "dependency"),
        ("unknown", "unknown"),
    ] {
        let Some(lab) = lab() else { return };
        lab.scenario(json!({"hvigorw": {"fail": fail}}));
        let error = lab.failed(&[], "hvigor_build", json!({}), "BUILD_FAILED");
        assert_eq!(error["details"]["class"], json!(class), "{fail}: {error}");
        assert!(!error["details"]["remedy"].as_str().unwrap().is_empty());
    }
}

#[test]
fn a_build_that_exits_zero_without_success_still_fails() {
    let Some(lab) = lab() else { return };
    lab.scenario(json!({"hvigorw": {"fail": "unknown", "exit_code": 0}}));
    lab.failed(&[], "hvigor_build", json!({}), "BUILD_FAILED");
}

#[test]
fn device_list_reports_none_one_and_unauthorized() {
    let Some(lab) = lab() else { return };
    assert_eq!(lab.ok(&[], "device_list", json!({}))["devices"], json!([]));
    lab.devices(json!([{"key": KEY, "name": "phone"}, {"key": "U1", "status": "Unauthorized"}]));
    let devices = lab.ok(&[], "device_list", json!({}))["devices"].clone();
    assert_eq!(devices[0]["key"], json!(KEY));
    assert_eq!(devices[0]["status"], json!("Connected"));
    assert_eq!(devices[1]["status"], json!("Unauthorized"));
    assert!(!devices[1]["remedy"].as_str().unwrap().is_empty());
}

#[test]
fn install_needs_approval_headless_and_succeeds_with_yes() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.build();
    let error = lab.failed(&[], "app_install", json!({"hap": SIGNED}), "APPROVAL_REQUIRED");
    let grant = format!("rein approvals grant hdc -t {KEY} install -r");
    assert!(error["message"].as_str().unwrap().contains(&grant), "{error}");
    let result = lab.ok(&["--yes"], "app_install", json!({"hap": SIGNED}));
    assert_eq!(result["evidence"], json!("install bundle successfully."));
    assert!(lab.read_device(KEY)["installed"]["com.example.hello"].is_object());
}

#[test]
fn every_install_failure_is_reported_with_its_code_and_remedy_though_hdc_exits_zero() {
    let codes = [9568320, 9568322, 9568332, 9568263, 9568289, 9568297, 9568305, 9568347, 9568257];
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.build();
    for format in ["new", "old"] {
        lab.scenario(json!({"hdc": {"install_format": format}}));
        for code in codes {
            lab.device(KEY, json!({"install_error": code}));
            let error = lab.failed(&["--yes"], "app_install", json!({"hap": SIGNED}), "INSTALL_FAILED");
            assert_eq!(error["details"]["code"], json!(code.to_string()), "{format} {code}: {error}");
            assert!(!error["details"]["remedy"].as_str().unwrap_or("").is_empty(), "{code}: {error}");
        }
    }
    let hdc_exits: Vec<i64> = lab.calls().iter().filter(|c| c["program"] == "hdc").map(|_| 0).collect();
    assert!(!hdc_exits.is_empty());
}

#[test]
fn real_install_failures_come_from_device_state() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.build();
    // rein sends no unsigned package to a phone; one renamed to hide it meets the phone's check.
    lab.failed(&["--yes"], "app_install", json!({"hap": UNSIGNED}), "UNSIGNED_HAP_REFUSED");
    std::fs::copy(lab.ws.path(UNSIGNED), lab.ws.path("entry/renamed.hap")).unwrap();
    let unsigned = lab.failed(&["--yes"], "app_install", json!({"hap": "entry/renamed.hap"}), "INSTALL_FAILED");
    assert_eq!(unsigned["details"]["code"], json!("9568320"));
    let other_signer =
        json!({"installed": {"com.example.hello": {"versionCode": 1000000, "signer": "release.p12/releaseKey"}}});
    lab.device(KEY, other_signer);
    let mismatch = lab.failed(&["--yes"], "app_install", json!({"hap": SIGNED}), "INSTALL_FAILED");
    assert_eq!(mismatch["details"]["code"], json!("9568332"));
    assert!(mismatch["details"]["remedy"].as_str().unwrap().contains("uninstall"));
    let newer = json!({"installed": {"com.example.hello": {"versionCode": 2000000, "signer": lab.signer()}}});
    lab.device(KEY, newer);
    let downgrade = lab.failed(&["--yes"], "app_install", json!({"hap": SIGNED}), "INSTALL_FAILED");
    assert_eq!(downgrade["details"]["code"], json!("9568263"));
}

#[test]
fn hdc_fail_lines_are_device_errors_with_a_fix() {
    let Some(lab) = lab() else { return };
    lab.build();
    let none = lab.failed(&["--yes"], "app_install", json!({"hap": SIGNED}), "DEVICE_UNAVAILABLE");
    assert!(none["message"].as_str().unwrap().contains("connect-key"), "{none}");
    lab.devices(json!([{"key": "OFF1", "status": "Offline"}]));
    let offline = lab.failed(&["--yes"], "app_install", json!({"hap": SIGNED, "target": "OFF1"}), "DEVICE_UNAVAILABLE");
    assert_eq!(offline["details"]["code"], json!("E001005"));
    for (denied, code) in [(false, "E000002"), (true, "E000003")] {
        lab.devices(json!([{"key": "U1", "status": "Unauthorized", "auth_denied": denied}]));
        let error = lab.failed(&["--yes"], "app_install", json!({"hap": SIGNED, "target": "U1"}), "DEVICE_UNAVAILABLE");
        assert_eq!(error["details"]["code"], json!(code));
        assert!(!error["details"]["remedy"].as_str().unwrap().is_empty());
    }
}

#[test]
fn launch_uses_project_defaults_and_proves_the_new_process() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.build();
    lab.ok(&["--yes"], "app_install", json!({"hap": SIGNED}));
    let launched = lab.ok(&["--yes"], "app_launch", json!({}));
    assert_eq!(
        (launched["bundle"].as_str(), launched["ability"].as_str(), launched["module"].as_str()),
        (Some("com.example.hello"), Some("EntryAbility"), Some("entry"))
    );
    assert_eq!(launched["pid"], json!(2291));
    assert!(
        launched["lines"][0].as_str().unwrap().ends_with("2291  2291 I A00000/testTag: Ability onCreate"),
        "{launched}"
    );
    let log = lab.ok(&[], "hilog_read", json!({"grep": "onCreate"}));
    assert_eq!(log["count"], json!(1), "{log}");
    assert_eq!(log["entries"][0]["message"], json!("Ability onCreate"));
    assert_eq!(log["entries"][0]["level"], json!("I"));
    lab.ok(&["--yes"], "app_stop", json!({}));
    lab.ok(&["--yes"], "app_uninstall", json!({}));
    assert!(lab.read_device(KEY)["installed"].get("com.example.hello").is_none());
}

#[test]
fn launch_failures_carry_the_aa_code() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    lab.device(KEY, json!({"start_error": 10104001}));
    let error = lab.failed(&["--yes"], "app_launch", json!({}), "LAUNCH_FAILED");
    assert_eq!(error["details"]["code"], json!("10104001"));
    assert!(!error["details"]["remedy"].as_str().unwrap().is_empty());
}

#[test]
fn screenshots_land_in_the_workspace() {
    let Some(lab) = lab() else { return };
    lab.one_device();
    let shot = lab.ok(&["--yes"], "screenshot", json!({"out": "shots/home.jpeg"}));
    assert_eq!(shot["path"], json!("shots/home.jpeg"));
    let bytes = std::fs::read(lab.ws.path("shots/home.jpeg")).unwrap();
    assert_eq!(&bytes[..2], &[0xFF, 0xD8], "a JPEG");
    let outside = lab.ws.root.join("x.jpeg").display().to_string();
    lab.failed(&["--yes"], "screenshot", json!({"out": outside}), "APPROVAL_DENIED");
    assert!(!lab.ws.root.join("x.jpeg").exists(), "nothing is written outside the workspace");
}

#[test]
fn doctor_finds_the_toolchain_on_path_with_versions() {
    let Some(lab) = lab() else { return };
    let mut cmd = lab.ws.command(&["doctor"]);
    cmd.env("PATH", fakes_path())
        .env("TMPDIR", lab.ws.root.join("tmp"))
        .env(crate::common::lab::STATE_VAR, &lab.state)
        .env_remove("DEVECO_SDK_HOME")
        .env_remove("OHOS_BASE_SDK_HOME");
    let (status, out) = run_json(&mut cmd, None);
    assert_eq!(status, 0, "{out}");
    let programs = out["result"]["programs"].as_array().unwrap();
    let find = |name: &str| programs.iter().find(|p| p["program"] == name).unwrap().clone();
    let hdc = find("hdc");
    assert_eq!((hdc["found"].clone(), hdc["via"].clone()), (json!(true), json!("PATH")));
    assert_eq!(hdc["version"], json!("3.2.0f"), "the version, not the line it came in");
    assert_eq!(find("hvigorw")["version"], json!("5.18.4"));
    assert_eq!(find("ohpm")["version"], json!("5.0.8"));
    let sign = find("hap-sign-tool");
    assert_eq!((sign["via"].clone(), sign["version"].clone()), (json!("config"), json!("1.0.0")), "{sign}");
    assert_eq!(find("hvigorw")["found"], json!(true));
    // As people know the path (on Windows without the verbatim prefix of the test's own).
    assert_eq!(out["result"]["config"]["path"], json!(rein::visible::shown_path(lab.ws.home.join("config.toml"))));
    assert_eq!(out["result"]["config"]["read"], json!(true));
    // git is the machine's, not the toolchain's: Wine has no git.exe, and doctor says so.
    let git = format!("git{}", std::env::consts::EXE_SUFFIX);
    let has_git = std::env::split_paths(&fakes_path()).any(|dir| dir.join(&git).is_file());
    for program in programs {
        if program["program"] == "git" && !has_git {
            assert_eq!(program["found"], json!(false), "{program}");
            continue;
        }
        // DevEco's emulator and codelinter are optional: on Linux this lab has neither (shown
        // with where to get them); on Windows PATH is read without case, so the fakes'
        // `Emulator.exe` is found, and doctor then makes no problem of it either.
        if program["program"] == "emulator" || program["program"] == "codelinter" {
            assert_eq!(program["needed"], json!(false), "{program}");
            if program["found"] == json!(true) {
                assert!(program.get("problem").is_none(), "doctor made no problem of its own: {program}");
            }
            continue;
        }
        assert!(program.get("problem").is_none(), "doctor made no problem of its own: {program}");
    }
}

#[test]
fn doctor_only_looks_it_creates_nothing_in_the_project_or_a_home() {
    let Some(lab) = lab() else { return };
    lab.ws.file("local.properties", "sdk.dir=/opt/sdk\n");
    let user_home = lab.ws.root.join("user");
    std::fs::create_dir_all(&user_home).unwrap();
    let places = [&lab.ws.ws, &lab.ws.home, &user_home];
    let before: Vec<_> = places.iter().map(|p| crate::common::Snapshot::take(p)).collect();
    let doctor = |home: &std::path::Path, flags: &[&str]| {
        let mut cmd = std::process::Command::new(crate::common::REIN);
        cmd.arg("--workspace").arg(&lab.ws.ws).arg("--home").arg(home).args(flags);
        cmd.env("PATH", fakes_path())
            .env("TMPDIR", lab.ws.root.join("tmp"))
            .env("HOME", &user_home)
            .env_remove("DEVECO_SDK_HOME")
            .env_remove("OHOS_BASE_SDK_HOME")
            .env_remove("REIN_HOME");
        crate::common::output_within(&mut cmd, None, crate::common::CALL_TIMEOUT)
    };
    for flags in [&["--json", "doctor"][..], &["doctor"][..]] {
        let out = doctor(&lab.ws.home, flags);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).contains("5.18.4"), "it still reads hvigorw's version");
    }
    for snapshot in &before {
        snapshot.assert_unchanged("rein doctor");
    }
    assert!(!lab.ws.path(".rein").exists(), "no .rein/ (journal, pack sources) made in the project");
    let fresh_home = lab.ws.root.join("never-made-home");
    doctor(&fresh_home, &["doctor"]);
    assert!(!fresh_home.exists(), "a rein home that did not exist is not made");
}

#[test]
fn doctor_says_what_is_missing_and_how_to_fix_it() {
    let Some(lab) = lab() else { return };
    // Only the jar is named: java, like every other program, is looked for and not found.
    let jar = format!("[toolchain]\nhap_sign_tool_jar = {}\n", crate::common::toml_path(&lab.material.jar));
    std::fs::write(lab.ws.home.join("config.toml"), jar).unwrap();
    let mut cmd = lab.ws.command(&["doctor"]);
    cmd.env("PATH", "/nonexistent")
        .env_remove("DEVECO_SDK_HOME")
        .env_remove("OHOS_BASE_SDK_HOME")
        .env_remove("JAVA_HOME");
    let (status, out) = run_json(&mut cmd, None);
    assert_eq!(
        (status, out["error"]["code"].as_str()),
        (1, Some("TOOLCHAIN_NOT_FOUND")),
        "built-in tools need them: {out}"
    );
    let message = out["error"]["message"].as_str().unwrap();
    assert!(message.contains("hap-sign-tool, hdc, hvigorw"), "{message}");
    let programs = out["error"]["details"]["programs"].as_array().unwrap();
    let hdc = programs.iter().find(|p| p["program"] == "hdc").unwrap().clone();
    assert_eq!((hdc["found"].clone(), hdc["needed"].clone()), (json!(false), json!(true)));
    assert!(hdc["problem"].as_str().unwrap().contains("DEVECO_SDK_HOME"));
    // Windows also looks where DevEco Studio installs (src/harmony/discovery.rs), first.
    let tried: Vec<&str> = hdc["tried"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
    let (deveco, path) = tried.split_at(tried.len() - 1);
    assert_eq!(path, ["hdc on PATH"], "{tried:?}");
    assert!(deveco.iter().all(|t| t.contains("(DevEco Studio") && cfg!(windows)), "{tried:?}");
    let ohpm = programs.iter().find(|p| p["program"] == "ohpm").unwrap().clone();
    assert_eq!(ohpm["needed"], json!(false), "no built-in tool runs ohpm");
}

#[cfg(unix)]
#[test]
fn doctor_shows_every_candidate_and_what_local_properties_names_without_running_it() {
    let Some(lab) = lab() else { return };
    // A real hdc where local.properties points: shown, and still not used.
    let hdc = lab.ws.outside_file("deveco/sdk/default/openharmony/toolchains/hdc", "#!/bin/sh\n");
    std::fs::set_permissions(&hdc, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let sdk = lab.ws.root.join("deveco/sdk/default");
    lab.ws.file("local.properties", format!("sdk.dir={}\nnodejs.dir=/opt/node\nhwsdk.dir=/opt/hwsdk\n", sdk.display()));
    let mut cmd = lab.ws.command(&["doctor"]);
    cmd.env("PATH", "/nonexistent")
        .env("DEVECO_SDK_HOME", "/nowhere/clt/sdk")
        .env_remove("OHOS_BASE_SDK_HOME")
        .env_remove("JAVA_HOME");
    let (_, out) = run_json(&mut cmd, None);
    let details = &out["error"]["details"];
    assert_eq!(
        details["candidates"]["hdc"],
        json!(["/nowhere/clt/sdk/default/openharmony/toolchains/hdc (DEVECO_SDK_HOME)"]),
        "{out}"
    );
    assert_eq!(
        details["candidates"]["hvigorw"],
        json!([
            "/nowhere/clt/bin/hvigorw (DEVECO_SDK_HOME)",
            "/nowhere/clt/hvigor/bin/hvigorw (DEVECO_SDK_HOME)",
            "/nowhere/clt/tools/node/bin/node /nowhere/clt/tools/hvigor/bin/hvigorw.js (DEVECO_SDK_HOME)",
            "/nowhere/clt/tools/hvigor/bin/hvigorw (DEVECO_SDK_HOME)"
        ]),
        "the command-line tools' places, then those of a DevEco whose sdk DEVECO_SDK_HOME may be"
    );
    let named = details["from_local_properties"].as_array().expect("local.properties read").clone();
    assert!(
        named.iter().any(|n| n
            .as_str()
            .unwrap()
            .starts_with("node: /opt/node/bin/node (the project's local.properties; not run")),
        "{named:?}"
    );
    assert!(
        named.iter().any(|n| n.as_str().unwrap().starts_with("hdc: /opt/hwsdk/default/openharmony/toolchains/hdc (")),
        "hwsdk.dir is read as sdk.dir is: {named:?}"
    );
    let hdc = details["programs"].as_array().unwrap().iter().find(|p| p["program"] == "hdc").unwrap().clone();
    assert_eq!(hdc["found"], json!(false), "local.properties never makes a program runnable");
}
