//! What hvigor needs from the DevEco Studio it belongs to. hvigor reads the SDK from
//! `DEVECO_SDK_HOME` (or `hwsdk.dir`/`sdk.dir` in local.properties) and fails with `00303217
//! Configuration Error: Invalid value of 'DEVECO_SDK_HOME'` without it; its signing step runs
//! java. The IDE sets both; a terminal does not. When rein runs DevEco's own hvigor
//! (`<root>/tools/hvigor/bin/…`, found by discovery) and the person set neither, the child gets
//! `DEVECO_SDK_HOME=<root>/sdk` and `JAVA_HOME=<root>/jbr` (macOS: `jbr/Contents/Home`) — only
//! folders that exist, never a value the person set (shared/HARMONY.md §6 and "Windows installs").

use std::path::{Path, PathBuf};

/// The DevEco Studio root a hvigor program or script lives in (`<root>/tools/hvigor/bin/<file>`).
fn deveco_root(file: &Path) -> Option<PathBuf> {
    let bin = file.parent()?;
    let hvigor = bin.parent()?;
    let tools = hvigor.parent()?;
    let named = |p: &Path, name: &str| p.file_name().is_some_and(|n| n.eq_ignore_ascii_case(name));
    (named(bin, "bin") && named(hvigor, "hvigor") && named(tools, "tools"))
        .then(|| tools.parent().map(Path::to_path_buf))?
}

/// The variables to add for a hvigor run from `program` (and its `script`), given the child's
/// environment so far.
pub fn for_hvigor(program: &Path, script: Option<&Path>, env: &[(String, String)]) -> Vec<(String, String)> {
    let Some(root) = script.and_then(deveco_root).or_else(|| deveco_root(program)) else { return Vec::new() };
    let set = |name: &str| env.iter().any(|(n, v)| n.eq_ignore_ascii_case(name) && !v.is_empty());
    let mut out = Vec::new();
    let sdk = root.join("sdk");
    if !set("DEVECO_SDK_HOME") && sdk.is_dir() {
        out.push(("DEVECO_SDK_HOME".to_string(), sdk.display().to_string()));
    }
    let java_home = [root.join("jbr").join("Contents").join("Home"), root.join("jbr")]
        .into_iter()
        .find(|home| home.join("bin").join("java").is_file() || home.join("bin").join("java.exe").is_file());
    if let Some(home) = java_home.filter(|_| !set("JAVA_HOME")) {
        out.push(("JAVA_HOME".to_string(), home.display().to_string()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deveco(java: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["tools/hvigor/bin", "tools/node/bin", "sdk/default/openharmony/toolchains"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        let java_bin = dir.path().join(java.join("/"));
        std::fs::create_dir_all(java_bin.parent().unwrap()).unwrap();
        std::fs::write(java_bin, "").unwrap();
        dir
    }

    #[test]
    fn devecos_own_hvigor_gets_its_sdk_and_java() {
        let d = deveco(&["jbr", "bin", "java"]);
        let node = d.path().join("tools/node/bin/node");
        let script = d.path().join("tools/hvigor/bin/hvigorw.js");
        let got = for_hvigor(&node, Some(&script), &[]);
        assert_eq!(
            got,
            [
                ("DEVECO_SDK_HOME".to_string(), d.path().join("sdk").display().to_string()),
                ("JAVA_HOME".to_string(), d.path().join("jbr").display().to_string()),
            ]
        );
        let mac = deveco(&["jbr", "Contents", "Home", "bin", "java"]);
        let bat = mac.path().join("tools/hvigor/bin/hvigorw");
        let got = for_hvigor(&bat, None, &[]);
        assert_eq!(got[1].1, mac.path().join("jbr").join("Contents").join("Home").display().to_string());
    }

    #[test]
    fn what_the_person_set_wins_and_other_hvigors_get_nothing() {
        let d = deveco(&["jbr", "bin", "java"]);
        let script = d.path().join("tools/hvigor/bin/hvigorw.js");
        let env = [("DEVECO_SDK_HOME".to_string(), "/mine".to_string()), ("JAVA_HOME".to_string(), "/j".to_string())];
        assert!(for_hvigor(Path::new("/n/node"), Some(&script), &env).is_empty());
        assert!(for_hvigor(Path::new("/opt/clt/bin/hvigorw"), None, &[]).is_empty(), "command-line tools");
    }
}
