//! git: rein runs it only to fetch packs into its own folder `.rein/pack-src/` — a clone from a
//! source given as-is, a checkout of a revision, the commit id — and nothing a script chooses:
//! no options (`--upload-pack`, `--template`, `-c`, `--output` run commands or write
//! anywhere), no other repository (a `.git/config` in the workspace can run commands through
//! `core.fsmonitor`). Anything else is refused unless a person's rule names it.

use super::Decision;
use crate::kernel::PathClass;

/// Where rein fetches packs, relative to the workspace.
const PACK_SOURCES: &str = ".rein/pack-src/";

pub fn decide(args: &[String], classify: &dyn Fn(&str) -> PathClass) -> Decision {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let in_pack_sources = |dir: &str| {
        dir.starts_with(PACK_SOURCES)
            && !dir.split('/').any(|part| part == "..")
            && classify(dir) == PathClass::Protected
    };
    let plain = |word: &str| !word.is_empty() && !word.starts_with('-');
    match args.as_slice() {
        ["clone", "--quiet", source, dest] if plain(source) && in_pack_sources(dest) => {
            if is_remote(source) {
                Decision::Ask
            } else {
                Decision::Allow
            }
        }
        ["-C", dir, "checkout", "--quiet", rev] if in_pack_sources(dir) && plain(rev) => Decision::Allow,
        ["-C", dir, "rev-parse", "HEAD"] if in_pack_sources(dir) => Decision::Allow,
        // What `rein doctor` asks; it reads no repository and runs nothing else.
        ["--version"] => Decision::Allow,
        _ => Decision::DenyUnlessRule(
            "git runs only for rein's own pack fetches; a person can allow a command with `rein approvals grant git ...`"
                .into(),
        ),
    }
}

/// A URL or scp-like address (`host:path`), as opposed to a local path.
fn is_remote(source: &str) -> bool {
    source.contains("://") || (source.contains(':') && !source.starts_with('/') && !source.starts_with('.'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::policy::table_cases::{label, words};

    #[test]
    fn git_policy_table() {
        let classify = |p: &str| {
            if p.starts_with(".rein/") || p.contains("/.git") || p.starts_with(".git") {
                PathClass::Protected
            } else if p.starts_with('/') {
                PathClass::Outside
            } else {
                PathClass::Workspace
            }
        };
        let verdict = |line: &str| label(&decide(&words(line), &classify));
        let cases = [
            ("clone --quiet /srv/packs/kit .rein/pack-src/1-2", "allow"),
            ("clone --quiet https://example.com/kit.git .rein/pack-src/1-2", "ask"),
            ("clone --quiet git@example.com:team/kit.git .rein/pack-src/1-2", "ask"),
            ("-C .rein/pack-src/1-2 checkout --quiet v1.2.0", "allow"),
            ("-C .rein/pack-src/1-2 rev-parse HEAD", "allow"),
            ("--version", "allow"),
            ("--version --build-options", "rule"),
            ("-c core.fsmonitor=x --version", "rule"),
            ("clone --quiet /srv/packs/kit /etc/kit", "rule"),
            ("clone --quiet /srv/packs/kit vendor/kit", "rule"),
            ("clone --quiet /srv/packs/kit .rein/pack-src/../../x", "rule"),
            ("clone --upload-pack=touch%20/tmp/pwned /srv/kit .rein/pack-src/1", "rule"),
            ("clone --quiet --upload-pack=sh /srv/kit .rein/pack-src/1", "rule"),
            ("clone --template=/tmp/hooks /srv/kit .rein/pack-src/1", "rule"),
            ("clone --quiet -uevil /srv/kit .rein/pack-src/1", "rule"),
            ("clone --quiet --config=core.fsmonitor=x /srv/kit .rein/pack-src/1", "rule"),
            ("-c core.fsmonitor=touch clone --quiet /srv/kit .rein/pack-src/1", "rule"),
            ("-C vendor/lib status", "rule"),
            ("-C /other/repo checkout .", "rule"),
            ("-C .rein/pack-src/1 checkout --quiet -- .", "rule"),
            ("-C .rein/pack-src/1 checkout --quiet --orphan=x", "rule"),
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
