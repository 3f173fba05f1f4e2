//! File access: the workspace is the agent's; `.git/`, `.rein/` and the project's policy files
//! (rein.toml, rein.lock) change only with a person's yes; home holds rein's own permissions,
//! which only a person at rein's terminal changes.

use super::Decision;
use crate::kernel::{Access, PathClass};

pub fn decide_file(access: Access, class: PathClass) -> Decision {
    match (access, class) {
        (_, PathClass::Workspace) => Decision::Allow,
        (Access::Read, PathClass::Protected | PathClass::Policy | PathClass::Home) => Decision::Allow,
        (Access::Write, PathClass::Protected | PathClass::Policy) => Decision::AskPerson,
        (Access::Write, PathClass::Home) => Decision::AskPersonAtTerminal,
        (_, PathClass::Outside) => Decision::Ask,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_policy_table() {
        use Access::*;
        use Decision::*;
        use PathClass::*;
        let cases = [
            (Read, Workspace, Allow),
            (Write, Workspace, Allow),
            (Read, Protected, Allow),
            (Write, Protected, AskPerson),
            (Read, Policy, Allow),
            (Write, Policy, AskPerson),
            (Read, Home, Allow),
            (Write, Home, AskPersonAtTerminal),
            (Read, Outside, Ask),
            (Write, Outside, Ask),
        ];
        for (access, class, expected) in cases {
            assert_eq!(decide_file(access, class), expected, "{access:?} {class:?}");
        }
    }
}
