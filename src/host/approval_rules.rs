//! The rules a person made, in rein's home (`approvals.toml`): each lets agents do something
//! the policy would otherwise ask about, so granting and revoking are a person's acts.

use std::path::{Path, PathBuf};

use crate::error::{Code, Failure};
use crate::kernel::gate::RuleFile;
use crate::kernel::policy::rules::APPROVALS_FILE;
use crate::kernel::policy::Rule;
use crate::kernel::Access;
use crate::visible::shown_path;

/// The approval rules of a rein home. Show a rule to a person (its
/// [`Rule::describe`]) and call [`ApprovalRules::grant`] or [`ApprovalRules::revoke`] only
/// with their yes, never on an agent's behalf.
#[derive(Debug, Clone)]
pub struct ApprovalRules {
    home: PathBuf,
}

impl ApprovalRules {
    /// The rules of the rein home `home` (see [`default_home`](crate::default_home)).
    pub fn of_home(home: impl Into<PathBuf>) -> ApprovalRules {
        ApprovalRules { home: home.into() }
    }

    /// The file they live in: `<home>/approvals.toml`.
    pub fn path(&self) -> PathBuf {
        self.home.join(APPROVALS_FILE)
    }

    /// Every rule, in the order they were granted (`rein approvals list` numbers them from 1).
    pub fn list(&self) -> Result<Vec<Rule>, Failure> {
        Ok(self.load()?.rules)
    }

    /// Whether `rule` may be granted: a well-formed rule that never lets anything write rein's
    /// home. Check it before asking the person.
    pub fn check(&self, rule: &Rule) -> Result<(), Failure> {
        rule.check().map_err(|e| Failure::new(Code::InvalidArgs, e.to_string()))?;
        refuse_home_writes(&self.home, rule)
    }

    /// Adds `rule` (checked again); the rules after it.
    pub fn grant(&self, rule: Rule) -> Result<Vec<Rule>, Failure> {
        self.check(&rule)?;
        let mut rules = self.load()?;
        rules.rules.push(rule);
        self.save(&rules)?;
        Ok(rules.rules)
    }

    /// Removes `rule` (the first rule equal to it); the rules after it. A rule that is not
    /// there (the file changed since it was listed) is refused and nothing changes.
    pub fn revoke(&self, rule: &Rule) -> Result<Vec<Rule>, Failure> {
        let mut rules = self.load()?;
        let Some(index) = rules.rules.iter().position(|r| r == rule) else {
            return Err(Failure::new(
                Code::InvalidArgs,
                format!("there is no rule `{}` any more; `rein approvals list` shows the rules", rule.describe()),
            ));
        };
        rules.rules.remove(index);
        self.save(&rules)?;
        Ok(rules.rules)
    }

    fn load(&self) -> Result<RuleFile, Failure> {
        RuleFile::load(&self.path()).map_err(|e| Failure::new(Code::InvalidConfig, e.to_string()))
    }

    fn save(&self, rules: &RuleFile) -> Result<(), Failure> {
        rules.save(&self.path()).map_err(|e| Failure::new(Code::IoError, e.to_string()))
    }
}

/// No rule may let anything write rein's home: that is where permissions live.
fn refuse_home_writes(home: &Path, rule: &Rule) -> Result<(), Failure> {
    let Some(glob) = &rule.path else { return Ok(()) };
    if rule.access == Some(Access::Read) {
        return Ok(());
    }
    let home_text = shown_path(std::fs::canonicalize(home).unwrap_or_else(|_| home.to_path_buf()));
    let pattern = glob::Pattern::new(glob).map_err(|e| Failure::new(Code::InvalidArgs, e.to_string()))?;
    let covers_home = pattern.matches(&home_text)
        || pattern.matches(&format!("{home_text}/approvals.toml"))
        || home_text.starts_with(glob.trim_end_matches(['*', '/', '\\']));
    if covers_home {
        return Err(Failure::new(
            Code::ApprovalDenied,
            format!("a rule may never allow writing rein's home ({home_text}); use --access read, or a narrower path"),
        ));
    }
    Ok(())
}
