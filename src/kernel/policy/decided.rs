//! Who decided: the name every outcome of the policy carries, for the journal and the events.

use serde::{Deserialize, Serialize};

/// Who let an action through, or who refused it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// The built-in policy, without asking anyone.
    Policy,
    /// A rule a person made (home approvals.toml).
    Rule(String),
    /// A deny rule of the project's rein.toml.
    Project(String),
    /// A pack acting in the call did not declare the command.
    Pack(String),
    /// What a tool acting in the call declared about itself (`read_only`, `destructive =
    /// false`), held by the kernel: the tool's name.
    Annotation(String),
    /// A grant "for this session" made earlier.
    Session,
    /// The approver that answered.
    Approver(String),
}
