//! Rules a person made: allow rules in home `approvals.toml`, deny rules in the project's
//! `rein.toml`. A rule names a command (a program and one glob per argument, matching a
//! command line of exactly that many arguments), or a path glob with an access. In every
//! glob `*` and `?` stop at `/` and at a leading `.`; `**` spans folders.
//!
//! ```toml
//! [[rule]]
//! program = "hdc"
//! args = ["install", "-r", "**/*.hap"]
//!
//! [[rule]]
//! path = "/home/me/.ohos/config/**"
//! access = "read"
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::kernel::Access;
use crate::visible;
use crate::visible::shown_path;

/// The allow rules a person granted, in rein's home.
pub const APPROVALS_FILE: &str = "approvals.toml";

/// A program and one glob per argument: what rules and pack permissions match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandPattern {
    pub program: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
}

impl CommandPattern {
    /// The whole command line: `program` exactly, and one matching argument per glob — a
    /// longer command never matches (a rule for `ls X` is not one for `ls X && …`).
    pub fn matches_exactly(&self, program: &str, args: &[String]) -> bool {
        self.args.len() == args.len() && self.matches_prefix(program, args)
    }

    /// `program` exactly and the first arguments with the globs; later arguments are free
    /// (what a pack's `permissions` declare: "hdc install" covers `hdc install -r x.hap`; the
    /// policy still judges the whole command).
    pub fn matches_prefix(&self, program: &str, args: &[String]) -> bool {
        self.program == program
            && self.args.len() <= args.len()
            && self.args.iter().zip(args).all(|(pattern, arg)| glob_matches(pattern, arg))
    }

    /// A pattern matching these words literally (`hdc install` → program hdc, args [install]).
    pub fn literal(words: &str) -> Option<CommandPattern> {
        let mut words = words.split_whitespace();
        let program = words.next()?.to_string();
        Some(CommandPattern { program, args: words.map(glob::Pattern::escape).collect() })
    }
}

/// A rule a person made: an allow rule in home approvals.toml, or a deny rule in the
/// project's rein.toml. Either a command (`program` and one glob per argument) or a path glob
/// (`path`, with an optional `access`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// The program a command rule is about (`hdc`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// One glob per argument of a command rule (`["install", "-r", "**/*.hap"]`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// The path glob of a path rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// What a path rule allows (None: reading and writing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<Access>,
}

/// What a rule is matched against.
pub enum Subject<'a> {
    Spawn { program: &'a str, args: &'a [String] },
    File { path: &'a Path, access: Access },
}

impl Rule {
    /// The rule allowing `program` with these argument patterns.
    pub(crate) fn for_command(program: &str, patterns: Vec<String>) -> Rule {
        Rule { program: Some(program.to_string()), args: patterns, path: None, access: None }
    }

    /// The rule allowing exactly this path again, with this access.
    pub(crate) fn for_path(real: &Path, access: Access) -> Rule {
        let path = glob::Pattern::escape(&shown_path(real));
        Rule { program: None, args: Vec::new(), path: Some(path), access: Some(access) }
    }

    pub(crate) fn check(&self) -> Result<(), RuleError> {
        match (&self.program, &self.path) {
            (Some(_), None) | (None, Some(_)) => {}
            _ => return Err(RuleError::Shape),
        }
        for pattern in self.args.iter().chain(self.path.iter()) {
            glob::Pattern::new(pattern)
                .map_err(|e| RuleError::Glob { pattern: pattern.clone(), why: e.to_string() })?;
        }
        Ok(())
    }

    /// Whether this allow rule covers `subject`: a command of exactly these arguments.
    pub(crate) fn matches(&self, subject: &Subject) -> bool {
        self.covers(subject, true)
    }

    /// Whether this deny rule covers `subject`: a command that starts with these arguments
    /// (denying `hdc uninstall` denies every uninstall).
    pub(crate) fn denies(&self, subject: &Subject) -> bool {
        self.covers(subject, false)
    }

    fn covers(&self, subject: &Subject, exactly: bool) -> bool {
        match (subject, &self.program, &self.path) {
            (Subject::Spawn { program, args }, Some(rule_program), None) => {
                let pattern = CommandPattern { program: rule_program.clone(), args: self.args.clone() };
                if exactly {
                    pattern.matches_exactly(program, args)
                } else {
                    pattern.matches_prefix(program, args)
                }
            }
            (Subject::File { path, access }, None, Some(pattern)) => {
                self.access.is_none_or(|a| a == *access) && glob_matches(pattern, &shown_path(path))
            }
            _ => false,
        }
    }

    /// The `rein approvals grant ...` command that creates this rule.
    pub fn grant_command(&self) -> String {
        let mut words = vec!["rein".to_string(), "approvals".into(), "grant".into()];
        match (&self.program, &self.path) {
            (Some(program), _) => {
                words.push(visible::shell_word(program));
                words.extend(self.args.iter().map(|a| visible::shell_word(a)));
            }
            (None, Some(path)) => {
                words.push("--path".into());
                words.push(visible::shell_word(path));
                if let Some(access) = self.access {
                    words.push("--access".into());
                    words.push(access.verb().to_string());
                }
            }
            (None, None) => {}
        }
        words.join(" ")
    }

    /// The rule as people read it: the grant command's arguments.
    pub fn describe(&self) -> String {
        self.grant_command().trim_start_matches("rein approvals grant ").to_string()
    }
}

pub use crate::kernel::secrets::redact::command_line;

fn glob_matches(pattern: &str, text: &str) -> bool {
    let options =
        glob::MatchOptions { case_sensitive: true, require_literal_separator: true, require_literal_leading_dot: true };
    glob::Pattern::new(pattern).is_ok_and(|p| p.matches_with(text, options))
}

/// A rule file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum RuleError {
    #[error("a rule names either a program (with args) or a path (with access)")]
    Shape,
    #[error("pattern {pattern:?} is not a valid glob: {why}")]
    Glob { pattern: String, why: String },
    #[error("cannot read {}: {source}", shown_path(.path))]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is not valid: {why}", shown_path(.path))]
    Invalid { path: PathBuf, why: String },
    #[error("cannot write {}: {why}", shown_path(.path))]
    Write { path: PathBuf, why: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spawn_rule(program: &str, args: &[&str]) -> Rule {
        Rule {
            program: Some(program.into()),
            args: args.iter().map(|a| a.to_string()).collect(),
            path: None,
            access: None,
        }
    }

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn program_rules_match_the_whole_command_with_globs() {
        let rule = spawn_rule("hdc", &["install", "-r", "**/*.hap"]);
        let matches = |line: &str| rule.matches(&Subject::Spawn { program: "hdc", args: &args(line) });
        assert!(matches("install -r entry/build/entry-default-signed.hap"));
        assert!(!matches("install -r notes.txt"));
        assert!(!matches("install"));
        assert!(!matches("install -r a.hap b.hap"), "a longer command is not the one allowed");
        assert!(!rule.matches(&Subject::Spawn { program: "ohpm", args: &args("install -r a.hap") }));
        let ls = spawn_rule("hdc", &["shell", "ls", "X"]);
        assert!(!ls.matches(&Subject::Spawn { program: "hdc", args: &args("shell ls X && param set a b") }));
        let star = spawn_rule("hdc", &["file", "recv", "/data/local/tmp/*", "shots/*"]);
        let recv = |line: &str| star.matches(&Subject::Spawn { program: "hdc", args: &args(line) });
        assert!(recv("file recv /data/local/tmp/a.jpeg shots/a.jpeg"));
        assert!(!recv("file recv /data/local/tmp/../../etc/passwd shots/a"), "* stops at /");
        assert!(!recv("file recv /data/local/tmp/a shots/.bashrc"), "* does not match a leading dot");
    }

    #[test]
    fn literal_patterns_match_their_words_only() {
        let pattern = CommandPattern::literal("hdc shell ls *").unwrap();
        assert!(pattern.matches_prefix("hdc", &args("shell ls * -l")));
        assert!(!pattern.matches_prefix("hdc", &args("shell ls /data")), "a literal * is not a glob");
        assert!(CommandPattern::literal("  ").is_none());
    }

    #[test]
    fn path_rules_match_with_their_access() {
        let rule =
            Rule { program: None, args: vec![], path: Some("/home/me/.ohos/**".into()), access: Some(Access::Read) };
        let p = Path::new("/home/me/.ohos/config/a.p12");
        assert!(rule.matches(&Subject::File { path: p, access: Access::Read }));
        assert!(!rule.matches(&Subject::File { path: p, access: Access::Write }));
        assert_eq!(rule.grant_command(), "rein approvals grant --path '/home/me/.ohos/**' --access read");
    }

    #[test]
    fn a_rule_for_one_path_matches_that_path_only() {
        let rule = Rule::for_path(Path::new("/outside/*"), Access::Write);
        assert!(rule.matches(&Subject::File { path: Path::new("/outside/*"), access: Access::Write }));
        assert!(!rule.matches(&Subject::File { path: Path::new("/outside/.bashrc"), access: Access::Write }));
    }

    #[test]
    fn a_rule_never_shows_what_a_screen_would_act_on() {
        let rule = spawn_rule("hdc", &["shell", "\u{1b}[2J\rx", "it's\u{202e}", "\\"]);
        assert_eq!(rule.describe(), "hdc shell $'\\x1b[2J\\x0dx' $'it\\'s\\u202e' '\\'");
        let tag = spawn_rule("x", &["\u{e0041}"]);
        assert_eq!(tag.describe(), "x $'\\U000e0041'");
    }

    #[test]
    fn a_command_line_shows_where_each_argument_ends() {
        let args: Vec<String> =
            ["-keyAlias", "debugKey -outFile entry/x.hap", "-keyPwd", "***", "-outFile", "/home/me/.bashrc"]
                .map(String::from)
                .to_vec();
        assert_eq!(
            command_line("hap-sign-tool", &args),
            "hap-sign-tool -keyAlias 'debugKey -outFile entry/x.hap' -keyPwd *** -outFile /home/me/.bashrc"
        );
    }
}
