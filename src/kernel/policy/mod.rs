//! The approval policy engine: the decision for files (`files`), command shapes a toolchain's
//! grammars are written in (`shapes`; the grammars themselves are the toolchain profile's,
//! `crate::harmony::grammar`), the rules people made, what packs declared they may run, what a
//! tool's annotations bind it to, what is refused before anyone is asked (`controls`), who may
//! answer and who decided. It takes no call and touches no file, so the call and the journal
//! can hold its words: the gate (`kernel::gate`), which turns all of it into go or no-go for a
//! call, asking an approver where the policy asks, sits above.

pub mod annotated;
pub mod approver;
pub mod controls;
mod decided;
mod files;
pub mod packs;
pub mod rules;
pub mod shapes;

pub use annotated::{Bound, Restriction};
pub use approver::{Answer, ApprovalRequest, Approver, Asked, AssumeYes, Headless};
pub use decided::DecidedBy;
pub use files::decide_file;
pub use rules::{Rule, Subject};

/// What the policy says about one side effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow,
    /// A person (or a rule a person made, or `--yes`) may allow it.
    Ask,
    /// Only a person may allow it, once: at rein's terminal prompt or behind an MCP client —
    /// never a rule, never `--yes`.
    AskPerson,
    /// Only a person at rein's own terminal prompt may allow it, once.
    AskPersonAtTerminal,
    /// Refused whoever asks; the reason says why.
    Deny(String),
    /// Refused unless a rule a person made allows it (never `--yes`, never a session grant).
    DenyUnlessRule(String),
}
