//! `rein doctor`: which config.toml was read; which toolchain programs were found, where and
//! how, and their versions; for each missing one, every place looked at and what to do — and
//! whether a built-in tool needs it. It only looks: nothing in the project or a home changes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::Serialize;

use super::sources::builtin_files;
use crate::harmony::discovery;
use crate::kernel::platform::os::Os;
use crate::kernel::{Call, Kernel};
use crate::visible::shown_path;

/// What [`Host::doctor`](crate::Host::doctor) found: the home config read, and every
/// toolchain program.
#[derive(Debug, Clone, Serialize)]
pub struct Diagnosis {
    /// Home `config.toml`, and whether there was one to read.
    pub config: ConfigFile,
    /// Every toolchain program rein knows (hdc, hvigorw, ohpm …), found or not.
    pub programs: Vec<ProgramReport>,
    /// Every place this OS's layouts name (SDK variables, DevEco Studio installs), by program,
    /// in the order tried, as `path (via)`.
    pub candidates: BTreeMap<String, Vec<String>>,
    /// What the project's `local.properties` points at (`sdk.dir`, `nodejs.dir`): shown, never
    /// run, since an agent may write that file; copy a path to home config.toml to use it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub from_local_properties: Vec<String>,
}

/// Home `config.toml`.
#[derive(Debug, Clone, Serialize)]
pub struct ConfigFile {
    /// Where it is (or would be).
    pub path: String,
    /// Whether there was one to read.
    pub read: bool,
}

/// One toolchain program: where it was found and its version, or what to do.
#[derive(Debug, Clone, Serialize)]
pub struct ProgramReport {
    /// Its name (`hdc`).
    pub program: String,
    /// Whether it was found.
    pub found: bool,
    /// A built-in tool runs it (a missing one makes `rein doctor` fail).
    pub needed: bool,
    /// Where it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The jar a Java tool runs (hap-sign-tool).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jar: Option<String>,
    /// The script the program runs (DevEco's hvigorw.js, run by its node).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// How it was found (a config setting, an environment variable, PATH …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<String>,
    /// The version the program reported (`3.2.0f`, not `Ver: 3.2.0f`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Why the version could not be read, or what to do about a missing program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Every place looked at, when it was not found.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tried: Vec<String>,
}

impl Diagnosis {
    /// Programs a built-in tool needs that were not found.
    pub fn missing_needed(&self) -> Vec<&ProgramReport> {
        self.programs.iter().filter(|p| p.needed && !p.found).collect()
    }
}

/// The version argument each program understands (and the policy allows without asking).
/// hdc prints its version for `-v` itself; `hdc version` asks its server, which may not run.
fn version_args(program: &str) -> Vec<String> {
    let arg = match program {
        "hvigorw" | "git" => "--version",
        _ => "-v",
    };
    vec![arg.to_string()]
}

pub async fn examine(kernel: &Kernel, call: &Call) -> Diagnosis {
    let needed = needed_by_built_in_tools();
    let mut programs = Vec::new();
    for (name, entry) in &kernel.toolchain().programs {
        let mut report = ProgramReport {
            program: name.clone(),
            found: entry.is_ok(),
            needed: needed.contains(name.as_str()),
            path: None,
            jar: None,
            script: None,
            via: None,
            version: None,
            problem: None,
            tried: Vec::new(),
        };
        match entry {
            Err(missing) => {
                report.problem = Some(missing.fix.clone());
                report.tried = missing.tried.clone();
            }
            Ok(located) => {
                report.path = Some(shown_path(&located.path));
                report.jar = located.jar.as_deref().map(shown_path);
                report.script = located.script.as_deref().map(shown_path);
                report.via = Some(located.via.clone());
                // DevEco's Emulator documents no version flag (shared/HARMONY-VERIFY.md §6), and
                // its policy allows only listing without a question: found is all doctor says.
                if name != "emulator" {
                    (report.version, report.problem) = version_of(kernel, call, name).await;
                }
            }
        }
        programs.push(report);
    }
    let path = kernel.scope().home().join(super::config::CONFIG_FILE);
    let config = ConfigFile { read: path.is_file(), path: shown_path(&path) };
    let candidates = kernel.toolchain().candidates.clone();
    Diagnosis { config, programs, candidates, from_local_properties: local_properties(kernel) }
}

/// The project's `local.properties` candidates.
fn local_properties(kernel: &Kernel) -> Vec<String> {
    let Some(text) = read_local_properties(kernel.scope().workspace()) else { return Vec::new() };
    let props = discovery::parse_local_properties(&text);
    discovery::from_local_properties(Os::current(), &props)
        .into_iter()
        .map(|(name, candidate)| format!("{name}: {candidate}"))
        .collect()
}

/// The largest local.properties read (DevEco writes two or three lines).
const LOCAL_PROPERTIES_MAX: u64 = 64 * 1024;

/// `local.properties`, read only when it is a plain file at the project's root (an agent may
/// write the project: a link, a FIFO or a huge file is left alone), and not journaled — doctor
/// changes nothing, not even the journal.
fn read_local_properties(workspace: &Path) -> Option<String> {
    use std::io::Read;
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(workspace.join("local.properties")).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > LOCAL_PROPERTIES_MAX {
        return None;
    }
    let mut text = String::new();
    file.take(LOCAL_PROPERTIES_MAX).read_to_string(&mut text).ok()?;
    Some(text)
}

/// The version a program prints, run so that it changes nothing (see `Kernel::look`).
async fn version_of(kernel: &Kernel, call: &Call, program: &str) -> (Option<String>, Option<String>) {
    match kernel.look(call, program, version_args(program), 20_000).await {
        Ok(out) => {
            let line = out.stdout.lines().chain(out.stderr.lines()).map(str::trim).find(|l| !l.is_empty());
            match line {
                Some(line) => (Some(clean_version(line)), None),
                None => (None, Some(format!("printed nothing for {}", version_args(program).join(" ")))),
            }
        }
        Err(err) => (None, Some(err.to_string())),
    }
}

/// The version out of a version line: `> hvigor 5.18.4`, `Ver: 3.2.0f`, `git version 2.39.5`,
/// hap-sign-tool's `08-21 16:44:24.101  INFO - 1.0.0`.
fn clean_version(line: &str) -> String {
    let line = line.trim_start_matches("> hvigor ").trim();
    let line = match line.split_once(" - ") {
        Some((prefix, rest)) if prefix.contains("INFO") => rest.trim(),
        _ => line,
    };
    let line = line.strip_prefix("Ver:").or_else(|| line.strip_prefix("git version")).unwrap_or(line);
    line.trim().to_string()
}

/// Programs the built-in tools run that a working set-up may lack: DevEco's emulator is for
/// those without a phone, and codelinter and hstack come only with the command-line tools
/// (`lint` and `hstack` say where to get them; rein maps stacks itself), so their absence is shown, never a failure of `rein doctor`.
const OPTIONAL: &[&str] = &["emulator", "codelinter", "hstack"];

/// The programs the built-in tools and prelude run (`rein.proc.run("hdc", …)`), read from
/// their source so the list cannot go stale; OPTIONAL ones left out.
fn needed_by_built_in_tools() -> BTreeSet<&'static str> {
    let mut needed = BTreeSet::new();
    for (rel, text) in builtin_files() {
        if !(rel.starts_with("tools/") || rel.starts_with("prelude/")) {
            continue;
        }
        for call in text.split("rein.proc.run(\"").skip(1) {
            if let Some(program) = call.split('"').next().filter(|p| !OPTIONAL.contains(p)) {
                needed.insert(program);
            }
        }
    }
    needed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_lines_are_cleaned_to_the_version() {
        assert_eq!(clean_version("Ver: 3.2.0f"), "3.2.0f");
        assert_eq!(clean_version("> hvigor 5.18.4"), "5.18.4");
        assert_eq!(clean_version("git version 2.39.5"), "2.39.5");
        assert_eq!(clean_version("08-21 16:44:24.101  INFO - 1.0.0"), "1.0.0");
        assert_eq!(clean_version("08-21 16:44:24 INFO  - 1.0.0"), "1.0.0");
        assert_eq!(clean_version("5.0.8"), "5.0.8");
    }

    #[test]
    fn the_built_in_tools_need_the_harmony_toolchain_but_not_ohpm_or_git() {
        let needed = needed_by_built_in_tools();
        assert_eq!(needed.into_iter().collect::<Vec<_>>(), ["hap-sign-tool", "hdc", "hvigorw"]);
    }
}
