//! Real signing material, made by the real hap-sign-tool (`REIN_REAL_HAP_SIGN_TOOL`, run by
//! `REIN_REAL_JAVA` or the java on PATH: `real_tools.rs`; under Wine a Windows JDK, so there a
//! Windows java makes it, as on a person's Windows machine) with `rein-fake-device signing-material` (tests/fakes: the sequence of
//! `developtools_hapsigner` `autosign/createAppCertAndProfile.config` and
//! `createRootAndSubCert.config`): a keystore with the app's key, a root CA with an app CA and a
//! profile CA under it, the app certificate chain, and a debug profile for `com.example.hello`
//! signed with the profile certificate.
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
/// Bump when the material's making changes, so an old cache is not reused.
const LAYOUT: &str = "v2";

pub struct Material {
    /// `debug.p12`, `debug.cer`, `debug.p7b` (the fixture's names), the profile's JSON.
    pub dir: PathBuf,
    /// An SDK holding only `toolchains/lib/hap-sign-tool.jar` (for `OHOS_BASE_SDK_HOME`).
    pub sdk: PathBuf,
    pub jar: PathBuf,
    /// The JDK that runs the jar (`real_tools::java`; under Wine a Windows JDK).
    pub java: PathBuf,
    pub java_home: PathBuf,
    /// Who the device's `bm` says signed a package signed with this material.
    pub signer: String,
}

/// The material, made on first use; `None` (after saying why) when the real tool cannot run.
pub fn material(test: &str) -> Option<&'static Material> {
    static MADE: OnceLock<Result<Material, String>> = OnceLock::new();
    let (jar, java) = real_tools::hap_sign_tool_and_java(test)?;
    match MADE.get_or_init(|| make(&jar, java)) {
        Ok(material) => Some(material),
        Err(why) => panic!("{test}: making signing material with the real hap-sign-tool failed: {why}"),
    }
}

fn make(jar: &Path, java: PathBuf) -> Result<Material, String> {
    let java_home = java.parent().and_then(Path::parent).ok_or("java has no home")?.to_path_buf();
    let meta = std::fs::metadata(jar).map_err(|e| e.to_string())?;
    let stamp = meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map(|d| d.as_secs());
    // Absolute for every program: under Wine the compiled-in Unix path names a folder on the
    // current drive only, and the programs rein runs start in the workspace, on C:.
    let tmp = std::path::absolute(env!("CARGO_TARGET_TMPDIR")).map_err(|e| e.to_string())?;
    let cache = tmp.join("rein-signing").join(format!("{LAYOUT}-{}-{}", meta.len(), stamp.unwrap_or(0)));
    if !cache.join("done").exists() {
        std::fs::create_dir_all(cache.parent().unwrap()).map_err(|e| e.to_string())?;
        let work = tempfile::Builder::new()
            .prefix("making-")
            .tempdir_in(cache.parent().unwrap())
            .map_err(|e| e.to_string())?;
        generate(&java_home, jar, work.path())?;
        std::fs::write(work.path().join("done"), "").map_err(|e| e.to_string())?;
        // Another test process may have finished first: then its copy is as good as ours.
        let _ = std::fs::rename(work.keep(), &cache);
    }
    let dir = cache.join("material");
    let signer = signer_of(&std::fs::read_to_string(dir.join("profile.json")).map_err(|e| e.to_string())?)?;
    let sdk = cache.join("sdk");
    let jar = sdk.join("toolchains").join("lib").join("hap-sign-tool.jar");
    Ok(Material { sdk, jar, dir, java, java_home, signer })
}

/// Makes the material in `work/material` with `rein-fake-device signing-material` (the one home
/// of the sequence; the fakes README runs it too), and the SDK layout with the jar in
/// `work/sdk/toolchains/lib`.
fn generate(java_home: &Path, jar: &Path, work: &Path) -> Result<(), String> {
    let lib = work.join("sdk/toolchains/lib");
    std::fs::create_dir_all(&lib).map_err(|e| e.to_string())?;
    std::fs::copy(jar, lib.join("hap-sign-tool.jar")).map_err(|e| e.to_string())?;
    let out = Command::new(super::lab::fake("rein-fake-device"))
        .arg("signing-material")
        .arg(jar)
        .arg(work.join("material"))
        .args(["--store-password", STORE_PASSWORD, "--key-password", KEY_PASSWORD])
        .env("JAVA_HOME", java_home)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        return Ok(());
    }
    Err(format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

/// What the device-side bm records as the signer: the SHA-256 (upper-case hex) of the
/// certificate the signed profile names (tests/fakes/device/src/hap.rs).
fn signer_of(profile_json: &str) -> Result<String, String> {
    let profile: serde_json::Value = serde_json::from_str(profile_json).map_err(|e| e.to_string())?;
    let cert = profile["bundle-info"]["development-certificate"].as_str().ok_or("the profile has no certificate")?;
    Ok(super::sha256_hex(cert.trim().as_bytes()).to_uppercase())
}
