//! Fake `ohpm`: `install` (from oh-package.json5), `ping`, `-v`. ERROR lines go to stderr and
//! the exit status is 1 (shared/HARMONY.md §3, "ohpm").

use serde_json::Value;

use super::common::{conf_str, errln, outln, Conf};
use super::json5::{self, Json5Error};
use crate::state::State;

const REGISTRY: &str = "https://ohpm.openharmony.cn/ohpm/";

/// What `fail` in scenario.json's `ohpm` section prints (shared/HARMONY.md §3; `json5` is the
/// npm json5 package's message for an empty file).
fn failure(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "fetch" => &[
            "ohpm ERROR: Run install command failed Error: 00617101 Fetch Pkg Info Failed",
            "Error Message: FetchPackageInfo: \"@ohos/hvigor-ohos-plugin\" failed",
            "NOTFOUND package '@ohos/hvigor-ohos-plugin@4.0.5' not found from all the registries",
        ],
        "not_found" => &["ohpm ERROR: NOTFOUND package '@ohos/hamock@1.0.1' not found from all the registries"],
        "invalid_dependency" => &["ohpm ERROR: Run install command failed Error: 00618005 Invalid Dependency"],
        "json5" => &["ohpm ERROR: JSON5: invalid end of input at 1:1"],
        _ => return None,
    })
}

fn install(conf: &Conf) -> i32 {
    if let Some(lines) = conf_str(conf, "fail").as_deref().and_then(failure) {
        lines.iter().for_each(|l| errln(l));
        return 1;
    }
    let cwd = std::env::current_dir().unwrap_or_default();
    let deps = match json5::load_file(&cwd.join("oh-package.json5")) {
        Ok(package) => package.get("dependencies").and_then(Value::as_object).cloned().unwrap_or_default(),
        Err(Json5Error::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            // GUESS: the words for a folder without oh-package.json5.
            errln(&format!("ohpm ERROR: The oh-package.json5 file is not found in {}", cwd.display()));
            return 1;
        }
        Err(Json5Error::Io(e)) => {
            errln(&format!("ohpm ERROR: {}", json5::strerror(&e)));
            return 1;
        }
        Err(Json5Error::Syntax(e)) => {
            errln(&format!("ohpm ERROR: {e}"));
            return 1;
        }
    };
    let registry = conf_str(conf, "registry").unwrap_or_else(|| REGISTRY.into());
    let mut names: Vec<&String> = deps.keys().collect();
    names.sort();
    for name in names {
        let version = &deps[name];
        let version = match version {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let version = version.trim_start_matches(['^', '~']);
        let short = name.rsplit('/').next().unwrap_or(name);
        outln(&format!("ohpm INFO: fetch meta info of package '{name}' success {registry}{name}"));
        outln(&format!("ohpm INFO: fetch package done 1 {name} from {registry}{name}/-/{short}-{version}.har"));
    }
    outln("install completed in 0s 431ms");
    0
}

pub fn main(state: &State, argv: &[String]) -> i32 {
    let conf = state.scenario("ohpm");
    let cmd = argv.first().map(String::as_str).unwrap_or("");
    let registry = conf_str(&conf, "registry").unwrap_or_else(|| REGISTRY.into());
    match cmd {
        "-v" | "--version" | "version" => {
            outln(&conf_str(&conf, "version").unwrap_or_else(|| "5.0.8".into()));
            0
        }
        "install" | "i" => install(&conf),
        "ping" => {
            outln(&format!("ohpm INFO: PING {registry}"));
            if conf_str(&conf, "fail").as_deref() == Some("network") {
                // GUESS: the words of a failed ping.
                errln(&format!("ohpm ERROR: PING {registry} failed: connect ETIMEDOUT"));
                return 1;
            }
            outln("ohpm INFO: PONG 255ms");
            0
        }
        _ => {
            errln(&format!("ohpm ERROR: Unknown command \"{cmd}\". Run \"ohpm -h\" for help."));
            1
        }
    }
}
