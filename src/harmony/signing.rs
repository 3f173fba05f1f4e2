//! Signing passwords that no script ever sees. hap-sign-tool takes the keystore and key
//! passwords as arguments (`-keystorePwd`, `-keyPwd`), and only in plaintext; DevEco writes
//! them into build-profile.json5 encrypted (`0000001B…`), a form only hvigor decrypts. So a
//! person names, in home config.toml, the environment variables that hold the plaintext:
//!
//! ```toml
//! [signing.default]                       # the signingConfig's name in build-profile.json5
//! keystore_password_env = "OHOS_STORE_PASSWORD"
//! key_password_env = "OHOS_KEY_PASSWORD"
//! ```
//!
//! A script asks for them by config name (`rein.proc.run("hap-sign-tool", args, {signing =
//! "default"})`); the kernel reads the variables when it spawns the program and appends the two
//! password arguments itself. The values never pass through Lua, and the command line is
//! redacted like any other secret. The ciphertext form is refused before java starts, whoever
//! passes it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::material::{self, Material, MaterialError};
use crate::error::Code;
use crate::visible;

/// The program whose passwords the kernel fills in.
const SIGNER: &str = "hap-sign-tool";
/// hap-sign-tool methods that open a keystore.
const SIGNING_METHODS: [&str; 2] = ["sign-app", "sign-profile"];
/// Every hap-sign-tool flag whose value is a password: the kernel refuses ciphertext there and
/// fills two of them itself, and `redact` hides the value after each.
pub const PASSWORD_FLAGS: [&str; 4] = ["-keyPwd", "-keystorePwd", "-issuerKeyPwd", "-issuerKeystorePwd"];

/// Which environment variables hold one signing config's plaintext passwords, and (when a
/// person names them) the keystore and key alias they open (see `material`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SigningEnv {
    pub keystore_password_env: String,
    pub key_password_env: String,
    /// The keystore the passwords open (relative: to the workspace); else build-profile.json5's.
    #[serde(default)]
    pub keystore: Option<PathBuf>,
    /// The key alias the key password opens; with `keystore`.
    #[serde(default)]
    pub key_alias: Option<String>,
}

impl SigningEnv {
    /// The variable names, checked: a name a shell could not export is a typo.
    pub fn check(&self) -> Result<(), NotAVariableName> {
        for name in [&self.keystore_password_env, &self.key_password_env] {
            let mut chars = name.chars();
            let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err(NotAVariableName { name: name.clone() });
            }
        }
        Ok(())
    }
}

/// A signing config names a variable no shell could export (a typo).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name:?} is not an environment variable name (letters, digits and _)")]
pub struct NotAVariableName {
    pub name: String,
}

/// The two passwords of a keystore entry, as hap-sign-tool names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Keystore,
    Key,
}

impl Field {
    pub fn name(self) -> &'static str {
        match self {
            Field::Keystore => "keystore_password",
            Field::Key => "key_password",
        }
    }

    fn flag(self) -> &'static str {
        match self {
            Field::Keystore => "-keystorePwd",
            Field::Key => "-keyPwd",
        }
    }

    fn env(self, config: &SigningEnv) -> &str {
        match self {
            Field::Keystore => &config.keystore_password_env,
            Field::Key => &config.key_password_env,
        }
    }
}

/// What a script may know about a signing config's passwords: where they come from and whether
/// they are usable — never a value.
#[derive(Debug, Clone, Serialize)]
pub struct SigningStatus {
    pub config: String,
    /// Whether home config.toml has `[signing.<config>]`.
    pub configured: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keystore_password: Option<SecretStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_password: Option<SecretStatus>,
    /// The keystore the passwords go with (resolved; on Windows `C:\…`, as people read it), when
    /// rein can tell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keystore: Option<String>,
    /// The key alias the key password goes with, when rein can tell.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key_alias: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SecretStatus {
    pub env: String,
    /// The variable is set (and not empty) in rein's environment.
    pub set: bool,
    /// It holds DevEco's encrypted form, which hap-sign-tool cannot use.
    pub ciphertext: bool,
}

/// A signing request the kernel refuses; nothing was started.
#[derive(Debug, thiserror::Error)]
pub enum SecretsError {
    #[error("home config.toml has no [signing.{config}] section, so rein has no passwords for signingConfig {config:?}. A person adds one naming the environment variables that hold the plaintext passwords: [signing.{config}] keystore_password_env = \"…\", key_password_env = \"…\"")]
    NotConfigured { config: String },

    #[error("environment variable {env} ([signing.{config}] {field}_env in home config.toml) is not set for rein. Export it with the plaintext password before starting rein")]
    Unset { config: String, field: &'static str, env: String },

    #[error("{source_name} holds DevEco's encrypted form of the {field} (0000001B… hex), which only hvigor can decrypt; hap-sign-tool needs the plaintext. {remedy}")]
    Ciphertext { source_name: String, field: &'static str, remedy: String },

    #[error("the signing option fills in hap-sign-tool's passwords; {program} takes none")]
    NotTheSigner { program: String },

    #[error("only sign-app and sign-profile open a keystore; the signing option does not apply to {method:?}")]
    NotASigningMethod { method: String },

    #[error("{flag} is given although the signing option asks the kernel to fill it in; leave the passwords out")]
    PasswordGiven { flag: String },

    #[error("hap-sign-tool's arguments after the method must be `-key value` pairs; {at:?} is not a key")]
    Malformed { at: String },

    /// The keystore or key alias is not the signing config's (see `material`).
    #[error("{0}")]
    Material(#[from] MaterialError),
}

impl SecretsError {
    pub fn code(&self) -> Code {
        match self {
            SecretsError::NotConfigured { .. } | SecretsError::Unset { .. } => Code::InvalidConfig,
            SecretsError::Material(refused) => refused.code(),
            SecretsError::Ciphertext { .. } => Code::InvalidConfig,
            _ => Code::InvalidArgs,
        }
    }

    pub fn details(&self) -> Value {
        match self {
            SecretsError::NotConfigured { config } => json!({"signing_config": config}),
            SecretsError::Unset { config, field, env } => json!({"signing_config": config, "field": field, "env": env}),
            SecretsError::Ciphertext { source_name, field, .. } => json!({"source": source_name, "field": field}),
            SecretsError::NotTheSigner { program } => json!({"program": program}),
            SecretsError::NotASigningMethod { method } => json!({"method": method}),
            SecretsError::PasswordGiven { flag } => json!({"flag": flag}),
            SecretsError::Malformed { at } => json!({"argument": at}),
            SecretsError::Material(refused) => refused.details(),
        }
    }
}

/// DevEco's encrypted password form, as it appears in build-profile.json5: `000000` and a
/// length byte, then a long run of hex digits (e.g. `0000001B` + 80 hex digits). A person's
/// plaintext password practically never looks like that.
pub fn looks_like_ciphertext(value: &str) -> bool {
    value.len() >= 40 && value.starts_with("000000") && value.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The signing configs a person set up in home config.toml.
#[derive(Debug, Clone, Default)]
pub struct SigningSecrets {
    configs: BTreeMap<String, SigningEnv>,
}

/// How the kernel reads its own environment (a closure in tests).
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Where a signing command runs: the workspace (a relative keystore), its build-profile.json5
/// as the kernel reads it, and where a path argument of the command resolves (from its working
/// directory, links followed).
#[derive(Clone, Copy)]
pub struct Place<'a> {
    pub workspace: &'a Path,
    pub profile: material::ProfileText<'a>,
    pub resolve: &'a dyn Fn(&str) -> Option<PathBuf>,
}

impl SigningSecrets {
    pub fn new(configs: BTreeMap<String, SigningEnv>) -> SigningSecrets {
        SigningSecrets { configs }
    }

    pub fn status(
        &self,
        config: &str,
        env: EnvLookup,
        workspace: &Path,
        profile: material::ProfileText,
    ) -> SigningStatus {
        let entry = self.configs.get(config);
        let field = |field: Field| {
            entry.map(|c| {
                let name = field.env(c).to_string();
                let value = env(&name).filter(|v| !v.is_empty());
                SecretStatus {
                    set: value.is_some(),
                    ciphertext: value.as_deref().is_some_and(looks_like_ciphertext),
                    env: name,
                }
            })
        };
        let material = self.material(config, workspace, profile).ok();
        SigningStatus {
            config: config.to_string(),
            configured: entry.is_some(),
            keystore_password: field(Field::Keystore),
            key_password: field(Field::Key),
            keystore: material.as_ref().map(|m| visible::shown_path(&m.keystore)),
            key_alias: material.map(|m| m.key_alias),
        }
    }

    /// The keystore and key alias signing config `config`'s passwords open (see `material`).
    pub fn material(
        &self,
        config: &str,
        workspace: &Path,
        profile: material::ProfileText,
    ) -> Result<Material, MaterialError> {
        let entry = self.configs.get(config);
        let pinned = (entry.and_then(|c| c.keystore.as_deref()), entry.and_then(|c| c.key_alias.as_deref()));
        material::material(config, pinned, workspace, profile)
    }

    /// Whether `name` holds a signing password: such variables never reach a child process.
    pub fn withholds(&self, name: &str) -> bool {
        self.configs.values().any(|c| c.keystore_password_env == name || c.key_password_env == name)
    }

    /// `args` ready to spawn. Any password in the ciphertext form is refused. With `signing`
    /// (a signing config's name), the command must open the keystore and key alias the config
    /// names (`material`; `place` says where the workspace is and where a path argument
    /// resolves), and the plaintext passwords are read from the environment now and appended
    /// as `-keyPwd … -keystorePwd …`.
    pub fn prepare(
        &self,
        program: &str,
        mut args: Vec<String>,
        signing: Option<&str>,
        env: EnvLookup,
        place: Place,
    ) -> Result<Vec<String>, SecretsError> {
        if program == SIGNER {
            refuse_given_ciphertext(&args)?;
        }
        let Some(config) = signing else { return Ok(args) };
        if program != SIGNER {
            return Err(SecretsError::NotTheSigner { program: program.to_string() });
        }
        check_shape(&args)?;
        if !self.configs.contains_key(config) {
            return Err(SecretsError::NotConfigured { config: config.to_string() });
        }
        material::bind(&mut args, &self.material(config, place.workspace, place.profile)?, place.resolve)?;
        let key = self.resolve(config, Field::Key, env)?;
        let store = self.resolve(config, Field::Keystore, env)?;
        args.extend([Field::Key.flag().to_string(), key, Field::Keystore.flag().to_string(), store]);
        Ok(args)
    }

    fn resolve(&self, config: &str, field: Field, env: EnvLookup) -> Result<String, SecretsError> {
        let entry =
            self.configs.get(config).ok_or_else(|| SecretsError::NotConfigured { config: config.to_string() })?;
        let name = field.env(entry);
        let value = env(name).filter(|v| !v.is_empty()).ok_or_else(|| SecretsError::Unset {
            config: config.to_string(),
            field: field.name(),
            env: name.to_string(),
        })?;
        if looks_like_ciphertext(&value) {
            return Err(SecretsError::Ciphertext {
                source_name: format!("environment variable {name}"),
                field: field.name(),
                remedy: format!("Put the plaintext {} in {name} instead", field.name().replace('_', " ")),
            });
        }
        Ok(value)
    }
}

/// A method, then `-key value` pairs without any password: what the kernel appends to.
fn check_shape(args: &[String]) -> Result<(), SecretsError> {
    let method = args.first().map(String::as_str).unwrap_or("");
    if !SIGNING_METHODS.contains(&method) {
        return Err(SecretsError::NotASigningMethod { method: method.to_string() });
    }
    for pair in args[1..].chunks(2) {
        let key = &pair[0];
        if PASSWORD_FLAGS.contains(&key.as_str()) {
            return Err(SecretsError::PasswordGiven { flag: key.clone() });
        }
        if !key.starts_with('-') || pair.len() < 2 {
            return Err(SecretsError::Malformed { at: key.clone() });
        }
    }
    Ok(())
}

fn refuse_given_ciphertext(args: &[String]) -> Result<(), SecretsError> {
    for pair in args.windows(2) {
        if PASSWORD_FLAGS.contains(&pair[0].as_str()) && looks_like_ciphertext(&pair[1]) {
            return Err(SecretsError::Ciphertext {
                source_name: format!("the value of {}", pair[0]),
                field: "password",
                remedy: "Give the plaintext: name the environment variables that hold it in home config.toml [signing.<config>] and pass the signing option".to_string(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CIPHER: &str = "0000001B9C5AA9E57C6A1E01EBD4A486F3991FFF6B5A77D2F5527B08A5B7AAF10B46";
    const SIGN: &str = "sign-app -keyAlias k1 -keystoreFile ks.p12 -inFile a.hap";

    /// A workspace holding the keystore `ks.p12` that home config names (alias `k1`).
    struct Fixture {
        _dir: tempfile::TempDir,
        ws: PathBuf,
        secrets: SigningSecrets,
    }

    fn fixture() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        std::fs::write(ws.join("ks.p12"), "store").unwrap();
        let env = SigningEnv {
            keystore_password_env: "STORE_PW".into(),
            key_password_env: "KEY_PW".into(),
            keystore: Some(PathBuf::from("ks.p12")),
            key_alias: Some("k1".into()),
        };
        Fixture { _dir: dir, ws, secrets: SigningSecrets::new(BTreeMap::from([("default".to_string(), env)])) }
    }

    impl Fixture {
        fn profile(&self) -> impl Fn() -> Result<String, material::BuildProfileError> + '_ {
            || {
                std::fs::read_to_string(self.ws.join("build-profile.json5")).map_err(|e| {
                    material::BuildProfileError::Refused(Box::new(crate::kernel::KernelError::io(
                        "read",
                        "build-profile.json5",
                        e,
                    )))
                })
            }
        }

        fn prepare(
            &self,
            program: &str,
            line: &str,
            config: Option<&str>,
            env: EnvLookup,
        ) -> Result<Vec<String>, SecretsError> {
            let resolve = |p: &str| std::fs::canonicalize(self.ws.join(p)).ok();
            let profile = self.profile();
            let place = Place { workspace: &self.ws, profile: &profile, resolve: &resolve };
            self.secrets.prepare(program, args(line), config, env, place)
        }
    }

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    fn lookup(store: &'static str, key: &'static str) -> impl Fn(&str) -> Option<String> {
        move |name: &str| match name {
            "STORE_PW" => Some(store.to_string()),
            "KEY_PW" => Some(key.to_string()),
            _ => None,
        }
    }

    #[test]
    fn the_kernel_appends_the_plaintext_passwords_from_the_environment() {
        let f = fixture();
        let env = lookup("s3cret-store", "s3cret-key");
        let filled = f.prepare("hap-sign-tool", SIGN, Some("default"), &env).unwrap();
        // As people read the path (on Windows `C:\…`, not the verbatim form the scope resolved).
        let store = visible::shown_path(f.ws.join("ks.p12"));
        let expected = format!(
            "sign-app -keyAlias k1 -keystoreFile {store} -inFile a.hap -keyPwd s3cret-key -keystorePwd s3cret-store"
        );
        assert_eq!(filled, args(&expected));
        let status = f.secrets.status("default", &env, &f.ws, &f.profile());
        assert_eq!((status.keystore.as_deref(), status.key_alias.as_deref()), (Some(store.as_str()), Some("k1")));
        assert!(status.configured && status.key_password.unwrap().set);
        assert!(!f.secrets.status("release", &env, &f.ws, &f.profile()).configured);
    }

    #[test]
    fn ciphertext_is_refused_wherever_it_comes_from() {
        let f = fixture();
        assert!(looks_like_ciphertext(CIPHER));
        assert!(!looks_like_ciphertext("123456") && !looks_like_ciphertext("0000001B"));
        let env = lookup(CIPHER, "k");
        let err = f.prepare("hap-sign-tool", SIGN, Some("default"), &env).unwrap_err();
        assert!(matches!(err, SecretsError::Ciphertext { .. }), "{err}");
        assert!(err.to_string().contains("STORE_PW") && !err.to_string().contains(CIPHER), "{err}");
        assert!(f.secrets.status("default", &env, &f.ws, &f.profile()).keystore_password.unwrap().ciphertext);
        let err =
            f.prepare("hap-sign-tool", &format!("sign-app -keystorePwd {CIPHER}"), None, &|_: &str| None).unwrap_err();
        assert_eq!(err.code(), Code::InvalidConfig);
    }

    #[test]
    fn misuse_is_refused_before_any_value_is_read() {
        let f = fixture();
        let env = lookup("s", "k");
        let cases = [
            ("hdc", "shell ls", "takes none"),
            ("hap-sign-tool", "verify-app -inFile a", "only sign-app"),
            ("hap-sign-tool", "sign-app -keyPwd x -inFile a", "leave the passwords out"),
            ("hap-sign-tool", "sign-app -inFile", "pairs"),
            ("hap-sign-tool", "sign-app inFile a", "pairs"),
            ("hap-sign-tool", "sign-app -keyAlias k1 -inFile a", "-keystoreFile is missing"),
            ("hap-sign-tool", "sign-app -keyAlias k2 -keystoreFile ks.p12", "-keyAlias k2 is not what"),
        ];
        for (program, line, says) in cases {
            let err = f.prepare(program, line, Some("default"), &env).unwrap_err();
            assert!(err.to_string().contains(says), "{program} {line}: {err}");
            assert_eq!(err.code(), Code::InvalidArgs);
        }
        let err = f.prepare("hap-sign-tool", SIGN, Some("release"), &env).unwrap_err();
        assert!(matches!(err, SecretsError::NotConfigured { .. }));
        let unset = f.prepare("hap-sign-tool", SIGN, Some("default"), &|_: &str| None);
        assert!(matches!(unset.unwrap_err(), SecretsError::Unset { env, .. } if env == "KEY_PW"));
    }

    #[test]
    fn signing_variables_are_withheld_from_children() {
        let f = fixture();
        assert!(f.secrets.withholds("STORE_PW") && f.secrets.withholds("KEY_PW"));
        assert!(!f.secrets.withholds("PATH"));
        let bad =
            SigningEnv { keystore_password_env: "A B".into(), key_password_env: "K".into(), ..SigningEnv::default() };
        assert!(bad.check().is_err());
    }

    /// Every flag hap-sign-tool takes a password with is hidden: the one list signing reads.
    #[test]
    fn every_password_flag_hides_its_value() {
        use crate::kernel::secrets::redact::Redacted;
        use crate::kernel::secrets::scrub::REDACTED;
        for flag in PASSWORD_FLAGS {
            let args: Vec<String> = ["sign-profile", flag, "s3cret"].map(String::from).to_vec();
            assert_eq!(Redacted::new("hap-sign-tool", &args, &PASSWORD_FLAGS).args[2], REDACTED, "{flag}");
        }
    }
}
