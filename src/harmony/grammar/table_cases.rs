//! What the policy table tests share: a case's words, and its decision as a one-word label.

use crate::kernel::policy::Decision;

/// `line` split into argv the way the cases are written (no quoting).
pub fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

pub fn label(decision: &Decision) -> &'static str {
    match decision {
        Decision::Allow => "allow",
        Decision::Ask | Decision::AskPerson | Decision::AskPersonAtTerminal => "ask",
        Decision::Deny(_) => "deny",
        Decision::DenyUnlessRule(_) => "rule",
    }
}
