//! Turns a policy decision into go or no-go: the project's deny rules first, then the
//! person's rules, this session's grants, and finally the approver.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde::Serialize;

use super::approver::{Answer, ApprovalRequest, Approver, Headless};
use super::rules::{ProjectPolicy, Rule, RuleFile, Subject};
use super::Decision;
use crate::kernel::error::KernelError;

/// Who let an action through, for the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    Policy,
    Rule(String),
    Session,
    Approver(String),
}

pub struct Gate {
    approver: Arc<dyn Approver>,
    rules_path: PathBuf,
    rules: Mutex<RuleFile>,
    project: ProjectPolicy,
    session: Mutex<Vec<Rule>>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate").field("approver", &self.approver.name()).field("rules_path", &self.rules_path).finish()
    }
}

/// How a refusal is reported; the caller knows what was attempted.
pub enum Refusal {
    /// Nobody allowed it; `grant` is the command a person could run (None: only a prompt can).
    NotApproved {
        grant: Option<String>,
    },
    Denied(String),
}

impl Gate {
    pub fn new(approver: Arc<dyn Approver>, rules_path: PathBuf, rules: RuleFile, project: ProjectPolicy) -> Gate {
        Gate { approver, rules_path, rules: Mutex::new(rules), project, session: Mutex::new(Vec::new()) }
    }

    /// A gate with nobody to ask and no rules: every `Ask` is refused.
    pub fn headless() -> Gate {
        Gate::new(Arc::new(Headless), PathBuf::new(), RuleFile::default(), ProjectPolicy::default())
    }

    pub fn settle(
        &self,
        decision: Decision,
        subject: &Subject,
        request: ApprovalRequest,
    ) -> Result<DecidedBy, Refusal> {
        if let Some(rule) = self.project.denies(subject) {
            return Err(Refusal::Denied(format!("the project's rein.toml denies it ({})", describe(rule))));
        }
        match decision {
            Decision::Allow => Ok(DecidedBy::Policy),
            Decision::Deny(reason) => Err(Refusal::Denied(reason)),
            Decision::DenyUnlessRule(reason) => match lock(&self.rules).find(subject) {
                Some(rule) => Ok(DecidedBy::Rule(describe(rule))),
                None => Err(Refusal::Denied(format!(
                    "{reason}; a person can allow it with `{}`",
                    request.rule.as_ref().map(Rule::grant_command).unwrap_or_default()
                ))),
            },
            Decision::AskHuman => self.ask(&ApprovalRequest { human_only: true, rule: None, ..request }),
            Decision::Ask => {
                if let Some(rule) = lock(&self.rules).find(subject) {
                    return Ok(DecidedBy::Rule(describe(rule)));
                }
                if lock(&self.session).iter().any(|rule| rule.matches(subject)) {
                    return Ok(DecidedBy::Session);
                }
                self.ask(&request)
            }
        }
    }

    fn ask(&self, request: &ApprovalRequest) -> Result<DecidedBy, Refusal> {
        let by = DecidedBy::Approver(self.approver.name().to_string());
        match self.approver.answer(request) {
            Answer::Once => Ok(by),
            Answer::Session => {
                lock(&self.session).extend(request.rule.clone());
                Ok(by)
            }
            Answer::Persist => {
                // Only a person at the prompt can choose this; it is their write to home.
                if let Some(rule) = &request.rule {
                    self.persist(rule.clone()).map_err(Refusal::Denied)?;
                }
                Ok(by)
            }
            Answer::No if self.approver.is_person() => Err(Refusal::Denied("a person said no".into())),
            Answer::No => {
                let grant = if request.human_only { None } else { request.rule.as_ref().map(Rule::grant_command) };
                Err(Refusal::NotApproved { grant })
            }
        }
    }

    fn persist(&self, rule: Rule) -> Result<(), String> {
        let mut rules = lock(&self.rules);
        rules.rules.push(rule);
        save_rules(&self.rules_path, &rules)
    }
}

/// Writes home approvals.toml atomically (rein's own file; callers have a person's consent).
pub fn save_rules(path: &std::path::Path, rules: &RuleFile) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let text = format!("# Rules a person granted with `rein approvals grant`. rein never writes this\n# file without a person's yes.\n{}", rules.to_toml());
    crate::kernel::write::write_atomic(path, &path.display().to_string(), text.as_bytes())
        .map(drop)
        .map_err(|e| e.to_string())
}

fn describe(rule: &Rule) -> String {
    rule.grant_command().trim_start_matches("rein approvals grant ").to_string()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Refusal {
    pub fn into_file_error(
        self,
        path: String,
        access: crate::kernel::Access,
        class: crate::kernel::PathClass,
    ) -> KernelError {
        match self {
            Refusal::NotApproved { grant } => KernelError::ApprovalRequired { path, access, class, grant },
            Refusal::Denied(reason) => {
                KernelError::ApprovalDenied { command: format!("{access:?} {path}").to_lowercase(), reason }
            }
        }
    }

    pub fn into_spawn_error(self, command: String, why: String) -> KernelError {
        match self {
            Refusal::NotApproved { grant } => KernelError::SpawnApprovalRequired { command, why, grant },
            Refusal::Denied(reason) => KernelError::ApprovalDenied { command, reason },
        }
    }
}
