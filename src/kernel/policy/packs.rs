//! What a pack may run: the `permissions` its manifest declares (a program and leading
//! arguments, e.g. "hdc install"), checked for every pack acting in a call — also when a pack
//! tool calls a built-in one — on top of the policy, never instead of it.

use super::rules::CommandPattern;

/// A pack whose code is acting, and what its manifest says it may run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackGrant {
    pub name: String,
    pub permissions: Vec<CommandPattern>,
}

impl PackGrant {
    /// `declared` as written in pack.toml: "hdc install", "hvigorw".
    pub fn new(name: impl Into<String>, declared: &[String]) -> PackGrant {
        PackGrant {
            name: name.into(),
            permissions: declared.iter().filter_map(|d| CommandPattern::literal(d)).collect(),
        }
    }

    pub fn permits(&self, program: &str, args: &[String]) -> bool {
        self.permissions.iter().any(|p| p.matches_prefix(program, args))
    }
}

/// The first of `packs` that did not declare `program args`.
pub fn refusing<'a>(packs: &[&'a PackGrant], program: &str, args: &[String]) -> Option<&'a PackGrant> {
    packs.iter().copied().find(|pack| !pack.permits(program, args))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn permissions_are_program_and_argument_prefixes() {
        let kit = PackGrant::new("kit", &["hdc install".into(), "hvigorw".into()]);
        assert!(kit.permits("hdc", &args("install -r x.hap")));
        assert!(!kit.permits("hdc", &args("uninstall com.x")));
        assert!(kit.permits("hvigorw", &args("assembleHap")));
        assert!(!kit.permits("ohpm", &args("install")));
    }

    #[test]
    fn every_pack_in_the_chain_must_allow_it() {
        let kit = PackGrant::new("kit", &["hdc".into()]);
        let lab = PackGrant::new("lab", &["hdc install".into()]);
        assert_eq!(refusing(&[&kit, &lab], "hdc", &args("install x.hap")), None);
        assert_eq!(refusing(&[&kit, &lab], "hdc", &args("shell ls")).map(|p| p.name.as_str()), Some("lab"));
        assert_eq!(refusing(&[], "hdc", &args("shell ls")), None);
    }
}
