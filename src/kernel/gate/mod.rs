//! Turns a policy decision into go or no-go, in two steps the kernel takes in order. First the
//! bounds, which no approval can lift: the project's deny rules and the permissions of every
//! pack acting in the call. Then the decision itself — with the person's rules, this
//! session's grants and finally the approver where it asks. Every outcome names who decided,
//! for the journal.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

pub use rule_file::RuleFile;

use crate::kernel::policy::approver::{Answer, ApprovalRequest, Approver, Asked, Headless};
use crate::kernel::policy::rules::{Rule, RuleError, Subject};
use crate::kernel::policy::{packs, DecidedBy, Decision};
use crate::kernel::{Access, Call, EventKind, KernelError, PathClass};

mod rule_file;

pub struct Gate {
    approver: Arc<dyn Approver>,
    rules_path: PathBuf,
    rules: Mutex<RuleFile>,
    /// The project's deny rules: they may only tighten the policy.
    denies: Vec<Rule>,
    session: Mutex<Vec<Rule>>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate").field("approver", &self.approver.name()).field("rules_path", &self.rules_path).finish()
    }
}

/// A refusal and who made it; the caller knows what was attempted.
#[derive(Debug)]
pub struct Refusal {
    pub by: DecidedBy,
    pub kind: RefusalKind,
}

#[derive(Debug)]
pub enum RefusalKind {
    /// Nobody allowed it; `grant` is the command a person could run (None: only a prompt can).
    NotApproved {
        grant: Option<String>,
        /// Only a person answers it: `--yes` would not.
        person_only: bool,
    },
    Denied(String),
}

impl Gate {
    pub fn new(approver: Arc<dyn Approver>, rules_path: PathBuf, rules: RuleFile, denies: Vec<Rule>) -> Gate {
        Gate { approver, rules_path, rules: Mutex::new(rules), denies, session: Mutex::new(Vec::new()) }
    }

    /// A gate with nobody to ask and no rules: every `Ask` is refused.
    pub fn headless() -> Gate {
        Gate::new(Arc::new(Headless), PathBuf::new(), RuleFile::default(), Vec::new())
    }

    /// The refusals no approval can lift: a project deny rule, or a pack acting in `call` that
    /// did not declare the command (`shown` is the command line as people may see it).
    pub fn bounds(&self, call: &Call, subject: &Subject, shown: &str) -> Result<(), Refusal> {
        let refused = self.bounding(call, subject, shown);
        if let Err(refusal) = &refused {
            call.emit(|| EventKind::ApprovalAnswered {
                what: call.secrets().scrub(shown),
                allowed: false,
                by: refusal.by.clone(),
                person: false,
            });
        }
        refused
    }

    fn bounding(&self, call: &Call, subject: &Subject, shown: &str) -> Result<(), Refusal> {
        if let Some(rule) = self.denies.iter().find(|rule| rule.denies(subject)) {
            let reason = format!("the project's rein.toml denies it ({})", rule.describe());
            return Err(denied(DecidedBy::Project(rule.describe()), reason));
        }
        if let Subject::Spawn { program, args } = subject {
            if let Some(pack) = packs::refusing(&call.packs(), program, args) {
                let reason = format!(
                    "pack {} did not declare permission to run `{shown}`; add it to the pack's permissions (a person reviews them at `rein pack add`)",
                    pack.name
                );
                return Err(denied(DecidedBy::Pack(pack.name.clone()), reason));
            }
        }
        Ok(())
    }

    /// How the journal names the approver asked when a call brings none of its own.
    #[cfg(feature = "mcp")]
    pub(crate) fn approver_name(&self) -> &'static str {
        self.approver.name()
    }

    /// The policy's decision, with the person's rules, this session's grants and the approver
    /// where it asks. Call [`Gate::bounds`] first. `call` hears the question, when the policy
    /// has one, and who answered it.
    pub fn settle(
        &self,
        call: &Call,
        decision: Decision,
        subject: &Subject,
        request: ApprovalRequest,
    ) -> Result<DecidedBy, Refusal> {
        let asks = !matches!(decision, Decision::Allow | Decision::Deny(_));
        if asks {
            let who = match decision {
                Decision::AskPerson => Asked::Person,
                Decision::AskPersonAtTerminal => Asked::PersonAtTerminal,
                _ => request.who,
            };
            call.emit(|| EventKind::ApprovalAsked {
                what: call.secrets().scrub(&request.what),
                why: request.why.clone(),
                who,
            });
        }
        let what = call.secrets().scrub(&request.what);
        let approver = call.approver().unwrap_or(&self.approver).as_ref();
        let settled = self.settled(approver, decision, subject, request);
        if asks {
            let (allowed, by) = match &settled {
                Ok(by) => (true, by.clone()),
                Err(refusal) => (false, refusal.by.clone()),
            };
            let person = matches!(by, DecidedBy::Approver(_)) && approver.is_person();
            call.emit(|| EventKind::ApprovalAnswered { what, allowed, by, person });
        }
        settled
    }

    fn settled(
        &self,
        approver: &dyn Approver,
        decision: Decision,
        subject: &Subject,
        request: ApprovalRequest,
    ) -> Result<DecidedBy, Refusal> {
        match decision {
            Decision::Allow => Ok(DecidedBy::Policy),
            Decision::Deny(reason) => Err(denied(DecidedBy::Policy, reason)),
            Decision::DenyUnlessRule(reason) => match lock(&self.rules).find(subject) {
                Some(rule) => Ok(DecidedBy::Rule(rule.describe())),
                None => {
                    let grant = request.rule.as_ref().map(Rule::grant_command).unwrap_or_default();
                    Err(denied(DecidedBy::Policy, format!("{reason}; a person can allow it with `{grant}`")))
                }
            },
            Decision::AskPerson => self.ask(approver, &ApprovalRequest { who: Asked::Person, rule: None, ..request }),
            Decision::AskPersonAtTerminal => {
                self.ask(approver, &ApprovalRequest { who: Asked::PersonAtTerminal, rule: None, ..request })
            }
            Decision::Ask => {
                if let Some(rule) = lock(&self.rules).find(subject) {
                    return Ok(DecidedBy::Rule(rule.describe()));
                }
                if lock(&self.session).iter().any(|rule| rule.matches(subject)) {
                    return Ok(DecidedBy::Session);
                }
                self.ask(approver, &request)
            }
        }
    }

    fn ask(&self, approver: &dyn Approver, request: &ApprovalRequest) -> Result<DecidedBy, Refusal> {
        let by = DecidedBy::Approver(approver.name().to_string());
        match approver.answer(request) {
            Answer::Once => Ok(by),
            Answer::Session => {
                lock(&self.session).extend(request.rule.clone());
                Ok(by)
            }
            Answer::Persist => {
                // Only a person at the prompt can choose this; it is their write to home.
                if let Some(rule) = &request.rule {
                    self.persist(rule.clone()).map_err(|err| denied(by.clone(), err.to_string()))?;
                }
                Ok(by)
            }
            Answer::Refused => Err(denied(by, "a person said no".into())),
            Answer::No if approver.is_person() => Err(denied(by, "a person said no".into())),
            Answer::No => {
                // A question only a person answers offers a rule only where a person's rule may
                // allow it (a kept start; `Decision::AskPerson` asks with none).
                let grant = match request.who {
                    Asked::Anyone | Asked::Person => request.rule.as_ref().map(Rule::grant_command),
                    Asked::PersonAtTerminal => None,
                };
                let person_only = request.who != Asked::Anyone;
                Err(Refusal { by, kind: RefusalKind::NotApproved { grant, person_only } })
            }
        }
    }

    fn persist(&self, rule: Rule) -> Result<(), RuleError> {
        let mut rules = lock(&self.rules);
        rules.rules.push(rule);
        rules.save(&self.rules_path)
    }
}

fn denied(by: DecidedBy, reason: String) -> Refusal {
    Refusal { by, kind: RefusalKind::Denied(reason) }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

impl Refusal {
    pub fn into_file_error(self, path: String, access: Access, class: PathClass) -> KernelError {
        match self.kind {
            RefusalKind::NotApproved { grant, .. } => KernelError::ApprovalRequired { path, access, class, grant },
            RefusalKind::Denied(reason) => {
                KernelError::ApprovalDenied { command: format!("{} {path}", access.verb()), reason }
            }
        }
    }

    pub fn into_spawn_error(self, command: String, why: String) -> KernelError {
        match self.kind {
            RefusalKind::NotApproved { grant, person_only } => {
                KernelError::SpawnApprovalRequired { command, why, grant, person_only }
            }
            RefusalKind::Denied(reason) => KernelError::ApprovalDenied { command, reason },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::{Actor, PackGrant};

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn an_acting_pack_bounds_even_what_the_policy_allows() {
        let gate = Gate::headless();
        let kit = Some(Arc::new(PackGrant::new("kit", &["hvigorw".into()])));
        let call = Call::new().acting_as(Actor::new("kit.probe", kit));
        let a = args("list targets");
        let subject = Subject::Spawn { program: "hdc", args: &a };
        let refusal = gate.bounds(&call, &subject, "hdc list targets").unwrap_err();
        assert_eq!(refusal.by, DecidedBy::Pack("kit".into()));
        assert!(gate.bounds(&Call::new(), &subject, "hdc list targets").is_ok());
    }

    #[test]
    fn a_project_deny_rule_wins_over_everything() {
        let deny = Rule { program: Some("hdc".into()), args: vec!["list".into()], path: None, access: None };
        let gate = Gate::new(Arc::new(Headless), PathBuf::new(), RuleFile::default(), vec![deny]);
        let a = args("list targets");
        let subject = Subject::Spawn { program: "hdc", args: &a };
        let refusal = gate.bounds(&Call::new(), &subject, "hdc list targets").unwrap_err();
        assert_eq!(refusal.by, DecidedBy::Project("hdc list".into()));
        let request = ApprovalRequest {
            what: "hdc list targets".into(),
            why: String::new(),
            context: Vec::new(),
            who: Asked::Anyone,
            rule: None,
        };
        assert_eq!(gate.settle(&Call::new(), Decision::Allow, &subject, request).unwrap(), DecidedBy::Policy);
    }
}
