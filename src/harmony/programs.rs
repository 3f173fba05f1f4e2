//! Which toolchain invocations may run without asking. Builds inside the workspace are the
//! agent's job; anything that reaches a device or the network needs a yes; the rest is
//! refused unless a person adds a rule.

use serde::Serialize;

use super::grammar::{codelinter, emulator, git, hdc, hstack, hvigor, ohpm, sign};
use super::hdc_servers::HdcServers;
use super::project::ProjectFacts;
use crate::kernel::policy::shapes::Effect;
#[cfg(test)]
use crate::kernel::policy::shapes::Verdict;
use crate::kernel::policy::Decision;
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
    /// DevEco's linter (`<command-line-tools>/bin/codelinter`).
    Codelinter,
    /// DevEco's `Emulator` (shared/HARMONY-VERIFY.md §6).
    Emulator,
    /// The command-line tools' crash stack restorer (`<command-line-tools>/bin/hstack`, §7).
    Hstack,
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
            Program::Codelinter => "codelinter",
            Program::Emulator => "emulator",
            Program::Hstack => "hstack",
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
            "codelinter" => Program::Codelinter,
            "emulator" => Program::Emulator,
            "hstack" => Program::Hstack,
            other => Program::Other(other.to_string()),
        }
    }
}

impl std::fmt::Display for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Decides one spawn. `cwd` is where it would run; `classify` tells where a path argument
/// points; `servers` which hdc servers are the person's own; `project` the workspace's bundle
/// and modules.
pub fn decide_spawn(
    program: &Program,
    args: &[String],
    cwd: PathClass,
    classify: &dyn Fn(&str) -> PathClass,
    servers: &HdcServers,
    project: &dyn Fn() -> ProjectFacts,
) -> Decision {
    if cwd != PathClass::Workspace {
        return Decision::Deny(format!("{program} may only run inside the workspace, not {}", cwd.describe()));
    }
    match program {
        Program::Hdc => hdc::decide(args, classify, servers, project),
        Program::Hvigorw => hvigor::decide(args, classify),
        Program::HapSignTool => sign::decide(args, classify),
        Program::Ohpm => ohpm::decide(args),
        Program::Git => git::decide(args),
        Program::Codelinter => codelinter::decide(args, classify),
        Program::Emulator => emulator::decide(args),
        Program::Hstack => hstack::decide(args, classify),
        Program::Other(name) => Decision::DenyUnlessRule(format!(
            "{name} has no built-in policy; a person can allow it with `rein approvals grant {name} ...`"
        )),
    }
}

/// What running `program args` does, as the command's shape declares (`Effect`): what a tool's
/// annotations are held to. A program without a table may do anything.
pub fn effect_of(program: &Program, args: &[String]) -> Effect {
    match program {
        Program::Hdc => hdc::effect(args),
        Program::Hvigorw => hvigor::effect(args),
        Program::HapSignTool => sign::effect(args),
        Program::Ohpm => ohpm::effect(args),
        Program::Git => git::effect(args),
        Program::Codelinter => codelinter::effect(args),
        Program::Emulator => emulator::effect(args),
        Program::Hstack => hstack::effect(args),
        Program::Other(_) => Effect::Replaces,
    }
}

/// Every command shape the tables allow or ask about, by program, for the book's approval
/// table (which a test keeps equal to this).
#[cfg(test)]
pub fn documented() -> Vec<(String, Verdict)> {
    let mut all = hdc::documented();
    all.extend(hvigor::documented());
    all.extend(sign::documented());
    all.extend(ohpm::documented());
    all.extend(codelinter::documented());
    all.extend(emulator::documented());
    all.extend(hstack::documented());
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict(program: Program, line: &str, cwd: PathClass) -> &'static str {
        let args: Vec<String> = line.split_whitespace().map(String::from).collect();
        let classify = |p: &str| if p.starts_with('/') { PathClass::Outside } else { PathClass::Workspace };
        match decide_spawn(&program, &args, cwd, &classify, &HdcServers::default(), &ProjectFacts::default) {
            Decision::Allow => "allow",
            Decision::Ask | Decision::AskPerson | Decision::AskPersonAtTerminal => "ask",
            Decision::Deny(_) | Decision::DenyUnlessRule(_) => "deny",
        }
    }

    #[test]
    fn program_policy_table() {
        use PathClass::*;
        use Program::*;
        let cases = [
            (Hvigorw, "assembleHap", Outside, "deny"),
            (Hvigorw, "assembleHap", Home, "deny"),
            (Hdc, "list targets", Outside, "deny"),
            (Hdc, "list targets", Workspace, "allow"),
            (Other("adb".into()), "devices", Workspace, "deny"),
            (Git, "status", Workspace, "deny"),
        ];
        for (program, line, cwd, expected) in cases {
            assert_eq!(verdict(program.clone(), line, cwd), expected, "{program} {line} in {cwd:?}");
        }
    }
}
