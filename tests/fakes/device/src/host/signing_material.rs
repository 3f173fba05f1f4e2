//! `rein-fake-device signing-material JAR DIR [--store-password P] [--key-password K]`: real
//! signing material for the fixture project, made with the real hap-sign-tool.
//!
//! Writes DIR/debug.p12 (the keystore: the app's key `debugKey` and the CAs'), DIR/debug.cer (the
//! app certificate chain), DIR/debug.p7b (a debug profile for com.example.hello, signed) and
//! DIR/profile.json (that profile's content), running `java -jar JAR` in the sequence of
//! `openharmony/developtools_hapsigner` `autosign/createRootAndSubCert.config` and
//! `createAppCertAndProfile.config`: key pairs, a root CA with an app CA and a profile CA under
//! it, the app certificate, the profile certificate, sign-profile. Every key has the key
//! password; the keystore has the store password. java is `$JAVA_HOME/bin/java`, else `java`.
//! rein's tests (tests/common/signing.rs) and `fake-env` run it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::json;

pub const COMMAND: &str = "signing-material";

const KEY_ALIAS: &str = "debugKey";
const BUNDLE: &str = "com.example.hello";
const ROOT: &str = "C=CN,O=rein tests,OU=rein,CN=Root CA";
const APP_CA: &str = "C=CN,O=rein tests,OU=rein,CN=Application CA";
const PROFILE_CA: &str = "C=CN,O=rein tests,OU=rein,CN=Profile CA";
/// A JVM that runs for a second starts faster with C1 only and the serial collector.
const JVM: [&str; 2] = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"];

/// A debug profile in the shape of `autosign/UnsgnedReleasedProfileTemplate.json`.
fn debug_profile(app_cert: &str) -> serde_json::Value {
    json!({
        "version-name": "2.0.0", "version-code": 2, "app-distribution-type": "os_integration",
        "uuid": "5027b99e-5f9e-465d-9508-a9e0134ffe18",
        "validity": {"not-before": 1594865258, "not-after": 4102444800u64},
        "type": "debug",
        "bundle-info": {"developer-id": "OpenHarmony", "development-certificate": app_cert,
                        "bundle-name": BUNDLE, "apl": "normal", "app-feature": "hos_normal_app"},
        "debug-info": {"device-ids": [], "device-id-type": "udid"},
        "acls": {"allowed-acls": [""]},
        "permissions": {"restricted-permissions": []},
        "issuer": "pki_internal",
    })
}

struct Options {
    jar: PathBuf,
    dir: PathBuf,
    store_password: String,
    key_password: String,
}

fn parse(args: &[String]) -> Option<Options> {
    let mut positional = Vec::new();
    let (mut store_password, mut key_password) = ("Store-Pl41ntext!".to_string(), "Key-Pl41ntext?".to_string());
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "--store-password" => store_password = words.next()?.clone(),
            "--key-password" => key_password = words.next()?.clone(),
            _ => positional.push(PathBuf::from(word)),
        }
    }
    let [jar, dir] = <[PathBuf; 2]>::try_from(positional).ok()?;
    Some(Options { jar, dir, store_password, key_password })
}

pub fn main(args: &[String]) -> i32 {
    let Some(options) = parse(args) else {
        eprintln!("usage: rein-fake-device {COMMAND} JAR DIR [--store-password P] [--key-password K]");
        return 2;
    };
    match make(&options) {
        Ok(()) => 0,
        Err(why) => {
            eprintln!("{COMMAND}: {why}");
            1
        }
    }
}

fn make(o: &Options) -> Result<(), String> {
    std::fs::create_dir_all(&o.dir).map_err(|e| format!("{}: {e}", o.dir.display()))?;
    // Fresh material: a keystore already there (the fixture's placeholder) would be opened.
    for name in ["debug.p12", "debug.cer", "debug.p7b", "profile.json", "profile.pem"] {
        let _ = std::fs::remove_file(o.dir.join(name));
    }
    let java = match std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
        Some(home) => Path::new(&home).join("bin").join(format!("java{}", std::env::consts::EXE_SUFFIX)),
        None => PathBuf::from("java"),
    };
    let run = |words: &[&str]| -> Result<(), String> {
        let mut cmd = Command::new(&java);
        cmd.args(JVM).arg("-jar").arg(&o.jar).args(words).current_dir(&o.dir).stdin(Stdio::null());
        let done = cmd.output().map_err(|e| format!("run {}: {e}", java.display()))?;
        if done.status.success() {
            return Ok(());
        }
        let (out, err) = (String::from_utf8_lossy(&done.stdout), String::from_utf8_lossy(&done.stderr));
        Err(format!("{} failed ({}):\n{out}{err}", words[0], done.status))
    };
    let (store, key) = (o.store_password.as_str(), o.key_password.as_str());
    let keys = ["-keystoreFile", "debug.p12", "-keystorePwd", store, "-keyPwd", key];
    let ecc = ["-keyAlg", "ECC", "-keySize", "NIST-P-256"];
    let signed_by = |issuer: &'static str, alias: &'static str| {
        ["-issuer", issuer, "-issuerKeyAlias", alias, "-issuerKeyPwd", key, "-signAlg", "SHA256withECDSA"]
    };
    for alias in [KEY_ALIAS, "profileKey"] {
        run(&all(&[&["generate-keypair", "-keyAlias", alias], &ecc, &keys]))?;
    }
    let root = ["generate-ca", "-keyAlias", "rootCa", "-subject", ROOT, "-validity", "3650", "-outFile", "root-ca.cer"];
    run(&all(&[&root, &ecc, &["-signAlg", "SHA256withECDSA"], &keys]))?;
    for (alias, subject, out) in [("appCa", APP_CA, "app-ca.cer"), ("profileCa", PROFILE_CA, "profile-ca.cer")] {
        let ca = ["generate-ca", "-keyAlias", alias, "-subject", subject, "-validity", "3650", "-outFile", out];
        run(&all(&[&ca, &ecc, &signed_by(ROOT, "rootCa"), &keys]))?;
    }
    let chain = ["-rootCaCertFile", "root-ca.cer", "-outForm", "certChain", "-validity", "3650"];
    let app = [
        "generate-app-cert",
        "-keyAlias",
        KEY_ALIAS,
        "-subject",
        "C=CN,O=rein tests,OU=rein,CN=Debug",
        "-subCaCertFile",
        "app-ca.cer",
    ];
    run(&all(&[&app, &signed_by(APP_CA, "appCa"), &chain, &["-outFile", "debug.cer"], &keys]))?;
    let profile_cert = [
        "generate-profile-cert",
        "-keyAlias",
        "profileKey",
        "-subject",
        "C=CN,O=rein tests,OU=rein,CN=Profile Debug",
        "-subCaCertFile",
        "profile-ca.cer",
    ];
    run(&all(&[&profile_cert, &signed_by(PROFILE_CA, "profileCa"), &chain, &["-outFile", "profile.pem"], &keys]))?;
    let chain_text = std::fs::read_to_string(o.dir.join("debug.cer")).map_err(|e| format!("debug.cer: {e}"))?;
    const END: &str = "-----END CERTIFICATE-----";
    let begin = chain_text.find("-----BEGIN CERTIFICATE-----").ok_or("debug.cer holds no certificate")?;
    let end =
        chain_text[begin..].find(END).map(|e| begin + e + END.len()).ok_or("debug.cer: an unended certificate")?;
    let profile = debug_profile(&format!("{}\n", &chain_text[begin..end]));
    std::fs::write(o.dir.join("profile.json"), profile.to_string()).map_err(|e| format!("profile.json: {e}"))?;
    let sign = [
        "sign-profile",
        "-mode",
        "localSign",
        "-keyAlias",
        "profileKey",
        "-profileCertFile",
        "profile.pem",
        "-inFile",
        "profile.json",
        "-signAlg",
        "SHA256withECDSA",
        "-outFile",
        "debug.p7b",
    ];
    run(&all(&[&sign, &keys]))
}

fn all<'a>(parts: &[&[&'a str]]) -> Vec<&'a str> {
    parts.concat()
}
