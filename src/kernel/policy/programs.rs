//! Which toolchain invocations may run without asking. Builds inside the workspace are the
//! agent's job; anything that reaches a device or the network needs a yes; the rest is
//! refused unless a person adds a rule.

use serde::Serialize;

use super::{hdc, Decision};
use crate::kernel::scope::PathClass;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Program {
    Hvigorw,
    Hdc,
    Ohpm,
    HapSignTool,
    /// git, for fetching packs.
    Git,
    /// A program a person added in home config.toml.
    Other(String),
}

impl Program {
    pub fn name(&self) -> &str {
        match self {
            Program::Hvigorw => "hvigorw",
            Program::Hdc => "hdc",
            Program::Ohpm => "ohpm",
            Program::HapSignTool => "hap-sign-tool",
            Program::Git => "git",
            Program::Other(name) => name,
        }
    }

    pub fn parse(name: &str) -> Program {
        match name {
            "hvigorw" => Program::Hvigorw,
            "hdc" => Program::Hdc,
            "ohpm" => Program::Ohpm,
            "hap-sign-tool" => Program::HapSignTool,
            "git" => Program::Git,
            other => Program::Other(other.to_string()),
        }
    }
}

impl std::fmt::Display for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// hvigorw tasks that build or clean inside the project, and its daemon controls.
const HVIGOR_TASKS: [&str; 11] = [
    "clean",
    "assembleHap",
    "assembleApp",
    "assembleHsp",
    "assembleHar",
    "--stop-daemon",
    "--stop-daemon-all",
    "--status-daemon",
    "--version",
    "-v",
    "version",
];

/// hvigorw tasks that install on a device.
const HVIGOR_DEVICE_TASKS: [&str; 2] = ["onDeviceTest", "test"];

/// hap-sign-tool arguments that name files.
const SIGN_PATH_FLAGS: [&str; 9] = [
    "-inFile",
    "-outFile",
    "-keystoreFile",
    "-appCertFile",
    "-profileFile",
    "-profileCertFile",
    "-outCertChain",
    "-outProfile",
    "-issuerKeystoreFile",
];

/// Decides one spawn. `cwd` is where it would run; `classify` tells where a path argument
/// points (hap-sign-tool paths must stay in the workspace to run without asking).
pub fn decide_spawn(
    program: &Program,
    args: &[String],
    cwd: PathClass,
    classify: &dyn Fn(&str) -> PathClass,
) -> Decision {
    if cwd != PathClass::Workspace {
        return Decision::Deny(format!("{program} may only run inside the workspace, not {}", cwd.describe()));
    }
    match program {
        Program::Hdc => match hdc::received_file(args) {
            Some(local) if classify(local) != PathClass::Workspace => {
                Decision::Deny(format!("hdc file recv may only write into the workspace, not {local}"))
            }
            _ => hdc::decide(args),
        },
        Program::Hvigorw => decide_hvigorw(args),
        Program::HapSignTool => decide_sign(args, classify),
        Program::Ohpm => decide_ohpm(args),
        Program::Git => decide_git(args, classify),
        Program::Other(name) => Decision::DenyUnlessRule(format!(
            "{name} has no built-in policy; a person can allow it with `rein approvals grant {name} ...`"
        )),
    }
}

fn decide_hvigorw(args: &[String]) -> Decision {
    let tasks: Vec<&str> = hvigor_tasks(args);
    if tasks.is_empty() {
        return Decision::Deny("hvigorw without a task; give assembleHap, clean ...".into());
    }
    if tasks.iter().any(|t| HVIGOR_DEVICE_TASKS.contains(t)) {
        return Decision::Ask;
    }
    match tasks.iter().find(|t| !HVIGOR_TASKS.contains(t)) {
        None => Decision::Allow,
        Some(task) => Decision::DenyUnlessRule(format!("hvigorw task `{task}` is not a build, clean or daemon task")),
    }
}

/// The words of an hvigorw command line that are tasks: not options, not option values.
fn hvigor_tasks(args: &[String]) -> Vec<&str> {
    let mut tasks = Vec::new();
    let mut iter = args.iter().map(String::as_str);
    while let Some(arg) = iter.next() {
        match arg {
            "-p" | "--mode" | "-m" => {
                iter.next();
            }
            "--stop-daemon" | "--stop-daemon-all" | "--status-daemon" | "--version" | "-v" => tasks.push(arg),
            _ if arg.starts_with('-') => {}
            _ => tasks.push(arg),
        }
    }
    tasks
}

fn decide_sign(args: &[String], classify: &dyn Fn(&str) -> PathClass) -> Decision {
    match args.first().map(String::as_str) {
        Some("sign-app" | "verify-app" | "sign-profile" | "verify-profile") => {}
        Some("-v" | "-h" | "--version" | "--help") => return Decision::Allow,
        Some(other) => return Decision::DenyUnlessRule(format!("hap-sign-tool `{other}` is not signing or verifying")),
        None => return Decision::Deny("hap-sign-tool without a command".into()),
    }
    let paths = args.windows(2).filter(|w| SIGN_PATH_FLAGS.contains(&w[0].as_str())).map(|w| w[1].as_str());
    let outside: Vec<&str> = paths.filter(|p| classify(p) != PathClass::Workspace).collect();
    if outside.is_empty() {
        Decision::Allow
    } else {
        Decision::Ask
    }
}

/// git for packs: reading local repositories and cloning from them is allowed; fetching over
/// the network asks; nothing else runs without a rule.
fn decide_git(args: &[String], classify: &dyn Fn(&str) -> PathClass) -> Decision {
    let mut rest: Vec<&str> = args.iter().map(String::as_str).collect();
    if rest.first() == Some(&"-C") && rest.len() > 2 {
        rest.drain(..2);
    }
    match rest.as_slice() {
        ["rev-parse", ..] | ["log", ..] | ["status", ..] | ["checkout", "--quiet", _] | ["checkout", _] => {
            Decision::Allow
        }
        ["clone", options @ .., source, dest] if options.iter().all(|o| o.starts_with('-')) => {
            if matches!(classify(dest), PathClass::Outside | PathClass::Home) {
                return Decision::Deny(format!("git may only clone into the workspace, not {dest}"));
            }
            if is_remote(source) {
                Decision::Ask
            } else {
                Decision::Allow
            }
        }
        _ => Decision::DenyUnlessRule("git is allowed here only to read and clone repositories for packs".into()),
    }
}

/// A URL or scp-like address (`host:path`), as opposed to a local path.
fn is_remote(source: &str) -> bool {
    source.contains("://") || (source.contains(':') && !source.starts_with('/') && !source.starts_with('.'))
}

fn decide_ohpm(args: &[String]) -> Decision {
    match args.first().map(String::as_str) {
        Some("-v" | "--version" | "version") => Decision::Allow,
        Some("install" | "i" | "update" | "ping") => Decision::Ask,
        Some(other) => Decision::DenyUnlessRule(format!("ohpm `{other}` is not install or update")),
        None => Decision::Deny("ohpm without a command".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(program: Program, line: &str, cwd: PathClass) -> &'static str {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        let classify = |p: &str| if p.starts_with('/') { PathClass::Outside } else { PathClass::Workspace };
        match decide_spawn(&program, &args, cwd, &classify) {
            Decision::Allow => "allow",
            Decision::Ask | Decision::AskHuman => "ask",
            Decision::Deny(_) | Decision::DenyUnlessRule(_) => "deny",
        }
    }

    #[test]
    fn program_policy_table() {
        use PathClass::*;
        use Program::*;
        let cases = [
            (
                Hvigorw,
                "--mode module -p product=default -p buildMode=debug assembleHap --no-daemon",
                Workspace,
                "allow",
            ),
            (
                Hvigorw,
                "--mode module -p module=entry@default -p product=default assembleHap --no-daemon",
                Workspace,
                "allow",
            ),
            (Hvigorw, "clean --no-daemon", Workspace, "allow"),
            (Hvigorw, "--stop-daemon", Workspace, "allow"),
            (Hvigorw, "--version", Workspace, "allow"),
            (Hvigorw, "assembleHap", Outside, "deny"),
            (Hvigorw, "assembleHap", Home, "deny"),
            (Hvigorw, "onDeviceTest", Workspace, "ask"),
            (Hvigorw, "publishToMaven", Workspace, "deny"),
            (Hvigorw, "", Workspace, "deny"),
            (HapSignTool, "sign-app -inFile a.hap -outFile b.hap -keystoreFile k.p12 -keyPwd 1", Workspace, "allow"),
            (HapSignTool, "sign-app -inFile a.hap -outFile b.hap -keystoreFile /home/u/.ohos/k.p12", Workspace, "ask"),
            (HapSignTool, "verify-app -inFile b.hap -outCertChain c.cer -outProfile p.p7b", Workspace, "allow"),
            (HapSignTool, "verify-app -inFile /tmp/b.hap", Workspace, "ask"),
            (HapSignTool, "generate-keypair -keyAlias x", Workspace, "deny"),
            (Ohpm, "install", Workspace, "ask"),
            (Ohpm, "install @ohos/axios", Workspace, "ask"),
            (Ohpm, "-v", Workspace, "allow"),
            (Ohpm, "publish", Workspace, "deny"),
            (Hdc, "list targets", Workspace, "allow"),
            (Hdc, "install -r x.hap", Workspace, "ask"),
            (Hdc, "shell reboot", Workspace, "deny"),
            (Hdc, "list targets", Outside, "deny"),
            (Hdc, "file recv /data/local/tmp/x.jpeg shots/x.jpeg", Workspace, "ask"),
            (Hdc, "-t K file recv /data/local/tmp/x.jpeg /etc/x.jpeg", Workspace, "deny"),
            (Other("adb".into()), "devices", Workspace, "deny"),
            (Git, "clone --quiet /srv/packs/kit .rein/pack-src/kit", Workspace, "allow"),
            (Git, "clone https://example.com/kit.git .rein/pack-src/kit", Workspace, "ask"),
            (Git, "clone git@example.com:team/kit.git .rein/pack-src/kit", Workspace, "ask"),
            (Git, "clone /srv/packs/kit /etc/kit", Workspace, "deny"),
            (Git, "-C /srv/packs/kit rev-parse HEAD", Workspace, "allow"),
            (Git, "-C .rein/pack-src/kit checkout --quiet v1.2.0", Workspace, "allow"),
            (Git, "push origin main", Workspace, "deny"),
        ];
        for (program, line, cwd, expected) in cases {
            assert_eq!(verdict(program.clone(), line, cwd), expected, "{program} {line} in {cwd:?}");
        }
    }
}
