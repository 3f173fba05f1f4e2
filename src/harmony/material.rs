//! Which keystore and key alias a signing config's passwords belong to. The passwords a person
//! named for signingConfig `default` open one keystore; given with any other, hap-sign-tool
//! would tell a script whether a password it guessed is theirs (a keystore the script made with
//! that password opens, one with another does not) — a signing oracle. So the kernel fills in
//! the passwords only together with the keystore and key alias the signing config names:
//! home config.toml's `[signing.<name>] keystore` and `key_alias` when a person set them (a
//! relative keystore is relative to the workspace), else build-profile.json5's
//! `app.signingConfigs[name].material` (`storeFile`, relative to the project root, and
//! `keyAlias`) — the file DevEco writes. The command's `-keystoreFile` must resolve to that
//! keystore and its `-keyAlias` be that alias; the program gets the keystore's resolved path,
//! so a link changed after the check cannot point it elsewhere.
//!
//! build-profile.json5, and a keystore inside the workspace, are files an agent can write: the
//! passwords also go only with the keystore bytes they first went with (`process::keystore_pins`). Naming the
//! keystore in home config and keeping it outside the workspace (DevEco keeps it in
//! `~/.ohos/config`) leaves an agent nothing to point them at from the start.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::error::Code;
use crate::visible;

/// A signing command that does not open the signing config's keystore and key alias, or a
/// config whose keystore rein cannot tell; nothing was started.
#[derive(Debug, thiserror::Error)]
pub enum MaterialError {
    #[error("rein fills in the passwords of signingConfig {config:?} only with the keystore and key alias it names, and cannot tell which: {why}")]
    Unknown { config: String, why: String },

    #[error("{flag} is missing; the signing option fills in the passwords only with the keystore and key alias the signing config names, so give them")]
    Missing { flag: String },

    #[error("{flag} {given} is not what {named_by} names ({named}); rein fills in its passwords only with that keystore and key alias (`rein.proc.signing_status` gives them)")]
    Other { flag: String, given: String, named: String, named_by: String },

    #[error("{keystore} is not the keystore signingConfig {config:?}'s passwords first went with in this workspace ({pinned}, sha256 {pinned_sha256}), so rein does not fill them in: a keystore a script made or replaced would tell it whether a guessed password is right. If a person changed the signing material, they remove this workspace's entry from {pins}")]
    NotPinned { config: String, keystore: String, pinned: String, pinned_sha256: String, pins: String },
}

impl MaterialError {
    pub fn code(&self) -> Code {
        match self {
            MaterialError::Unknown { .. } | MaterialError::NotPinned { .. } => Code::InvalidConfig,
            _ => Code::InvalidArgs,
        }
    }

    pub fn details(&self) -> Value {
        match self {
            MaterialError::Unknown { config, why } => json!({"signing_config": config, "why": why}),
            MaterialError::Missing { flag } => json!({"argument": flag}),
            MaterialError::Other { flag, given, named, named_by } => {
                json!({"argument": flag, "given": given, "named": named, "named_by": named_by})
            }
            MaterialError::NotPinned { config, keystore, pinned, pinned_sha256, pins } => json!({
                "signing_config": config, "keystore": keystore, "pinned": pinned,
                "pinned_sha256": pinned_sha256, "pins": pins,
            }),
        }
    }
}

/// The keystore and key alias a signing config's passwords open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Material {
    /// The keystore, absolute, links followed.
    pub keystore: PathBuf,
    pub key_alias: String,
    /// Where rein read them, for messages.
    pub named_by: String,
}

/// The text of the workspace's build-profile.json5, or why it cannot be had. The kernel reads it
/// as it reads every workspace file (no link, a regular file, bounded): an agent can make it a
/// link to `/dev/zero` or a FIFO.
pub type ProfileText<'a> = &'a dyn Fn() -> Result<String, BuildProfileError>;

/// Why build-profile.json5 names no usable signing material.
#[derive(Debug, thiserror::Error)]
pub enum BuildProfileError {
    /// Read as every workspace file is, and refused as one (a link, a FIFO, too large …).
    #[error("{0}")]
    Refused(Box<crate::kernel::KernelError>),
    #[error("build-profile.json5 is not valid JSON5 ({why})")]
    NotJson5 { why: String },
    #[error("build-profile.json5 has no signingConfig {config:?}")]
    NoSigningConfig { config: String },
    #[error("signingConfig {config:?} of build-profile.json5 names no material.storeFile and keyAlias")]
    NoMaterial { config: String },
}

/// The material of signing config `config`: `pinned` (home config's keystore and key alias)
/// when a person set them, else build-profile.json5's (`profile`); a relative keystore is
/// `workspace`'s.
pub fn material(
    config: &str,
    pinned: (Option<&Path>, Option<&str>),
    workspace: &Path,
    profile: ProfileText,
) -> Result<Material, MaterialError> {
    let unusable = |why: String| MaterialError::Unknown { config: config.to_string(), why };
    let (keystore, key_alias, named_by) = match pinned {
        (Some(keystore), Some(alias)) => {
            (workspace.join(keystore), alias.to_string(), format!("home config.toml [signing.{config}]"))
        }
        (None, None) => {
            let (store, alias) = build_profile_material(config, profile).map_err(|e| unusable(e.to_string()))?;
            (workspace.join(store), alias, format!("build-profile.json5 signingConfig {config:?}"))
        }
        _ => return Err(unusable(format!("home config.toml [signing.{config}] names one of keystore and key_alias; name both, or neither (then build-profile.json5's material counts)"))),
    };
    let keystore = std::fs::canonicalize(&keystore).map_err(|e| {
        unusable(format!("the keystore {named_by} names, {}, cannot be used ({e})", visible::path(&keystore)))
    })?;
    Ok(Material { keystore, key_alias, named_by })
}

/// `material.storeFile` and `material.keyAlias` of signingConfig `config` in build-profile.json5.
fn build_profile_material(config: &str, profile: ProfileText) -> Result<(String, String), BuildProfileError> {
    let text = profile()?;
    let profile: serde_json::Value =
        super::json5_value::parse(&text).map_err(|e| BuildProfileError::NotJson5 { why: e.to_string() })?;
    let configs = profile["app"]["signingConfigs"].as_array().cloned().unwrap_or_default();
    let Some(found) = configs.iter().find(|c| c["name"].as_str() == Some(config)) else {
        return Err(BuildProfileError::NoSigningConfig { config: config.to_string() });
    };
    let text_of = |key: &str| found["material"][key].as_str().filter(|v| !v.is_empty()).map(str::to_string);
    match (text_of("storeFile"), text_of("keyAlias")) {
        (Some(store), Some(alias)) => Ok((store, alias)),
        _ => Err(BuildProfileError::NoMaterial { config: config.to_string() }),
    }
}

/// Where the value of `flag` is in a signing command. hap-sign-tool reads the words after the
/// method as flag and value pairs: a flag's name given as another flag's value (`-inFile
/// -keyAlias`) names nothing.
pub fn flag_value_at(args: &[String], flag: &str) -> Option<usize> {
    (1..args.len()).step_by(2).find(|i| args[*i] == flag).map(|i| i + 1).filter(|i| *i < args.len())
}

/// Checks that `args` (a signing command) open exactly `material`, and points `-keystoreFile`
/// at its resolved path. `resolve` gives where a path argument of the command resolves.
pub fn bind(
    args: &mut [String],
    material: &Material,
    resolve: &dyn Fn(&str) -> Option<PathBuf>,
) -> Result<(), MaterialError> {
    let at = |flag: &str| flag_value_at(args, flag);
    let Some(store_at) = at("-keystoreFile") else {
        return Err(MaterialError::Missing { flag: "-keystoreFile".into() });
    };
    let Some(alias_at) = at("-keyAlias") else {
        return Err(MaterialError::Missing { flag: "-keyAlias".into() });
    };
    if resolve(&args[store_at]).as_deref() != Some(material.keystore.as_path()) {
        return Err(MaterialError::Other {
            flag: "-keystoreFile".into(),
            given: visible::line(&args[store_at]).into_owned(),
            named: visible::path(&material.keystore),
            named_by: material.named_by.clone(),
        });
    }
    if args[alias_at] != material.key_alias {
        return Err(MaterialError::Other {
            flag: "-keyAlias".into(),
            given: visible::line(&args[alias_at]).into_owned(),
            named: visible::line(&material.key_alias).into_owned(),
            named_by: material.named_by.clone(),
        });
    }
    // The form people know (`C:\ws\…`, not the verbatim `\\?\C:\ws\…` the scope resolved it
    // to): this command line is what the journal, the events and a failure show. Both name the
    // same file, since the resolved path has no `..` and the scope refuses the names Windows
    // reads differently without the prefix (a trailing dot or space, device names). java would
    // take either (JDK 17 under Wine opened a keystore by its verbatim path), and it gets a
    // private copy of the keystore anyway (`process::keystore_pins`).
    args[store_at] = visible::shown_path(&material.keystore);
    Ok(())
}

impl crate::kernel::Kernel {
    /// The text of the workspace's build-profile.json5, for the signing material it names (see
    /// `material`). An agent can write it: read as every workspace file is (no link,
    /// a regular file, opened without waiting on a FIFO, at most 1 MiB: DevEco's are a few KB),
    /// never by name — a link to `/dev/zero` was read until memory ran out, a FIFO waited for
    /// ever. The error says why, for the status and the refusal that show it.
    pub fn build_profile_text(&self) -> Result<String, BuildProfileError> {
        self.small_workspace_text("build-profile.json5").map_err(|e| BuildProfileError::Refused(Box::new(e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROFILE: &str = r#"{ app: { signingConfigs: [ { name: "default", material: { storeFile: "signing/debug.p12", keyAlias: "debugKey", }, }, ], }, }"#;

    /// The profile as the kernel gives it, read here from `ws`.
    fn profile_of(ws: &Path) -> impl Fn() -> Result<String, BuildProfileError> + '_ {
        move || {
            std::fs::read_to_string(ws.join("build-profile.json5")).map_err(|e| {
                BuildProfileError::Refused(Box::new(crate::kernel::KernelError::io("read", "build-profile.json5", e)))
            })
        }
    }

    fn project() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        std::fs::create_dir(ws.join("signing")).unwrap();
        std::fs::write(ws.join("signing/debug.p12"), "store").unwrap();
        std::fs::write(ws.join("evil.p12"), "made by a script").unwrap();
        std::fs::write(ws.join("build-profile.json5"), PROFILE).unwrap();
        (dir, ws)
    }

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn only_the_named_keystore_and_alias_get_the_passwords() {
        let (_dir, ws) = project();
        let named = material("default", (None, None), &ws, &profile_of(&ws)).unwrap();
        assert_eq!((named.keystore.clone(), named.key_alias.as_str()), (ws.join("signing/debug.p12"), "debugKey"));
        let resolve = |p: &str| std::fs::canonicalize(ws.join(p)).ok();
        let mut ok = args("sign-app -keyAlias debugKey -keystoreFile ./signing/../signing/debug.p12 -inFile a");
        bind(&mut ok, &named, &resolve).unwrap();
        // The resolved path, as people read it: the command line is shown (on Windows `C:\…`).
        assert_eq!(ok[4], visible::shown_path(&named.keystore), "the resolved path is what runs");
        for line in [
            "sign-app -keyAlias debugKey -keystoreFile evil.p12",
            "sign-app -keyAlias guessed -keystoreFile signing/debug.p12",
            "sign-app -keyAlias debugKey",
            "sign-app -inFile -keyAlias debugKey -keyAlias guessed -keystoreFile signing/debug.p12",
            "sign-app -inFile -keystoreFile signing/debug.p12 -keyAlias debugKey -keystoreFile evil.p12",
        ] {
            let refused = bind(&mut args(line), &named, &resolve).unwrap_err();
            assert_eq!(refused.code(), crate::error::Code::InvalidArgs, "{line}: {refused}");
        }
    }

    #[test]
    fn a_person_named_keystore_wins_over_build_profile() {
        let (_dir, ws) = project();
        let pinned = material("default", (Some(Path::new("evil.p12")), Some("mine")), &ws, &profile_of(&ws)).unwrap();
        assert_eq!(pinned.keystore, ws.join("evil.p12"));
        assert!(pinned.named_by.contains("home config.toml"));
        let half = material("default", (Some(Path::new("evil.p12")), None), &ws, &profile_of(&ws)).unwrap_err();
        assert!(half.to_string().contains("name both"), "{half}");
        let missing = material("release", (None, None), &ws, &profile_of(&ws)).unwrap_err();
        assert!(missing.to_string().contains("no signingConfig \"release\""), "{missing}");
    }
}
