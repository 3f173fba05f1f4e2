//! Real signing material, made by the real hap-sign-tool (`REIN_REAL_HAP_SIGN_TOOL`,
//! `real_tools.rs`) in the sequence of `developtools_hapsigner` `autosign/
//! createAppCertAndProfile.config` and `createRootAndSubCert.config`: a keystore with the app's
//! key, a root CA with an app CA and a profile CA under it, the app certificate chain, the
//! profile certificate chain, and a debug profile for `com.example.hello` signed with it.
//!
//! Made once and kept under `target/tmp/rein-signing/` (each java run takes seconds), with a
//! copy of the jar laid out as an SDK's `toolchains/lib/` so the fake hvigorw finds it as the
//! real hvigor does (`OHOS_BASE_SDK_HOME`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::real_tools;

/// The keystore's password and the key password of every key in it (plaintext).
pub const STORE_PASSWORD: &str = "Store-Pl41ntext!";
pub const KEY_PASSWORD: &str = "Key-Pl41ntext?";
/// The fixture's key alias (tests/fixtures/hello-app build-profile.json5).
pub const KEY_ALIAS: &str = "debugKey";
const BUNDLE: &str = "com.example.hello";
/// Bump when the steps below change, so an old cache is not reused.
const LAYOUT: &str = "v1";

pub struct Material {
    /// `debug.p12`, `debug.cer`, `debug.p7b` (the fixture's names), the profile's JSON.
    pub dir: PathBuf,
    /// An SDK holding only `toolchains/lib/hap-sign-tool.jar` (for `OHOS_BASE_SDK_HOME`).
    pub sdk: PathBuf,
    pub jar: PathBuf,
    pub java: PathBuf,
    pub java_home: PathBuf,
    /// Who the device's `bm` says signed a package signed with this material.
    pub signer: String,
}

/// The material, made on first use; `None` (after saying why) when the real tool cannot run.
pub fn material(test: &str) -> Option<&'static Material> {
    static MADE: OnceLock<Result<Material, String>> = OnceLock::new();
    let jar = real_tools::hap_sign_tool(test)?;
    match MADE.get_or_init(|| make(&jar)) {
        Ok(material) => Some(material),
        Err(why) => panic!("{test}: making signing material with the real hap-sign-tool failed: {why}"),
    }
}

fn make(jar: &Path) -> Result<Material, String> {
    let java = which_java()?;
    let java_home = java.parent().and_then(Path::parent).ok_or("java has no home")?.to_path_buf();
    let meta = std::fs::metadata(jar).map_err(|e| e.to_string())?;
    let stamp = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map(|d| d.as_secs());
    let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rein-signing").join(format!(
        "{LAYOUT}-{}-{}",
        meta.len(),
        stamp.unwrap_or(0)
    ));
    if !cache.join("done").exists() {
        std::fs::create_dir_all(cache.parent().unwrap()).map_err(|e| e.to_string())?;
        let work = tempfile::Builder::new()
            .prefix("making-")
            .tempdir_in(cache.parent().unwrap())
            .map_err(|e| e.to_string())?;
        generate(&java, jar, work.path())?;
        std::fs::write(work.path().join("done"), "").map_err(|e| e.to_string())?;
        // Another test process may have finished first: then its copy is as good as ours.
        let _ = std::fs::rename(work.keep(), &cache);
    }
    let dir = cache.join("material");
    let signer = signer_of(&std::fs::read_to_string(dir.join("profile.json")).map_err(|e| e.to_string())?)?;
    Ok(Material {
        sdk: cache.join("sdk"),
        jar: cache.join("sdk/toolchains/lib/hap-sign-tool.jar"),
        dir,
        java,
        java_home,
        signer,
    })
}

fn which_java() -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path).map(|d| d.join("java")).find(|p| p.is_file()).ok_or("no java on PATH")?;
    std::fs::canonicalize(found).map_err(|e| e.to_string())
}

/// Runs `java -jar JAR ARGS` in `dir`; the tool's output when it fails.
fn tool(java: &Path, jar: &Path, dir: &Path, args: &[&str]) -> Result<(), String> {
    let out = Command::new(java)
        .args(["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar"])
        .arg(jar)
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!(
        "{} exited {}: {}{}",
        args[0],
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    ))
}

const ROOT: &str = "C=CN,O=rein tests,OU=rein,CN=Root CA";
const APP_CA: &str = "C=CN,O=rein tests,OU=rein,CN=Application CA";
const PROFILE_CA: &str = "C=CN,O=rein tests,OU=rein,CN=Profile CA";

fn generate(java: &Path, jar: &Path, work: &Path) -> Result<(), String> {
    let dir = work.join("material");
    let lib = work.join("sdk/toolchains/lib");
    std::fs::create_dir_all(&dir).and_then(|()| std::fs::create_dir_all(&lib)).map_err(|e| e.to_string())?;
    std::fs::copy(jar, lib.join("hap-sign-tool.jar")).map_err(|e| e.to_string())?;
    let run = |args: &[&str]| tool(java, jar, &dir, args);
    let keys = ["-keystoreFile", "debug.p12", "-keystorePwd", STORE_PASSWORD, "-keyPwd", KEY_PASSWORD];
    let ecc = ["-keyAlg", "ECC", "-keySize", "NIST-P-256"];
    let signed_by = |issuer: &'static str, alias: &'static str| {
        ["-issuer", issuer, "-issuerKeyAlias", alias, "-issuerKeyPwd", KEY_PASSWORD, "-signAlg", "SHA256withECDSA"]
    };
    for alias in [KEY_ALIAS, "profileKey"] {
        run(&[&["generate-keypair", "-keyAlias", alias][..], &ecc, &keys].concat())?;
    }
    let ca = |alias: &str, subject: &str, issuer: Option<[&str; 8]>, out: &str| {
        let issued = issuer.map(|i| i.to_vec()).unwrap_or(vec!["-signAlg", "SHA256withECDSA"]);
        let head = ["generate-ca", "-keyAlias", alias, "-subject", subject, "-validity", "3650", "-outFile", out];
        run(&[&head[..], &ecc, &issued, &keys].concat())
    };
    ca("rootCa", ROOT, None, "root-ca.cer")?;
    ca("appCa", APP_CA, Some(signed_by(ROOT, "rootCa")), "app-ca.cer")?;
    ca("profileCa", PROFILE_CA, Some(signed_by(ROOT, "rootCa")), "profile-ca.cer")?;
    let chain = ["-rootCaCertFile", "root-ca.cer", "-outForm", "certChain", "-validity", "3650"];
    let subject = "C=CN,O=rein tests,OU=rein,CN=Debug";
    let head = ["generate-app-cert", "-keyAlias", KEY_ALIAS, "-subject", subject, "-subCaCertFile", "app-ca.cer"];
    run(&[&head[..], &signed_by(APP_CA, "appCa"), &chain, &["-outFile", "debug.cer"], &keys].concat())?;
    let subject = "C=CN,O=rein tests,OU=rein,CN=Profile Debug";
    let head =
        ["generate-profile-cert", "-keyAlias", "profileKey", "-subject", subject, "-subCaCertFile", "profile-ca.cer"];
    run(&[&head[..], &signed_by(PROFILE_CA, "profileCa"), &chain, &["-outFile", "profile.pem"], &keys].concat())?;
    let app_cert = first_certificate(&std::fs::read_to_string(dir.join("debug.cer")).map_err(|e| e.to_string())?)?;
    std::fs::write(dir.join("profile.json"), debug_profile(&app_cert).to_string()).map_err(|e| e.to_string())?;
    let head = ["sign-profile", "-mode", "localSign", "-keyAlias", "profileKey", "-profileCertFile", "profile.pem"];
    let tail = ["-inFile", "profile.json", "-signAlg", "SHA256withECDSA", "-outFile", "debug.p7b"];
    run(&[&head[..], &tail, &keys].concat())
}

fn first_certificate(pem: &str) -> Result<String, String> {
    const END: &str = "-----END CERTIFICATE-----";
    let start = pem.find("-----BEGIN CERTIFICATE-----").ok_or("no certificate in debug.cer")?;
    let end = pem[start..].find(END).ok_or("a truncated certificate")? + start + END.len();
    Ok(format!("{}\n", &pem[start..end]))
}

/// A debug profile in the shape of `autosign/UnsgnedReleasedProfileTemplate.json`, for the
/// fixture's bundle, naming the app certificate as its development certificate.
fn debug_profile(app_cert: &str) -> serde_json::Value {
    serde_json::json!({
        "version-name": "2.0.0", "version-code": 2, "app-distribution-type": "os_integration",
        "uuid": "5027b99e-5f9e-465d-9508-a9e0134ffe18",
        "validity": {"not-before": 1594865258, "not-after": 4102444800u64},
        "type": "debug",
        "bundle-info": {"developer-id": "OpenHarmony", "development-certificate": app_cert,
                        "bundle-name": BUNDLE, "apl": "normal", "app-feature": "hos_normal_app"},
        "debug-info": {"device-ids": [], "device-id-type": "udid"},
        "acls": {"allowed-acls": [""]},
        "permissions": {"restricted-permissions": []},
        "issuer": "pki_internal"
    })
}

/// What the device-side bm records as the signer: the SHA-256 (upper-case hex) of the
/// certificate the signed profile names (tests/fakes/device/src/hap.rs).
fn signer_of(profile_json: &str) -> Result<String, String> {
    let profile: serde_json::Value = serde_json::from_str(profile_json).map_err(|e| e.to_string())?;
    let cert = profile["bundle-info"]["development-certificate"].as_str().ok_or("the profile has no certificate")?;
    Ok(super::sha256_hex(cert.trim().as_bytes()).to_uppercase())
}
