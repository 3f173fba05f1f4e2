//! Finding the HarmonyOS toolchain: home config first, then the SDK environment variables and
//! the command-line-tools layout, then PATH. Only what is found here can be spawned.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::kernel::policy::Program;

/// Where a person says the programs are (home config.toml `[toolchain]`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolchainConfig {
    pub hvigorw: Option<PathBuf>,
    pub hdc: Option<PathBuf>,
    pub ohpm: Option<PathBuf>,
    pub java: Option<PathBuf>,
    pub hap_sign_tool_jar: Option<PathBuf>,
}

/// Where a program was found, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Located {
    /// What is executed: for hap-sign-tool this is java.
    pub path: PathBuf,
    /// For hap-sign-tool, the jar java runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jar: Option<PathBuf>,
    /// "config", an environment variable's name, or "PATH".
    pub via: String,
}

/// A program that was not found: every place looked at, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Missing {
    pub tried: Vec<String>,
    pub fix: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Toolchain {
    pub programs: BTreeMap<String, Result<Located, Missing>>,
}

impl Toolchain {
    pub fn get(&self, program: &Program) -> Option<&Result<Located, Missing>> {
        self.programs.get(program.name())
    }
}

/// One place a program may be.
struct Candidate {
    path: PathBuf,
    via: String,
}

pub fn discover(
    config: &ToolchainConfig,
    extra: &BTreeMap<String, PathBuf>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Toolchain {
    let mut programs = BTreeMap::new();
    let sdk = env("DEVECO_SDK_HOME").map(PathBuf::from);
    let ohos = env("OHOS_BASE_SDK_HOME").map(PathBuf::from);
    let path_var = env("PATH").unwrap_or_default();
    let hdc = find(&config.hdc, hdc_places(sdk.as_deref(), ohos.as_deref()), "hdc", &path_var);
    let jar_near_hdc = hdc.as_ref().ok().and_then(|h| h.path.parent().map(|d| d.join("lib/hap-sign-tool.jar")));
    programs.insert("hdc".to_string(), hdc.clone().map_err(|tried| missing(tried, HDC_FIX)));
    for (name, configured, fix) in [("hvigorw", &config.hvigorw, HVIGORW_FIX), ("ohpm", &config.ohpm, OHPM_FIX)] {
        let found = find(configured, clt_places(sdk.as_deref(), name), name, &path_var);
        programs.insert(name.to_string(), found.map_err(|tried| missing(tried, fix)));
    }
    let java_home =
        env("JAVA_HOME").map(|h| Candidate { path: Path::new(&h).join("bin/java"), via: "JAVA_HOME".into() });
    let java = find(&config.java, java_home.into_iter().collect(), "java", &path_var);
    let jar = find_file(&config.hap_sign_tool_jar, jar_places(sdk.as_deref(), ohos.as_deref(), jar_near_hdc));
    let sign = match (java, jar) {
        (Ok(java), Ok(jar)) => Ok(Located { path: java.path, jar: Some(jar.path), via: jar.via }),
        (Err(tried), _) => Err(missing(tried, JAVA_FIX)),
        (_, Err(tried)) => Err(missing(tried, JAR_FIX)),
    };
    programs.insert("hap-sign-tool".to_string(), sign);
    let git = find(&None, Vec::new(), "git", &path_var);
    programs.insert(
        "git".to_string(),
        git.map_err(|tried| missing(tried, "install git (packs from git repositories need it)")),
    );
    for (name, path) in extra {
        let found = find(&Some(path.clone()), Vec::new(), name, "");
        let fix = format!("fix the path of `{name}` under [programs] in home config.toml");
        programs.insert(name.clone(), found.map_err(|tried| missing(tried, &fix)));
    }
    Toolchain { programs }
}

const HDC_FIX: &str = "install the HarmonyOS command-line tools and set DEVECO_SDK_HOME to their sdk/ folder, or set [toolchain] hdc in home config.toml";
const HVIGORW_FIX: &str =
    "put command-line-tools/bin on PATH, set DEVECO_SDK_HOME, or set [toolchain] hvigorw in home config.toml";
const OHPM_FIX: &str =
    "put command-line-tools/bin on PATH, set DEVECO_SDK_HOME, or set [toolchain] ohpm in home config.toml";
const JAVA_FIX: &str = "install JDK 17 (or 21) and set JAVA_HOME, or set [toolchain] java in home config.toml";
const JAR_FIX: &str = "set DEVECO_SDK_HOME (the jar is in sdk/default/openharmony/toolchains/lib/), or set [toolchain] hap_sign_tool_jar in home config.toml";

fn missing(tried: Vec<String>, fix: &str) -> Missing {
    Missing { tried, fix: fix.to_string() }
}

fn hdc_places(sdk: Option<&Path>, ohos: Option<&Path>) -> Vec<Candidate> {
    let mut places = Vec::new();
    if let Some(sdk) = sdk {
        places.push(Candidate { path: sdk.join("default/openharmony/toolchains/hdc"), via: "DEVECO_SDK_HOME".into() });
    }
    if let Some(ohos) = ohos {
        places.push(Candidate { path: ohos.join("toolchains/hdc"), via: "OHOS_BASE_SDK_HOME".into() });
    }
    places
}

/// Command-line tools keep `bin/` (new) or `<tool>/bin/` (old) next to `sdk/`; DevEco Studio
/// keeps `tools/<tool>/bin/` next to its `sdk/`.
fn clt_places(sdk: Option<&Path>, name: &str) -> Vec<Candidate> {
    let Some(root) = sdk.and_then(Path::parent) else { return Vec::new() };
    let tool_dir = if name == "hvigorw" { "hvigor" } else { name };
    [
        root.join("bin").join(name),
        root.join(tool_dir).join("bin").join(name),
        root.join("tools").join(tool_dir).join("bin").join(name),
    ]
    .into_iter()
    .map(|path| Candidate { path, via: "DEVECO_SDK_HOME".into() })
    .collect()
}

fn jar_places(sdk: Option<&Path>, ohos: Option<&Path>, near_hdc: Option<PathBuf>) -> Vec<Candidate> {
    let mut places = Vec::new();
    if let Some(sdk) = sdk {
        let path = sdk.join("default/openharmony/toolchains/lib/hap-sign-tool.jar");
        places.push(Candidate { path, via: "DEVECO_SDK_HOME".into() });
    }
    if let Some(ohos) = ohos {
        places
            .push(Candidate { path: ohos.join("toolchains/lib/hap-sign-tool.jar"), via: "OHOS_BASE_SDK_HOME".into() });
    }
    if let Some(path) = near_hdc {
        places.push(Candidate { path, via: "next to hdc".into() });
    }
    places
}

/// The configured path wins; then each place; then PATH.
fn find(
    configured: &Option<PathBuf>,
    places: Vec<Candidate>,
    name: &str,
    path_var: &str,
) -> Result<Located, Vec<String>> {
    let mut tried = Vec::new();
    if let Some(path) = configured {
        if is_executable(path) {
            return Ok(Located { path: path.clone(), jar: None, via: "config".into() });
        }
        tried.push(format!("{} (config.toml, not an executable file)", path.display()));
        return Err(tried);
    }
    for place in places {
        if is_executable(&place.path) {
            return Ok(Located { path: place.path, jar: None, via: place.via });
        }
        tried.push(format!("{} ({})", place.path.display(), place.via));
    }
    if !path_var.is_empty() {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        if let Ok(path) = which::which_in(name, Some(path_var), cwd) {
            return Ok(Located { path, jar: None, via: "PATH".into() });
        }
        tried.push(format!("{name} on PATH"));
    }
    Err(tried)
}

fn find_file(configured: &Option<PathBuf>, places: Vec<Candidate>) -> Result<Located, Vec<String>> {
    if let Some(path) = configured {
        return match path.is_file() {
            true => Ok(Located { path: path.clone(), jar: None, via: "config".into() }),
            false => Err(vec![format!("{} (config.toml, not a file)", path.display())]),
        };
    }
    if places.is_empty() {
        return Err(vec![
            "hap-sign-tool.jar: nowhere to look (DEVECO_SDK_HOME and OHOS_BASE_SDK_HOME unset, hdc not found)".into(),
        ]);
    }
    let mut tried = Vec::new();
    for place in places {
        if place.path.is_file() {
            return Ok(Located { path: place.path, jar: None, via: place.via });
        }
        tried.push(format!("{} ({})", place.path.display(), place.via));
    }
    Err(tried)
}

fn is_executable(path: &Path) -> bool {
    crate::kernel::platform::perms::is_executable(path)
}

// Unix only: the fixtures are executable files made with Unix modes.
#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn exe(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn finds_the_command_line_tools_layout_from_deveco_sdk_home() {
        let dir = tempfile::tempdir().unwrap();
        let clt = dir.path().join("command-line-tools");
        exe(&clt.join("bin/hvigorw"));
        exe(&clt.join("bin/ohpm"));
        exe(&clt.join("sdk/default/openharmony/toolchains/hdc"));
        std::fs::create_dir_all(clt.join("sdk/default/openharmony/toolchains/lib")).unwrap();
        std::fs::write(clt.join("sdk/default/openharmony/toolchains/lib/hap-sign-tool.jar"), "").unwrap();
        exe(&dir.path().join("jdk/bin/java"));
        let sdk = clt.join("sdk").display().to_string();
        let jdk = dir.path().join("jdk").display().to_string();
        let env = |name: &str| match name {
            "DEVECO_SDK_HOME" => Some(sdk.clone()),
            "JAVA_HOME" => Some(jdk.clone()),
            _ => None,
        };
        let tc = discover(&ToolchainConfig::default(), &BTreeMap::new(), &env);
        assert_eq!(tc.get(&Program::Hvigorw).unwrap().as_ref().unwrap().path, clt.join("bin/hvigorw"));
        assert_eq!(tc.get(&Program::Hdc).unwrap().as_ref().unwrap().via, "DEVECO_SDK_HOME");
        let sign = tc.get(&Program::HapSignTool).unwrap().as_ref().unwrap();
        assert_eq!(sign.path, dir.path().join("jdk/bin/java"));
        assert_eq!(
            sign.jar.as_deref(),
            Some(clt.join("sdk/default/openharmony/toolchains/lib/hap-sign-tool.jar").as_path())
        );
    }

    #[test]
    fn config_beats_environment_and_path_and_misses_say_how_to_fix() {
        let dir = tempfile::tempdir().unwrap();
        exe(&dir.path().join("custom/hdc"));
        exe(&dir.path().join("onpath/hdc"));
        exe(&dir.path().join("onpath/ohpm"));
        let config = ToolchainConfig { hdc: Some(dir.path().join("custom/hdc")), ..Default::default() };
        let path = dir.path().join("onpath").display().to_string();
        let env = |name: &str| (name == "PATH").then(|| path.clone());
        let tc = discover(&config, &BTreeMap::new(), &env);
        assert_eq!(tc.get(&Program::Hdc).unwrap().as_ref().unwrap().via, "config");
        assert_eq!(tc.get(&Program::Ohpm).unwrap().as_ref().unwrap().via, "PATH");
        let missing = tc.get(&Program::Hvigorw).unwrap().as_ref().unwrap_err();
        assert!(missing.fix.contains("DEVECO_SDK_HOME"));
        assert_eq!(missing.tried, ["hvigorw on PATH"]);
    }
}
