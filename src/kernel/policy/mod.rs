//! The approval policy: pure functions from a side effect to Allow / Ask / Deny, one file per
//! kind of side effect, each tested as a table of cases; the rules people made; what packs
//! declared they may run; and the gate, which turns all of that into go or no-go, asking an
//! approver where the policy asks.

pub mod approver;
pub mod confinement;
pub mod controls;
mod files;
pub mod gate;
mod git;
mod hdc;
pub mod hdc_servers;
mod hdc_shell;
mod hvigor;
mod ohpm;
pub mod packs;
mod programs;
pub mod rules;
mod shapes;
mod shell_words;
mod sign;
#[cfg(test)]
mod table;
#[cfg(test)]
mod table_cases;
mod values;

pub use approver::{Answer, ApprovalRequest, Approver, Asked, AssumeYes, Headless};
pub use files::decide_file;
pub use gate::{DecidedBy, Gate};
pub use hdc::server_option as hdc_server_option;
pub use hdc::{device_of, DeviceOf};
pub use hdc_servers::HdcServers;
pub use programs::{decide_spawn, Program};
pub use rules::{Rule, RuleFile, Subject};

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
