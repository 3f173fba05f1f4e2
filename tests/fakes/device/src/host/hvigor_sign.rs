//! The fake hvigorw's SignHap task: as the real hvigor does, it runs the SDK's hap-sign-tool
//! with the signingConfig's material, so a signed HAP carries a real signing block.
//!
//! - The jar is the SDK's: `$DEVECO_SDK_HOME/default/openharmony/toolchains/lib/hap-sign-tool.jar`
//!   or `$OHOS_BASE_SDK_HOME/toolchains/lib/hap-sign-tool.jar` (shared/HARMONY.md §6).
//! - java is `$JAVA_HOME/bin/java`, else the `java` on PATH (hvigor spawns `java`: "spawn java
//!   ENOENT" when there is none).
//! - build-profile.json5 holds DevEco's ciphertext passwords, which only hvigor decrypts, with
//!   material under `~/.ohos/config`. The fake's stand-in for that material is
//!   `~/.ohos/config/material/passwords.json`, `{ciphertext: plaintext}` (`REIN_FAKE_OHOS_CONFIG`
//!   names another folder in place of `~/.ohos/config`: fake-env's, which leaves HOME alone); a
//!   ciphertext it does not hold fails as hvigor fails to decrypt: `Unsupported state or unable
//!   to authenticate data` (shared/HARMONY.md §1). A plaintext password is used as it is.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Map, Value};

use super::hvigor::P;

/// Short-lived JVM: the tool runs for a second; tiered C1 and the serial GC start it faster, and
/// no perf-data file in /tmp (a confined program may only write its own TMPDIR).
const JVM_FLAGS: [&str; 3] = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData"];

fn exe(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

fn java() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("JAVA_HOME").filter(|h| !h.is_empty()) {
        let java = Path::new(&home).join("bin").join(exe("java"));
        if java.is_file() {
            return Some(java);
        }
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).map(|d| d.join(exe("java"))).find(|p| p.is_file())
}

fn sign_tool_jar() -> Result<PathBuf, Vec<String>> {
    let var = |name| std::env::var_os(name).filter(|v: &std::ffi::OsString| !v.is_empty()).map(PathBuf::from);
    let mut candidates = Vec::new();
    if let Some(sdk) = var("DEVECO_SDK_HOME") {
        candidates.push(sdk.join("default").join("openharmony").join("toolchains").join("lib"));
    }
    if let Some(sdk) = var("OHOS_BASE_SDK_HOME") {
        candidates.push(sdk.join("toolchains").join("lib"));
    }
    if let Some(jar) = candidates.iter().map(|d| d.join("hap-sign-tool.jar")).find(|j| j.is_file()) {
        return Ok(jar);
    }
    let looked: Vec<String> = candidates.iter().map(|c| c.display().to_string()).collect();
    let looked = if looked.is_empty() {
        "no SDK: DEVECO_SDK_HOME and OHOS_BASE_SDK_HOME are unset".to_string()
    } else {
        looked.join(", ")
    };
    // GUESS: hvigor's words for an SDK without the signing tool.
    Err(vec![format!("{P}ERROR: SDK component missing: toolchains/lib/hap-sign-tool.jar (looked in {looked})")])
}

fn is_ciphertext(password: &str) -> bool {
    password.len() >= 40 && password.starts_with("000000") && password[6..].bytes().all(|b| b.is_ascii_hexdigit())
}

fn plaintext(password: &str) -> Result<String, Vec<String>> {
    if !is_ciphertext(password) {
        return Ok(password.to_string());
    }
    let config = match std::env::var_os("REIN_FAKE_OHOS_CONFIG").filter(|v| !v.is_empty()) {
        Some(config) => PathBuf::from(config),
        None => home().join(".ohos").join("config"),
    };
    let known: Value = std::fs::read_to_string(config.join("material").join("passwords.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    match known.get(password).and_then(Value::as_str) {
        Some(plain) => Ok(plain.to_string()),
        None => Err(vec![format!("{P}ERROR: Unsupported state or unable to authenticate data")]),
    }
}

/// The user's home, as Node's `os.homedir()` finds it: `HOME`, else (Windows) `USERPROFILE`.
fn home() -> PathBuf {
    std::env::var_os("HOME").or_else(|| std::env::var_os("USERPROFILE")).map(PathBuf::from).unwrap_or_default()
}

/// Signs `unsigned` into `signed` with the signingConfig's `material` (paths relative to the
/// project root); the lines to print after `Failed …@SignHap... ` when it fails.
pub fn sign(root: &Path, material: &Map<String, Value>, unsigned: &Path, signed: &Path) -> Result<(), Vec<String>> {
    let Some(program) = java() else {
        return Err(vec![format!("{P}ERROR: Error Code: 00308018 Unknown Error"), "spawn java ENOENT".into()]);
    };
    let jar = sign_tool_jar()?;
    let text = |key: &str, default: &str| material.get(key).and_then(Value::as_str).unwrap_or(default).to_string();
    let file = |key: &str| root.join(text(key, "")).display().to_string();
    let mut java = Command::new(program);
    java.args(JVM_FLAGS);
    if let Some(tmp) = std::env::var_os("TMPDIR").filter(|t| !t.is_empty()) {
        java.arg(format!("-Djava.io.tmpdir={}", tmp.to_string_lossy()));
    }
    java.arg("-jar").arg(jar);
    java.args(["sign-app", "-mode", "localSign", "-keyAlias", &text("keyAlias", "")]);
    java.args(["-keyPwd", &plaintext(&text("keyPassword", ""))?]);
    java.args(["-appCertFile", &file("certpath"), "-profileFile", &file("profile")]);
    java.arg("-inFile").arg(unsigned);
    java.args(["-signAlg", &text("signAlg", "SHA256withECDSA"), "-keystoreFile", &file("storeFile")]);
    java.args(["-keystorePwd", &plaintext(&text("storePassword", ""))?]);
    java.arg("-outFile").arg(signed);
    let done = java.stdin(Stdio::null()).output().map_err(|e| vec![format!("{P}ERROR: spawn java: {e}")])?;
    if done.status.success() {
        return Ok(());
    }
    // GUESS: hvigor shows the tool's error block after the failed task's line.
    let errors = String::from_utf8_lossy(&done.stderr);
    Err(errors.lines().filter(|l| !l.trim().is_empty()).take(6).map(|l| format!("{P}ERROR: {l}")).collect())
}
