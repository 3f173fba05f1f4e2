//! File access: the workspace is the agent's; home holds rein's own permissions.

use super::Decision;
use crate::kernel::{Access, PathClass};

pub fn decide_file(access: Access, class: PathClass) -> Decision {
    match (access, class) {
        (_, PathClass::Workspace) => Decision::Allow,
        (Access::Read, PathClass::Protected | PathClass::Home) => Decision::Allow,
        (Access::Write, PathClass::Protected) => Decision::Ask,
        (Access::Write, PathClass::Home) => Decision::AskHuman,
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
            (Write, Protected, Ask),
            (Read, Home, Allow),
            (Write, Home, AskHuman),
            (Read, Outside, Ask),
            (Write, Outside, Ask),
        ];
        for (access, class, expected) in cases {
            assert_eq!(decide_file(access, class), expected, "{access:?} {class:?}");
        }
    }
}
