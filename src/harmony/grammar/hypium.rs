//! The values `aa test` passes to Hypium as `-s <key> <value>`, by Hypium's own rules
//! (`openharmony/testfwk_arkxtest` `jsunit/src/module/config/configService.js`; shared/
//! HARMONY-VERIFY.md §1.1): a value Hypium would refuse is not one rein passes unasked.

/// `-s class` / `-s notClass`: `suite` or `suite#test`, comma-separated, each matching
/// `^[A-Za-z]{1}[\w#,.]*$`.
pub fn classes(value: &str) -> bool {
    value.len() <= 1024
        && value.split(',').all(|entry| {
            let mut chars = entry.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                && chars.all(|c| c.is_ascii_alphanumeric() || "_#.".contains(c))
        })
}

/// `-s itName`: test names, comma-separated (rein's rule: the characters of an identifier and
/// `.`, `-`, so the value stays one plain word).
pub fn test_names(value: &str) -> bool {
    value.len() <= 1024
        && value
            .split(',')
            .all(|name| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c)))
}

/// `-s level`: 0 to 4.
pub fn level(value: &str) -> bool {
    ["0", "1", "2", "3", "4"].contains(&value)
}

/// `-s size`.
pub fn size(value: &str) -> bool {
    ["small", "medium", "large"].contains(&value)
}

/// Hypium's test types, the values of `-s testType` (configService.js). The device_test tool's
/// schema offers the same list (`prelude/harmony/hypium.lua`; the unit test below holds the two
/// together). The fake device keeps its own copy on purpose: it stands for Hypium, a witness
/// independent of rein's.
pub const TEST_TYPES: &[&str] = &[
    "function",
    "performance",
    "power",
    "reliability",
    "security",
    "global",
    "compatibility",
    "user",
    "standard",
    "safety",
    "resilience",
];

/// `-s testType`.
pub fn test_type(value: &str) -> bool {
    TEST_TYPES.contains(&value)
}

/// `-s dryRun` and the other switches.
pub fn switch(value: &str) -> bool {
    value == "true" || value == "false"
}

/// `-s unittest <runner>`: the runner's name (`OpenHarmonyTestRunner`), or the path xdevice
/// passes for an esmodule build (`/ets/testrunner/OpenHarmonyTestRunner`).
pub fn runner(value: &str) -> bool {
    let name = value.strip_prefix("/ets/testrunner/").unwrap_or(value);
    name.len() <= 128
        && name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `-m <module>_test`: the test module DevEco names after its module.
pub fn test_module(value: &str) -> bool {
    value.strip_suffix("_test").is_some_and(|module| {
        !module.is_empty()
            && module.len() <= 128
            && module.chars().all(|c| c.is_ascii_alphanumeric() || "_-".contains(c))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tool_schema_offers_the_test_types_the_policy_accepts() {
        let lua = include_str!("../../../prelude/harmony/hypium.lua");
        let start = lua.find("local TEST_TYPES = {").expect("hypium.lua has TEST_TYPES");
        let list = &lua[start..start + lua[start..].find('}').unwrap()];
        let listed: Vec<&str> = list.split('"').skip(1).step_by(2).collect();
        assert_eq!(listed, TEST_TYPES);
    }

    #[test]
    fn hypiums_values_follow_its_rules() {
        assert!(classes("ActsAbilityTest") && classes("describeTest_000#testIt_00,describeTest_001"));
        assert!(classes("outer.inner#it"));
        assert!(!classes("1Suite") && !classes("a b") && !classes("a;reboot") && !classes("") && !classes("a,"));
        assert!(test_names("assertContain,other-case") && !test_names("a b") && !test_names("a,,b"));
        assert!(level("0") && level("4") && !level("5") && !level("01"));
        assert!(size("medium") && !size("huge"));
        assert!(test_type("function") && !test_type("Function"));
        assert!(switch("true") && !switch("1"));
        assert!(runner("OpenHarmonyTestRunner") && runner("/ets/testrunner/OpenHarmonyTestRunner"));
        assert!(!runner("/data/local/tmp/x") && !runner("../Runner") && !runner("-D"));
        assert!(test_module("entry_test") && test_module("my-lib_test"));
        assert!(!test_module("entry") && !test_module("_test") && !test_module("a b_test"));
    }
}
