//! git from a script: only `git --version` (what `rein doctor` asks). rein fetches packs
//! itself, into its home, with a hardened invocation no script reaches (`packs::git`); a
//! script's git could start commands (`--upload-pack`, `--template`, `-c`, a repository's
//! `core.fsmonitor`), write anywhere (`--output`), or copy a repository from outside the
//! workspace to where the agent reads it without anyone being asked (a clone into `.rein/`,
//! which this table allowed while the installer still cloned there). Anything else is refused
//! unless a person's rule names the exact command.

use crate::kernel::policy::shapes::Effect;
use crate::kernel::policy::Decision;

/// What the command does: `--version` reads; any other (a person's rule ran it) may do anything.
pub fn effect(args: &[String]) -> Effect {
    match args {
        [only] if only == "--version" => Effect::Reads,
        _ => Effect::Replaces,
    }
}

pub fn decide(args: &[String]) -> Decision {
    match args {
        [only] if only == "--version" => Decision::Allow,
        _ => Decision::DenyUnlessRule(
            "git runs only for rein's own pack fetches; a person can allow a command with `rein approvals grant git ...`"
                .into(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harmony::grammar::table_cases::{label, words};

    #[test]
    fn git_policy_table() {
        let verdict = |line: &str| label(&decide(&words(line)));
        let cases = [
            ("--version", "allow"),
            ("--version --build-options", "rule"),
            ("-c core.fsmonitor=x --version", "rule"),
            ("clone --quiet /srv/packs/kit .rein/pack-src/1-2", "rule"),
            ("clone --quiet https://example.com/kit.git .rein/pack-src/1-2", "rule"),
            ("-C .rein/pack-src/1-2 checkout --quiet v1.2.0", "rule"),
            ("-C .rein/pack-src/1-2 rev-parse HEAD", "rule"),
            ("clone --quiet /srv/packs/kit vendor/kit", "rule"),
            ("clone --upload-pack=touch%20/tmp/pwned /srv/kit .rein/pack-src/1", "rule"),
            ("clone --template=/tmp/hooks /srv/kit .rein/pack-src/1", "rule"),
            ("-c core.fsmonitor=touch clone --quiet /srv/kit .rein/pack-src/1", "rule"),
            ("-C vendor/lib status", "rule"),
            ("-C /other/repo checkout .", "rule"),
            ("log --output=/outside/file", "rule"),
            ("status", "rule"),
            ("push origin main", "rule"),
            ("", "rule"),
        ];
        for (line, expected) in cases {
            assert_eq!(verdict(line), expected, "git {line}");
        }
    }
}
