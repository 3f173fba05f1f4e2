//! The settings rein reads at start: home `config.toml` (only a person edits it: writing home
//! needs an interactive approval) and the project's `rein.toml` (it may only tighten the
//! policy, list the packs it uses, and let a pack tool take over a name).
//!
//! ```toml
//! # <home>/config.toml
//! [toolchain]
//! hvigorw = "/opt/command-line-tools/bin/hvigorw"
//! hdc = "/opt/command-line-tools/sdk/default/openharmony/toolchains/hdc"
//! ohpm = "/opt/command-line-tools/bin/ohpm"
//! java = "/usr/lib/jvm/java-17/bin/java"
//! hap_sign_tool_jar = "/opt/command-line-tools/sdk/default/openharmony/toolchains/lib/hap-sign-tool.jar"
//!
//! [programs]          # more programs tools may run (still under the approval policy)
//! git = "/usr/bin/git"
//!
//! [spawn]
//! pass_env = ["OHOS_SIGN_KEY"]   # exact names passed to programs despite looking secret
//! confine = "auto"               # Landlock confinement: "auto", "require" (refuse without it), "off"
//! writable = ["/srv/cache"]      # directories every confined program may also write
//! hvigor_reads_signing_material = false  # true: hvigorw (and every hvigorfile.ts) reads ~/.ohos/config
//!
//! [spawn.connect_ports]          # TCP ports a program may connect to besides its own
//! ohpm = [8081]                  # (hvigorw, ohpm: 80 and 443; hdc: its server's port)
//!
//! [signing.default]   # hap-sign-tool passwords for build-profile.json5's signingConfig "default"
//! keystore_password_env = "OHOS_STORE_PASSWORD"   # variables holding the plaintext; the kernel
//! key_password_env = "OHOS_KEY_PASSWORD"          # reads them at spawn time, scripts never do
//!
//! [devices.lab]       # another machine's hdc server: its devices are judged like local ones
//! server = "lab.example.com:8710"
//!
//! [lease]
//! wait_s = 30         # how long a run waits for a device another run holds
//!
//! [lua]
//! states = 4          # calls that run side by side (Lua states per generation, 1 to 64)
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Code, Failure};
use crate::harmony::signing::SigningEnv;
use crate::harmony::toolchain::ToolchainConfig;
use crate::kernel::files::read::{read_optional_text, Links};
use crate::kernel::policy::Rule;
use crate::kernel::process::confine::ConfineMode;
use crate::visible::shown_path;

/// rein's settings in home: the toolchain, programs a person allows, signing, confinement.
pub const CONFIG_FILE: &str = "config.toml";

/// A settings file that cannot be used; the message says which and how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", shown_path(.path))]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is not valid: {why}. Fix the file (see the book: docs/src/toolchain.md, home config.toml).", shown_path(.path))]
    Home { path: PathBuf, why: String },
    #[error("rein.toml is not valid: {problem}")]
    Control { problem: String },
    #[error("rein.toml is not valid: {why}. A project may only add [[deny]] rules, list [packs] and set [overrides]; allow rules live in rein's home and only a person adds them")]
    Project { why: String },
}

impl From<ConfigError> for Failure {
    fn from(err: ConfigError) -> Failure {
        Failure::new(Code::InvalidConfig, err.to_string())
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HomeConfig {
    #[serde(default)]
    pub toolchain: ToolchainConfig,
    #[serde(default)]
    pub programs: BTreeMap<String, PathBuf>,
    #[serde(default)]
    pub spawn: SpawnConfig,
    /// Signing config name (build-profile.json5) → the variables holding its passwords.
    #[serde(default)]
    pub signing: BTreeMap<String, SigningEnv>,
    #[serde(default)]
    pub lua: LuaConfig,
    /// A name a person gives a lab → its hdc server.
    #[serde(default)]
    pub devices: BTreeMap<String, DeviceServer>,
    #[serde(default)]
    pub lease: LeaseConfig,
}

/// How scripts run.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LuaConfig {
    /// Lua states per generation: how many calls run side by side (default
    /// [`LuaConfig::DEFAULT_STATES`]; each may use the call's memory ceiling).
    pub states: Option<usize>,
}

impl LuaConfig {
    pub const DEFAULT_STATES: usize = 4;
    pub const MAX_STATES: usize = 64;

    fn check(&self) -> Result<(), SettingError> {
        match self.states {
            Some(n) if !(1..=Self::MAX_STATES).contains(&n) => Err(SettingError::States { n }),
            _ => Ok(()),
        }
    }
}

/// A home config setting that cannot be used, and what to give instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    #[error("[lua] states = {n}: give a number from 1 to {}", LuaConfig::MAX_STATES)]
    States { n: usize },
    #[error("`local` is the name of this machine's own hdc server; pick another")]
    LocalServerName,
    #[error("server = \"{server}\" is not host:port (e.g. \"lab.example.com:8710\")")]
    NotHostPort { server: String },
}

/// `[devices.<name>]`: another machine's hdc server (`hdc -s host:port`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceServer {
    pub server: String,
}

/// `[lease]`: how device leases wait.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaseConfig {
    /// Seconds a run waits for a device another run holds, before DEVICE_BUSY.
    pub wait_s: Option<u64>,
}

impl DeviceServer {
    /// `host:port`, with a port hdc can use, and a name that is not the local server's.
    fn check(&self, name: &str) -> Result<(), SettingError> {
        if name == "local" {
            return Err(SettingError::LocalServerName);
        }
        let port = self.server.rsplit_once(':').map(|(host, port)| (host.trim(), port));
        match port {
            Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0) => Ok(()),
            _ => Err(SettingError::NotHostPort { server: self.server.clone() }),
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpawnConfig {
    #[serde(default)]
    pub pass_env: Vec<String>,
    /// OS confinement of spawned programs: "auto" (default), "require" or "off".
    #[serde(default)]
    pub confine: ConfineMode,
    /// More TCP ports a program may connect to (a private registry, a proxy): name → ports.
    #[serde(default)]
    pub connect_ports: BTreeMap<String, Vec<u16>>,
    /// Absolute directories every confined program may write (a shared cache; the test fakes'
    /// state). Never one that holds your home, rein's home or the workspace.
    #[serde(default)]
    pub writable: Vec<PathBuf>,
    /// Lets hvigorw read DevEco's signing material in `~/.ohos/config` (so it can sign with
    /// build-profile.json5's ciphertext passwords). Off by default: the project's
    /// `hvigorfile.ts` runs inside hvigorw and would read it too (docs/src/signing-passwords.md).
    #[serde(default)]
    pub hvigor_reads_signing_material: bool,
}

impl HomeConfig {
    /// Reads `<home>/config.toml`; a missing file is an empty config.
    pub fn load(home: &Path) -> Result<HomeConfig, ConfigError> {
        let path = home.join(CONFIG_FILE);
        match read(&path)? {
            None => Ok(HomeConfig::default()),
            Some(text) => {
                let config: HomeConfig =
                    toml::from_str(&text).map_err(|e| ConfigError::Home { path: path.clone(), why: e.to_string() })?;
                config.lua.check().map_err(|why| ConfigError::Home { path: path.clone(), why: why.to_string() })?;
                if let Some(relative) = config.spawn.writable.iter().find(|p| !p.is_absolute()) {
                    return Err(ConfigError::Home {
                        path: path.clone(),
                        why: format!("[spawn] writable: {} is not an absolute path", shown_path(relative)),
                    });
                }
                for (name, env) in &config.signing {
                    env.check().map_err(|why| ConfigError::Home {
                        path: path.clone(),
                        why: format!("[signing.{name}]: {why}"),
                    })?;
                }
                for (name, device) in &config.devices {
                    device.check(name).map_err(|why| ConfigError::Home {
                        path: path.clone(),
                        why: format!("[devices.{name}]: {why}"),
                    })?;
                }
                Ok(config)
            }
        }
    }
}

/// The project's `rein.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectConfig {
    /// Commands and paths the project refuses, whatever else allows them.
    #[serde(default)]
    pub deny: Vec<Rule>,
    /// The packs the project uses: name → source (managed by `rein pack`).
    #[serde(default)]
    pub packs: BTreeMap<String, String>,
    /// Who serves a built-in or project tool name instead: name → `<pack>.<tool>` (that pack
    /// tool, for every caller) or `"project"` (the project's tool of the name, for rein's own
    /// recipes too); see `registry::apply_overrides`.
    #[serde(default)]
    pub overrides: BTreeMap<String, String>,
}

impl ProjectConfig {
    /// The workspace's rein.toml as it is on disk (see `policy_files` for what is served).
    #[cfg(test)]
    pub fn load(workspace: &Path) -> Result<ProjectConfig, ConfigError> {
        match read(&workspace.join(crate::kernel::scope::protected::PROJECT_FILE))? {
            Some(text) => ProjectConfig::parse(&text),
            None => Ok(ProjectConfig::default()),
        }
    }

    pub fn parse(text: &str) -> Result<ProjectConfig, ConfigError> {
        if let Some(problem) = crate::kernel::policy::controls::policy_file_problem(text) {
            return Err(ConfigError::Control { problem });
        }
        let config: ProjectConfig = toml::from_str(text).map_err(|e| ConfigError::Project { why: e.to_string() })?;
        for rule in &config.deny {
            rule.check().map_err(|e| ConfigError::Project { why: e.to_string() })?;
        }
        Ok(config)
    }
}

fn read(path: &Path) -> Result<Option<String>, ConfigError> {
    read_optional_text(path, Links::Follow).map_err(|source| ConfigError::Read { path: path.to_path_buf(), source })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::policy::Subject;

    #[test]
    fn reads_every_section_and_refuses_typos() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("config.toml"),
            "[toolchain]\nhdc = \"/x/hdc\"\n[programs]\ngit = \"/usr/bin/git\"\n[spawn]\npass_env = [\"A_KEY\"]\n",
        )
        .unwrap();
        let config = HomeConfig::load(dir.path()).unwrap();
        assert_eq!(config.toolchain.hdc.as_deref(), Some(Path::new("/x/hdc")));
        assert_eq!(config.programs["git"], PathBuf::from("/usr/bin/git"));
        assert_eq!(config.spawn.pass_env, ["A_KEY"]);
        std::fs::write(dir.path().join("config.toml"), "[toolchain]\nhcd = \"/x\"\n").unwrap();
        assert_eq!(Failure::from(HomeConfig::load(dir.path()).unwrap_err()).code, Code::InvalidConfig);
        assert!(HomeConfig::load(&dir.path().join("none")).is_ok());
    }

    #[test]
    fn signing_sections_name_environment_variables_only() {
        let dir = tempfile::tempdir().unwrap();
        let section = "[signing.default]\nkeystore_password_env = \"STORE_PW\"\nkey_password_env = \"KEY_PW\"\n";
        std::fs::write(dir.path().join("config.toml"), section).unwrap();
        let config = HomeConfig::load(dir.path()).unwrap();
        assert_eq!(config.signing["default"].key_password_env, "KEY_PW");
        for bad in [
            "[signing.default]\nkeystore_password = \"123456\"\nkey_password_env = \"K\"\n",
            "[signing.default]\nkeystore_password_env = \"NOT A NAME\"\nkey_password_env = \"K\"\n",
            "[signing.default]\nkey_password_env = \"K\"\n",
        ] {
            std::fs::write(dir.path().join("config.toml"), bad).unwrap();
            assert_eq!(Failure::from(HomeConfig::load(dir.path()).unwrap_err()).code, Code::InvalidConfig, "{bad}");
        }
    }

    #[test]
    fn project_rein_toml_may_only_deny() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("rein.toml"), "[[deny]]\nprogram = \"hdc\"\nargs = [\"uninstall\"]\n").unwrap();
        let config = ProjectConfig::load(dir.path()).unwrap();
        let a: Vec<String> = vec!["uninstall".into(), "com.x".into()];
        assert!(config.deny.iter().any(|r| r.denies(&Subject::Spawn { program: "hdc", args: &a })));
        std::fs::write(dir.path().join("rein.toml"), "[[rule]]\nprogram = \"hdc\"\n").unwrap();
        assert!(ProjectConfig::load(dir.path()).unwrap_err().to_string().contains("may only add [[deny]]"));
        std::fs::write(dir.path().join("rein.toml"), "[[allow]]\nprogram = \"hdc\"\n").unwrap();
        assert!(ProjectConfig::load(dir.path()).is_err());
    }
}
