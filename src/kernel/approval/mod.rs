//! The approval policy: pure functions from a side effect to Allow / Ask / Deny, one file per
//! kind of side effect, each tested as a table of cases.
//!
//! Until rein can ask a person (an interactive approver), every `Ask` is refused with
//! APPROVAL_REQUIRED: the kernel fails closed.

pub mod approver;
mod files;
pub mod gate;
mod hdc;
mod programs;
pub mod rules;

pub use files::decide_file;
pub use programs::{decide_spawn, Program};

/// What the policy says about one side effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow,
    /// A person (or a rule a person made, or `--yes`) may allow it.
    Ask,
    /// Only a person at an interactive prompt may allow it: never a rule, never `--yes`.
    AskHuman,
    /// Refused whoever asks; the reason says why.
    Deny(String),
    /// Refused unless a rule a person made allows it (never `--yes`, never a session grant).
    DenyUnlessRule(String),
}

impl Decision {
    pub fn is_allowed(&self) -> bool {
        matches!(self, Decision::Allow)
    }
}
