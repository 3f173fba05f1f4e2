//! Rules a person made: allow rules in home `approvals.toml`, deny rules in the project's
//! `rein.toml`. A rule names a program and argument patterns (matched as a prefix of the
//! command line, one glob per argument), or a path glob with an access.
//!
//! ```toml
//! [[rule]]
//! program = "hdc"
//! args = ["install", "-r", "*.hap"]
//!
//! [[rule]]
//! path = "/home/me/.ohos/config/**"
//! access = "read"
//! ```

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::kernel::error::Access;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<Access>,
}

/// What a rule is matched against.
pub enum Subject<'a> {
    Spawn { program: &'a str, args: &'a [String] },
    File { path: &'a Path, access: Access },
}

impl Rule {
    pub fn check(&self) -> Result<(), String> {
        match (&self.program, &self.path) {
            (Some(_), None) | (None, Some(_)) => {}
            _ => return Err("a rule names either a program (with args) or a path (with access)".into()),
        }
        for pattern in self.args.iter().chain(self.path.iter()) {
            glob::Pattern::new(pattern).map_err(|e| format!("pattern {pattern:?} is not a valid glob: {e}"))?;
        }
        Ok(())
    }

    pub fn matches(&self, subject: &Subject) -> bool {
        match (subject, &self.program, &self.path) {
            (Subject::Spawn { program, args }, Some(rule_program), None) => {
                rule_program == program
                    && self.args.len() <= args.len()
                    && self.args.iter().zip(args.iter()).all(|(pattern, arg)| glob_matches(pattern, arg))
            }
            (Subject::File { path, access }, None, Some(pattern)) => {
                self.access.is_none_or(|a| a == *access) && glob_matches(pattern, &path.to_string_lossy())
            }
            _ => false,
        }
    }

    /// The `rein approvals grant ...` arguments that create this rule.
    pub fn grant_command(&self) -> String {
        let mut words = vec!["rein".to_string(), "approvals".into(), "grant".into()];
        match (&self.program, &self.path) {
            (Some(program), _) => {
                words.push(shell_quote(program));
                words.extend(self.args.iter().map(|a| shell_quote(a)));
            }
            (None, Some(path)) => {
                words.push("--path".into());
                words.push(shell_quote(path));
                if let Some(access) = self.access {
                    words.push("--access".into());
                    words.push(format!("{access:?}").to_lowercase());
                }
            }
            (None, None) => {}
        }
        words.join(" ")
    }
}

fn glob_matches(pattern: &str, text: &str) -> bool {
    let options = glob::MatchOptions {
        case_sensitive: true,
        require_literal_separator: false,
        require_literal_leading_dot: false,
    };
    glob::Pattern::new(pattern).is_ok_and(|p| p.matches_with(text, options))
}

fn shell_quote(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=@:,+".contains(c)) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// Rules as stored in a TOML file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    #[serde(default, rename = "rule", skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<Rule>,
}

impl RuleFile {
    pub fn load(path: &Path) -> Result<RuleFile, String> {
        let Some(text) = crate::config::read_optional(path)? else { return Ok(RuleFile::default()) };
        let file: RuleFile = toml::from_str(&text).map_err(|e| format!("{} is not valid: {e}", path.display()))?;
        for rule in &file.rules {
            rule.check().map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(file)
    }

    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    pub fn find(&self, subject: &Subject) -> Option<&Rule> {
        self.rules.iter().find(|rule| rule.matches(subject))
    }
}

/// The project's `rein.toml`: it may only tighten the policy.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProjectPolicy {
    #[serde(default)]
    pub deny: Vec<Rule>,
    /// The packs the project uses: name → source (managed by `rein pack`).
    #[serde(default)]
    pub packs: std::collections::BTreeMap<String, String>,
    /// Built-in or project tool names a pack tool takes over: name → `<pack>.<tool>`.
    #[serde(default)]
    pub overrides: std::collections::BTreeMap<String, String>,
}

impl ProjectPolicy {
    pub fn load(workspace: &Path) -> Result<ProjectPolicy, String> {
        let path = workspace.join("rein.toml");
        let Some(text) = crate::config::read_optional(&path)? else { return Ok(ProjectPolicy::default()) };
        let policy: ProjectPolicy = toml::from_str(&text).map_err(|e| {
            format!("rein.toml is not valid: {e}. A project may only add [[deny]] rules (and list [packs]); allow rules live in rein's home and only a person adds them")
        })?;
        for rule in &policy.deny {
            rule.check().map_err(|e| format!("rein.toml: {e}"))?;
        }
        Ok(policy)
    }

    pub fn denies(&self, subject: &Subject) -> Option<&Rule> {
        self.deny.iter().find(|rule| rule.matches(subject))
    }
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
    fn program_rules_match_an_argument_prefix_with_globs() {
        let rule = spawn_rule("hdc", &["install", "-r", "*.hap"]);
        let yes = args("install -r entry/build/entry-default-signed.hap");
        assert!(rule.matches(&Subject::Spawn { program: "hdc", args: &yes }));
        let no = args("install -r notes.txt");
        assert!(!rule.matches(&Subject::Spawn { program: "hdc", args: &no }));
        assert!(!rule.matches(&Subject::Spawn { program: "ohpm", args: &yes }));
        let short = args("install");
        assert!(!rule.matches(&Subject::Spawn { program: "hdc", args: &short }));
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
    fn project_rein_toml_may_only_deny() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("rein.toml"), "[[deny]]\nprogram = \"hdc\"\nargs = [\"uninstall\"]\n").unwrap();
        let policy = ProjectPolicy::load(dir.path()).unwrap();
        let a = args("uninstall com.x");
        assert!(policy.denies(&Subject::Spawn { program: "hdc", args: &a }).is_some());
        std::fs::write(dir.path().join("rein.toml"), "[[rule]]\nprogram = \"hdc\"\n").unwrap();
        assert!(ProjectPolicy::load(dir.path()).unwrap_err().contains("may only add [[deny]]"));
        std::fs::write(dir.path().join("rein.toml"), "[[allow]]\nprogram = \"hdc\"\n").unwrap();
        assert!(ProjectPolicy::load(dir.path()).is_err());
    }

    #[test]
    fn rule_files_round_trip() {
        let file = RuleFile { rules: vec![spawn_rule("hdc", &["install", "-r", "*.hap"])] };
        let back: RuleFile = toml::from_str(&file.to_toml()).unwrap();
        assert_eq!(back, file);
        assert_eq!(file.rules[0].grant_command(), "rein approvals grant hdc install -r '*.hap'");
    }
}
