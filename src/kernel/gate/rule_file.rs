//! The rules a person made, as home approvals.toml stores them: read when rein starts, written
//! when a person grants one. Here, above the policy, because reading and writing them goes
//! through the kernel's own file operations (`files`), which take a call.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::kernel::files::read::{read_optional_text, Links};
use crate::kernel::files::write;
use crate::kernel::policy::rules::{Rule, RuleError, Subject};
use crate::visible::shown_path;

/// Rules as stored in a TOML file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleFile {
    #[serde(default, rename = "rule", skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<Rule>,
}

impl RuleFile {
    /// Reads `path`; a missing file has no rules.
    pub fn load(path: &Path) -> Result<RuleFile, RuleError> {
        let text = read_optional_text(path, Links::Follow)
            .map_err(|source| RuleError::Read { path: path.to_path_buf(), source })?;
        let Some(text) = text else { return Ok(RuleFile::default()) };
        let file: RuleFile =
            toml::from_str(&text).map_err(|e| RuleError::Invalid { path: path.to_path_buf(), why: e.to_string() })?;
        for rule in &file.rules {
            rule.check().map_err(|e| RuleError::Invalid { path: path.to_path_buf(), why: e.to_string() })?;
        }
        Ok(file)
    }

    /// Writes home approvals.toml atomically (rein's own file; callers have a person's consent).
    pub fn save(&self, path: &Path) -> Result<(), RuleError> {
        let failed = |why: String| RuleError::Write { path: path.to_path_buf(), why };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| failed(e.to_string()))?;
        }
        let text = format!(
            "# Rules a person granted with `rein approvals grant`. rein never writes this\n# file without a person's yes.\n{}",
            toml::to_string(self).unwrap_or_default()
        );
        write::write_atomic(path, &shown_path(path), text.as_bytes()).map(drop).map_err(|e| failed(e.to_string()))
    }

    pub fn find(&self, subject: &Subject) -> Option<&Rule> {
        self.rules.iter().find(|rule| rule.matches(subject))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::Access;

    #[test]
    fn rule_files_round_trip() {
        let file = RuleFile {
            rules: vec![Rule {
                program: Some("hdc".into()),
                args: ["install", "-r", "*.hap"].map(String::from).to_vec(),
                path: None,
                access: None,
            }],
        };
        let back: RuleFile = toml::from_str(&toml::to_string(&file).unwrap()).unwrap();
        assert_eq!(back, file);
        assert_eq!(file.rules[0].grant_command(), "rein approvals grant hdc install -r '*.hap'");
        let star = Rule { program: None, args: vec![], path: Some("/outside/*".into()), access: None };
        let writes = |s: &str| star.matches(&Subject::File { path: Path::new(s), access: Access::Write });
        assert!(writes("/outside/a"));
        assert!(!writes("/outside/.bashrc"), "`*` never matches a dotfile");
        assert!(!writes("/outside/a/b"), "`*` never crosses /");
    }
}
