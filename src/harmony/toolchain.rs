//! Finding the HarmonyOS toolchain: home config first, then the SDK environment variables, the
//! command-line-tools layout and DevEco Studio's install places on this OS (`discovery`), then
//! PATH. Only what is found here can be spawned.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::discovery::{self, Candidate};
use super::programs::Program;
use super::sdk::layout::{self, SdkPlace};
use crate::kernel::platform::os::Os;
use crate::visible::shown_path;

/// Where a person says the programs are (home config.toml `[toolchain]`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolchainConfig {
    pub hvigorw: Option<PathBuf>,
    pub hdc: Option<PathBuf>,
    pub ohpm: Option<PathBuf>,
    pub java: Option<PathBuf>,
    pub hap_sign_tool_jar: Option<PathBuf>,
    /// The SDK (`<sdk>`, holding `default/openharmony/ets/api`) whose declarations
    /// `api_lookup` and `api_check` read.
    pub sdk: Option<PathBuf>,
    pub codelinter: Option<PathBuf>,
    /// DevEco's `Emulator` (`tools/emulator/Emulator` of DevEco Studio).
    pub emulator: Option<PathBuf>,
    /// The command-line tools' `bin/hstack` (crash stacks restored; it needs Node on PATH).
    pub hstack: Option<PathBuf>,
}

/// Where a program was found, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Located {
    /// What is executed: for hap-sign-tool this is java.
    pub path: PathBuf,
    /// For hap-sign-tool, the jar java runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jar: Option<PathBuf>,
    /// A script the program runs first: DevEco's `hvigorw.js`, run by its bundled node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script: Option<PathBuf>,
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
    /// Every place this OS's layouts name, by program, in the order tried (`rein doctor`).
    pub candidates: BTreeMap<String, Vec<String>>,
    /// The SDK's declarations (`sdk::layout`).
    pub sdk: SdkPlace,
}

impl Toolchain {
    pub fn get(&self, program: &Program) -> Option<&Result<Located, Missing>> {
        self.programs.get(program.name())
    }
}

pub fn discover(
    config: &ToolchainConfig,
    extra: &BTreeMap<String, PathBuf>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Toolchain {
    let mut programs = BTreeMap::new();
    let all = discovery::candidates(Os::current(), env);
    let places =
        |name: &str| -> Vec<Candidate> { all.iter().filter(|(n, _)| *n == name).map(|(_, c)| c.clone()).collect() };
    let path_var = env("PATH").unwrap_or_default();
    let hdc = find(&config.hdc, places("hdc"), "hdc", &path_var);
    let jar_near_hdc = hdc.as_ref().ok().and_then(|h| h.path.parent().map(|d| d.join("lib").join("hap-sign-tool.jar")));
    programs.insert("hdc".to_string(), hdc.clone().map_err(|tried| missing(tried, HDC_FIX)));
    for (name, configured, fix) in [
        ("hvigorw", &config.hvigorw, HVIGORW_FIX),
        ("ohpm", &config.ohpm, OHPM_FIX),
        ("codelinter", &config.codelinter, CODELINTER_FIX),
        ("emulator", &config.emulator, EMULATOR_FIX),
        ("hstack", &config.hstack, HSTACK_FIX),
    ] {
        let found = find(configured, places(name), name, &path_var);
        programs.insert(name.to_string(), found.map_err(|tried| missing(tried, fix)));
    }
    let java = find(&config.java, places("java"), "java", &path_var);
    let mut jar_places = places("hap-sign-tool.jar");
    if let Some(path) = jar_near_hdc {
        jar_places.push(Candidate { program: path.display().to_string(), script: None, via: "next to hdc".into() });
    }
    let jar = find_file(&config.hap_sign_tool_jar, jar_places);
    let sign = match (java, jar) {
        (Ok(java), Ok(jar)) => Ok(Located { path: java.path, jar: Some(jar.path), script: None, via: jar.via }),
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
    let mut candidates: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, candidate) in &all {
        candidates.entry(name.to_string()).or_default().push(candidate.to_string());
    }
    let hdc_path = hdc.as_ref().ok().map(|h| h.path.clone());
    let sdk = layout::find(config.sdk.as_deref(), env, hdc_path.as_deref());
    Toolchain { programs, candidates, sdk }
}

const HDC_FIX: &str = "install the HarmonyOS command-line tools and set DEVECO_SDK_HOME to their sdk/ folder, or set [toolchain] hdc in home config.toml";
const HVIGORW_FIX: &str =
    "put command-line-tools/bin on PATH, set DEVECO_SDK_HOME, or set [toolchain] hvigorw in home config.toml";
const OHPM_FIX: &str =
    "put command-line-tools/bin on PATH, set DEVECO_SDK_HOME, or set [toolchain] ohpm in home config.toml";
const CODELINTER_FIX: &str = "codelinter comes with DevEco's command-line tools as <command-line-tools>/bin/codelinter: put that bin on PATH, set DEVECO_SDK_HOME to <command-line-tools>/sdk, or set [toolchain] codelinter in home config.toml";
const HSTACK_FIX: &str = "hstack comes with DevEco's command-line tools as <command-line-tools>/bin/hstack (and needs Node on PATH): put that bin on PATH, set DEVECO_SDK_HOME to <command-line-tools>/sdk, or set [toolchain] hstack in home config.toml; rein maps stacks itself without it";
const EMULATOR_FIX: &str = "install DevEco Studio (its tools/emulator/Emulator) or the command-line tools with their emulator/ folder, or set [toolchain] emulator in home config.toml";
const JAVA_FIX: &str = "install JDK 17 (or 21) and set JAVA_HOME, or set [toolchain] java in home config.toml";
const JAR_FIX: &str = "set DEVECO_SDK_HOME (the jar is in sdk/default/openharmony/toolchains/lib/), or set [toolchain] hap_sign_tool_jar in home config.toml";

fn missing(tried: Vec<String>, fix: &str) -> Missing {
    Missing { tried, fix: fix.to_string() }
}

/// The configured path wins; then each place (a script place needs its runner and its script);
/// then PATH.
fn find(
    configured: &Option<PathBuf>,
    places: Vec<Candidate>,
    name: &str,
    path_var: &str,
) -> Result<Located, Vec<String>> {
    let mut tried = Vec::new();
    if let Some(path) = configured {
        if is_executable(path) {
            return Ok(Located { path: path.clone(), jar: None, script: None, via: "config".into() });
        }
        tried.push(format!("{} (config.toml, not an executable file)", shown_path(path)));
        return Err(tried);
    }
    for place in places {
        let program = PathBuf::from(&place.program);
        let script = place.script.as_ref().map(PathBuf::from);
        if is_executable(&program) && script.as_ref().is_none_or(|s| s.is_file()) {
            return Ok(Located { path: program, jar: None, script, via: place.via });
        }
        tried.push(place.to_string());
    }
    if !path_var.is_empty() {
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        if let Ok(path) = which::which_in(name, Some(path_var), cwd) {
            return Ok(Located { path, jar: None, script: None, via: "PATH".into() });
        }
        tried.push(format!("{name} on PATH"));
    }
    Err(tried)
}

fn find_file(configured: &Option<PathBuf>, places: Vec<Candidate>) -> Result<Located, Vec<String>> {
    if let Some(path) = configured {
        return match path.is_file() {
            true => Ok(Located { path: path.clone(), jar: None, script: None, via: "config".into() }),
            false => Err(vec![format!("{} (config.toml, not a file)", shown_path(path))]),
        };
    }
    if places.is_empty() {
        return Err(vec![
            "hap-sign-tool.jar: nowhere to look (DEVECO_SDK_HOME and OHOS_BASE_SDK_HOME unset, hdc not found)".into(),
        ]);
    }
    let mut tried = Vec::new();
    for place in places {
        let path = PathBuf::from(&place.program);
        if path.is_file() {
            return Ok(Located { path, jar: None, script: None, via: place.via });
        }
        tried.push(place.to_string());
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

    #[test]
    fn a_script_place_needs_its_runner_and_its_script() {
        let dir = tempfile::tempdir().unwrap();
        let node = dir.path().join("tools/node/bin/node");
        let script = dir.path().join("tools/hvigor/bin/hvigorw.js");
        exe(&node);
        let place = || Candidate {
            program: node.display().to_string(),
            script: Some(script.display().to_string()),
            via: "DevEco Studio".into(),
        };
        let tried = find(&None, vec![place()], "hvigorw", "").unwrap_err();
        assert_eq!(tried, [place().to_string()], "no hvigorw.js yet");
        std::fs::create_dir_all(script.parent().unwrap()).unwrap();
        std::fs::write(&script, "// hvigorw").unwrap();
        let found = find(&None, vec![place()], "hvigorw", "").unwrap();
        assert_eq!((found.path, found.script), (node.clone(), Some(script.clone())));
    }
}
