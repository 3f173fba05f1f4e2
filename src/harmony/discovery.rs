//! Where the HarmonyOS programs may be on each OS, as pure functions from (OS, environment) to
//! an ordered list of candidates, so the tables for Linux, macOS and Windows all run in Linux
//! CI. `toolchain::discover` checks which candidates exist; `rein doctor` shows them all.
//!
//! Layouts (tags as in HARMONY.md: [DOC] official docs, [OBS] seen in public repositories,
//! [GUESS] not verified):
//! - Command-line tools: `DEVECO_SDK_HOME=<clt>/sdk`, programs in `<clt>/bin` (new) or
//!   `<clt>/<tool>/bin` (old) [DOC ide-commandline-get, ide-hmos-commandline-get]; hdc and
//!   `lib/hap-sign-tool.jar` in `<sdk>/default/openharmony/toolchains/` [DOC hdc.md].
//! - DevEco Studio on macOS: `/Applications/DevEco-Studio.app/Contents/{sdk, tools/node/bin/node,
//!   tools/hvigor/bin/hvigorw(.js), tools/ohpm/bin/ohpm, jbr/Contents/Home}` [OBS, HARMONY.md §6];
//!   `~/Applications/DevEco-Studio.app` for a per-user copy [GUESS].
//! - DevEco Studio on Windows: `C:\Program Files\Huawei\DevEco Studio\{sdk\default\openharmony\
//!   toolchains\hdc.exe, tools\node\node.exe, tools\hvigor\bin\hvigorw.js|hvigorw.bat,
//!   tools\ohpm\bin\ohpm.bat, jbr\bin\java.exe}` [OBS, HARMONY.md §6; a public build guide for
//!   Windows 11 + DevEco Studio 5.0.5 runs `tools\node\node.exe tools\hvigor\bin\hvigorw.js` and
//!   `tools\ohpm\bin\ohpm.bat`]; the per-user install is `%LOCALAPPDATA%\Huawei\DevEco Studio`
//!   [OBS: a project README runs `C:\Users\<u>\AppData\Local\Huawei\DevEco Studio\tools\node\
//!   node.exe ...\hvigorw.js`]; `%LOCALAPPDATA%\Programs\DevEco Studio` [OBS in one build
//!   script only, unverified].
//! - hvigorw runs through DevEco's bundled node (`node hvigorw.js`), as the IDE itself does
//!   [OBS, HARMONY.md §1], which on Windows also avoids `cmd.exe` and its argument rules.
//! - A project's `local.properties` names `sdk.dir` (OpenHarmony), `hwsdk.dir` (HarmonyOS) and
//!   `nodejs.dir` (Java properties, `\\` for `\`) [OBS: DevEco-generated files and build scripts
//!   in public repositories; shared/HARMONY.md "Windows installs"].
//! - DevEco's `Emulator`: `<DevEco>/tools/emulator/Emulator` (macOS
//!   `/Applications/DevEco-Studio.app/Contents/tools/emulator/Emulator`), `Emulator.exe` on
//!   Windows, or `<command-line-tools>/emulator/` [DOC HWEMU; OBS; shared/HARMONY-VERIFY.md §6].
//! - DevEco Studio on another drive: its installer sets the user variable
//!   `DevEco Studio=<root>\bin`, whose parent is the install [OBS: hdc_py `_which_hdc`,
//!   shared/HARMONY.md "Windows installs"]; `DEVECO_SDK_HOME=<root>\sdk` leads to it as well.

use std::fmt;

use crate::kernel::platform::os::Os;

impl Os {
    fn sep(self) -> char {
        if self == Os::Windows {
            '\\'
        } else {
            '/'
        }
    }

    /// `name` as this OS names a program file (`hdc.exe`, `ohpm.bat` on Windows).
    fn program(self, name: &str, windows_ext: &str) -> String {
        if self == Os::Windows {
            format!("{name}.{windows_ext}")
        } else {
            name.to_string()
        }
    }
}

/// One place a program may be: what is executed, the script it runs first (hvigorw.js through
/// node), and where the place came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub program: String,
    pub script: Option<String>,
    pub via: String,
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.script {
            Some(script) => write!(f, "{} {} ({})", self.program, script, self.via),
            None => write!(f, "{} ({})", self.program, self.via),
        }
    }
}

/// Every candidate, by program (`hvigorw`, `hdc`, `ohpm`, `java`, `hap-sign-tool.jar`), in the
/// order they are tried: the SDK environment variables, then DevEco Studio's install places.
pub fn candidates(os: Os, env: &dyn Fn(&str) -> Option<String>) -> Vec<(&'static str, Candidate)> {
    let mut out = Vec::new();
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    if let Some(sdk) = set("DEVECO_SDK_HOME") {
        out.extend(sdk_candidates(os, &sdk, "DEVECO_SDK_HOME"));
        out.extend(clt_candidates(os, &sdk));
    }
    if let Some(ohos) = set("OHOS_BASE_SDK_HOME") {
        let toolchains = join(os, &ohos, &["toolchains"]);
        out.push(("hdc", plain(join(os, &toolchains, &[&os.program("hdc", "exe")]), "OHOS_BASE_SDK_HOME")));
        out.push((
            "hap-sign-tool.jar",
            plain(join(os, &toolchains, &["lib", "hap-sign-tool.jar"]), "OHOS_BASE_SDK_HOME"),
        ));
    }
    if let Some(java_home) = set("JAVA_HOME") {
        out.push(("java", plain(join(os, &java_home, &["bin", &os.program("java", "exe")]), "JAVA_HOME")));
    }
    // `DEVECO_SDK_HOME=<DevEco>/sdk` on any drive: that DevEco's own hvigor, node and java are
    // beside it (after JAVA_HOME: a java the person chose wins).
    if let Some(root) = set("DEVECO_SDK_HOME").and_then(|sdk| parent(os, &sdk)) {
        out.extend(deveco_tools(os, &root, "DEVECO_SDK_HOME"));
    }
    for (root, via) in deveco_roots(os, &set) {
        out.extend(deveco_candidates(os, &root, &via));
    }
    out
}

/// `<sdk>/default/openharmony/toolchains/{hdc, lib/hap-sign-tool.jar}`.
fn sdk_candidates(os: Os, sdk: &str, via: &str) -> Vec<(&'static str, Candidate)> {
    let toolchains = join(os, sdk, &["default", "openharmony", "toolchains"]);
    vec![
        ("hdc", plain(join(os, &toolchains, &[&os.program("hdc", "exe")]), via)),
        ("hap-sign-tool.jar", plain(join(os, &toolchains, &["lib", "hap-sign-tool.jar"]), via)),
    ]
}

/// The command-line tools keep `bin/` (new) or `<tool>/bin/` (old) next to `sdk/`.
fn clt_candidates(os: Os, sdk: &str) -> Vec<(&'static str, Candidate)> {
    let Some(root) = parent(os, sdk) else { return Vec::new() };
    let mut out = Vec::new();
    for (name, dir) in [("hvigorw", "hvigor"), ("ohpm", "ohpm")] {
        let file = os.program(name, "bat");
        out.push((name, plain(join(os, &root, &["bin", &file]), "DEVECO_SDK_HOME")));
        out.push((name, plain(join(os, &root, &[dir, "bin", &file]), "DEVECO_SDK_HOME")));
    }
    // `<command-line-tools>/bin/codelinter` [DOC ide-commandline-get, HARMONY-VERIFY §4]; the
    // Windows name with `.bat` is a [GUESS] like hvigorw's and ohpm's.
    out.push(("codelinter", plain(join(os, &root, &["bin", &os.program("codelinter", "bat")]), "DEVECO_SDK_HOME")));
    // `<command-line-tools>/bin/hstack` [DOC ide-command-line-hstack, HARMONY-VERIFY §7]; `.bat`
    // on Windows is a [GUESS] like codelinter's.
    out.push(("hstack", plain(join(os, &root, &["bin", &os.program("hstack", "bat")]), "DEVECO_SDK_HOME")));
    // `<command-line-tools>/emulator/` [DOC HWEMU, shared/HARMONY-VERIFY.md §6].
    out.push(("emulator", plain(join(os, &root, &["emulator", &os.program("Emulator", "exe")]), "DEVECO_SDK_HOME")));
    out
}

/// Where DevEco Studio is installed on `os`, each with how it was found.
fn deveco_roots(os: Os, env: &dyn Fn(&str) -> Option<String>) -> Vec<(String, String)> {
    match os {
        Os::Linux => Vec::new(),
        Os::Macos => {
            let mut roots = vec![("/Applications/DevEco-Studio.app/Contents".to_string(), "DevEco Studio".to_string())];
            if let Some(home) = env("HOME") {
                roots.push((
                    join(os, &home, &["Applications", "DevEco-Studio.app", "Contents"]),
                    "DevEco Studio (user)".into(),
                ));
            }
            roots
        }
        Os::Windows => {
            let mut roots = Vec::new();
            // The installer sets the user variable `DevEco Studio=<root>\bin` (sometimes with a
            // trailing `;`); hdc_py's `_which_hdc` takes its parent the same way. It wins over
            // Program Files: DevEco is often on another drive.
            if let Some(bin) = env("DevEco Studio") {
                if let Some(root) = parent(os, bin.trim_end_matches(';')) {
                    roots.push((root, "the DevEco Studio user variable".to_string()));
                }
            }
            let program_files = env("ProgramFiles").unwrap_or_else(|| r"C:\Program Files".to_string());
            roots.push((join(os, &program_files, &["Huawei", "DevEco Studio"]), "DevEco Studio".to_string()));
            if let Some(local) = env("LOCALAPPDATA") {
                roots.push((join(os, &local, &["Huawei", "DevEco Studio"]), "DevEco Studio (user)".into()));
                roots.push((join(os, &local, &["Programs", "DevEco Studio"]), "DevEco Studio (user)".into()));
            }
            roots
        }
    }
}

/// The programs inside one DevEco Studio install.
fn deveco_candidates(os: Os, root: &str, via: &str) -> Vec<(&'static str, Candidate)> {
    let mut out = deveco_tools(os, root, via);
    out.extend(sdk_candidates(os, &join(os, root, &["sdk"]), via));
    out
}

/// DevEco Studio's own tools (hvigor through its node, ohpm, its java), without its SDK.
fn deveco_tools(os: Os, root: &str, via: &str) -> Vec<(&'static str, Candidate)> {
    let node = match os {
        Os::Windows => join(os, root, &["tools", "node", "node.exe"]),
        _ => join(os, root, &["tools", "node", "bin", "node"]),
    };
    let hvigor_bin = join(os, root, &["tools", "hvigor", "bin"]);
    let java = match os {
        Os::Macos => join(os, root, &["jbr", "Contents", "Home", "bin", "java"]),
        _ => join(os, root, &["jbr", "bin", &os.program("java", "exe")]),
    };
    vec![
        (
            "hvigorw",
            Candidate { program: node, script: Some(join(os, &hvigor_bin, &["hvigorw.js"])), via: via.to_string() },
        ),
        ("hvigorw", plain(join(os, &hvigor_bin, &[&os.program("hvigorw", "bat")]), via)),
        ("ohpm", plain(join(os, root, &["tools", "ohpm", "bin", &os.program("ohpm", "bat")]), via)),
        ("java", plain(java, via)),
        // `<DevEco>/tools/emulator/Emulator`, `Emulator.exe` on Windows [DOC HWEMU; OBS,
        // shared/HARMONY-VERIFY.md §6].
        ("emulator", plain(join(os, root, &["tools", "emulator", &os.program("Emulator", "exe")]), via)),
    ]
}

/// What a project's `local.properties` says: `sdk.dir` (OpenHarmony projects), `hwsdk.dir`
/// (HarmonyOS projects: the HarmonyOS SDK hvigor reads when DEVECO_SDK_HOME is unset) and
/// `nodejs.dir`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LocalProperties {
    pub sdk_dir: Option<String>,
    pub hwsdk_dir: Option<String>,
    pub nodejs_dir: Option<String>,
}

/// Parses `local.properties` (Java properties: `key=value` or `key: value`, `#`/`!` comments,
/// `\` escapes, so `C:\\Program Files` is `C:\Program Files`).
pub fn parse_local_properties(text: &str) -> LocalProperties {
    let mut props = LocalProperties::default();
    for line in text.lines().map(str::trim_start) {
        if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
            continue;
        }
        let Some(at) = line.find(['=', ':']) else { continue };
        let (key, value) = (line[..at].trim(), unescape(line[at + 1..].trim()));
        match key {
            "sdk.dir" => props.sdk_dir = Some(value),
            "hwsdk.dir" => props.hwsdk_dir = Some(value),
            "nodejs.dir" => props.nodejs_dir = Some(value),
            _ => {}
        }
    }
    props
}

fn unescape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('t') => out.push('\t'),
                Some('n') => out.push('\n'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// What the project's `local.properties` points at. Shown by `rein doctor`, never run: the file
/// is in the workspace, which an agent may write, so a program it names could be anything. A
/// person who wants these copies them to `[toolchain]` in home config.toml.
pub fn from_local_properties(os: Os, props: &LocalProperties) -> Vec<(&'static str, Candidate)> {
    const VIA: &str = "the project's local.properties; not run: set it in home config.toml [toolchain]";
    let mut out = Vec::new();
    for sdk in [&props.sdk_dir, &props.hwsdk_dir].into_iter().flatten() {
        // DevEco writes `sdk.dir` as `<sdk>` or `<sdk>/default`; both are tried.
        let sdk = match sdk.trim_end_matches(['/', '\\']).strip_suffix("default") {
            Some(stripped) => stripped.trim_end_matches(['/', '\\']).to_string(),
            None => sdk.clone(),
        };
        out.extend(sdk_candidates(os, &sdk, VIA));
    }
    if let Some(node_dir) = &props.nodejs_dir {
        let node = match os {
            Os::Windows => join(os, node_dir, &["node.exe"]),
            _ => join(os, node_dir, &["bin", "node"]),
        };
        out.push(("node", plain(node, VIA)));
    }
    out
}

fn plain(program: String, via: &str) -> Candidate {
    Candidate { program, script: None, via: via.to_string() }
}

fn join(os: Os, base: &str, parts: &[&str]) -> String {
    let mut out = base.trim_end_matches(['/', '\\']).to_string();
    for part in parts {
        out.push(os.sep());
        out.push_str(part);
    }
    out
}

fn parent(os: Os, path: &str) -> Option<String> {
    let trimmed = path.trim_end_matches(['/', '\\']);
    let cut = if os == Os::Windows { trimmed.rfind(['/', '\\']) } else { trimmed.rfind('/') }?;
    (cut > 0).then(|| trimmed[..cut].to_string())
}

#[cfg(test)]
#[path = "discovery_tests.rs"]
mod tests;
