//! Real signing material, made by the real hap-sign-tool (`REIN_REAL_HAP_SIGN_TOOL`,
//! `real_tools.rs`) with `rein-fake-device signing-material` (tests/fakes: the sequence of
//! `developtools_hapsigner` `autosign/createAppCertAndProfile.config` and
//! `createRootAndSubCert.config`): a keystore with the app's key, a root CA with an app CA and a
//! profile CA under it, the app certificate chain, and a debug profile for `com.example.hello`
//! signed with the profile certificate.
//!
//! Made once and kept under `target/tmp/rein-signing/` (each java run takes seconds), with a
//! copy of the jar laid out as an SDK's `toolchains/lib/` so the fake hvigorw finds it as the
//! real hvigor does (`OHOS_BASE_SDK_HOME`).

use std::path::{Path, PathBuf};
#[cfg(not(windows))]
use std::process::Command;
use std::sync::OnceLock;

use super::real_tools;

/// The keystore's password and the key password of every key in it (plaintext).
pub const STORE_PASSWORD: &str = "Store-Pl41ntext!";
pub const KEY_PASSWORD: &str = "Key-Pl41ntext?";
/// The fixture's key alias (tests/fixtures/hello-app build-profile.json5).
pub const KEY_ALIAS: &str = "debugKey";
/// Bump when the material's making changes, so an old cache is not reused.
#[cfg(not(windows))]
const LAYOUT: &str = "v2";

pub struct Material {
    /// `debug.p12`, `debug.cer`, `debug.p7b` (the fixture's names), the profile's JSON.
    pub dir: PathBuf,
    /// An SDK holding only `toolchains/lib/hap-sign-tool.jar` (for `OHOS_BASE_SDK_HOME`).
    pub sdk: PathBuf,
    pub jar: PathBuf,
    /// The JDK that runs the jar; `None` on Windows (`material`).
    pub java: Option<PathBuf>,
    pub java_home: Option<PathBuf>,
    /// Who the device's `bm` says signed a package signed with this material.
    pub signer: String,
}

impl Material {
    /// The java that runs the jar; only tests that sign ask, and they do not run on Windows.
    pub fn java(&self) -> &Path {
        self.java.as_deref().expect("java: signing runs on Linux only (tests/common/signing.rs)")
    }
}

/// On Windows (under Wine) no java can run: Wine has no Windows JDK, and a Windows process there
/// can start a Linux java but gets neither its output nor its exit status back (tried: README
/// "Platforms"). So a lab there gets the fixture's own placeholder signing files, the real jar
/// in an SDK layout (rein and the fake hvigorw find it as on Linux) and no java; the tests that
/// sign are ignored on Windows and say so in their `cfg_attr`.
#[cfg(windows)]
pub fn material(test: &str) -> Option<&'static Material> {
    static MADE: OnceLock<Result<Material, String>> = OnceLock::new();
    let jar = real_tools::hap_sign_tool_jar(test)?;
    let made = MADE.get_or_init(|| {
        let sdk = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rein-signing").join("windows-sdk");
        let lib = sdk.join("toolchains/lib");
        std::fs::create_dir_all(&lib).map_err(|e| e.to_string())?;
        std::fs::copy(&jar, lib.join("hap-sign-tool.jar")).map_err(|e| e.to_string())?;
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hello-app/signing");
        let jar = lib.join("hap-sign-tool.jar");
        Ok(Material { dir, sdk, jar, java: None, java_home: None, signer: String::new() })
    });
    match made {
        Ok(material) => Some(material),
        Err(why) => panic!("{test}: laying out the SDK folder failed: {why}"),
    }
}

/// The material, made on first use; `None` (after saying why) when the real tool cannot run.
#[cfg(not(windows))]
pub fn material(test: &str) -> Option<&'static Material> {
    static MADE: OnceLock<Result<Material, String>> = OnceLock::new();
    let jar = real_tools::hap_sign_tool(test)?;
    match MADE.get_or_init(|| make(&jar)) {
        Ok(material) => Some(material),
        Err(why) => panic!("{test}: making signing material with the real hap-sign-tool failed: {why}"),
    }
}

#[cfg(not(windows))]
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
        generate(&java_home, jar, work.path())?;
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
        java: Some(java),
        java_home: Some(java_home),
        signer,
    })
}

#[cfg(not(windows))]
fn which_java() -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path).map(|d| d.join("java")).find(|p| p.is_file()).ok_or("no java on PATH")?;
    std::fs::canonicalize(found).map_err(|e| e.to_string())
}

/// Makes the material in `work/material` with `rein-fake-device signing-material` (the one home
/// of the sequence; the fakes README runs it too), and the SDK layout with the jar in
/// `work/sdk/toolchains/lib`.
#[cfg(not(windows))]
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
#[cfg(not(windows))]
fn signer_of(profile_json: &str) -> Result<String, String> {
    let profile: serde_json::Value = serde_json::from_str(profile_json).map_err(|e| e.to_string())?;
    let cert = profile["bundle-info"]["development-certificate"].as_str().ok_or("the profile has no certificate")?;
    Ok(super::sha256_hex(cert.trim().as_bytes()).to_uppercase())
}
