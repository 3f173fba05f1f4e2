//! rein's home config (`<home>/config.toml`): where the toolchain is, which extra programs and
//! environment variables a person allows. Only a person edits it: writing home needs an
//! interactive approval.
//!
//! ```toml
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
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Code, Failure};

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HomeConfig {
    #[serde(default)]
    pub toolchain: ToolchainConfig,
    #[serde(default)]
    pub programs: BTreeMap<String, PathBuf>,
    #[serde(default)]
    pub spawn: SpawnConfig,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolchainConfig {
    pub hvigorw: Option<PathBuf>,
    pub hdc: Option<PathBuf>,
    pub ohpm: Option<PathBuf>,
    pub java: Option<PathBuf>,
    pub hap_sign_tool_jar: Option<PathBuf>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpawnConfig {
    #[serde(default)]
    pub pass_env: Vec<String>,
}

impl HomeConfig {
    /// Reads `<home>/config.toml`; a missing file is an empty config.
    pub fn load(home: &Path) -> Result<HomeConfig, Failure> {
        let path = home.join("config.toml");
        match read_optional(&path).map_err(|e| invalid(&path, e))? {
            None => Ok(HomeConfig::default()),
            Some(text) => toml::from_str(&text).map_err(|e| invalid(&path, e.to_string())),
        }
    }
}

/// The text of a settings file that may not exist (`None` then).
pub fn read_optional(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

fn invalid(path: &Path, why: String) -> Failure {
    Failure::new(
        Code::InvalidConfig,
        format!("{} is not valid: {why}. Fix the file (see README: home config).", path.display()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(HomeConfig::load(dir.path()).unwrap_err().code, "INVALID_CONFIG");
        assert!(HomeConfig::load(&dir.path().join("none")).is_ok());
    }
}
