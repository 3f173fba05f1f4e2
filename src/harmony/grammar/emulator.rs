//! DevEco's `Emulator` command lines (shared/HARMONY-VERIFY.md §6: the documented `-imageList`
//! [DOC HWEMU]; `-list`, `-list -details`, `-start`, `-stop` as measured on Emulator 6.1.1.200
//! [OBS ARG]). Listing reads; stopping an instance asks (it ends what a person may be using);
//! creating, installing images and every other verb are refused unless a person's rule names
//! them. Flags are matched as written here (the tool ignores case since 6.1.0 Beta1, rein
//! does not).

use super::values::Kind;
use super::values::{Part, Shape};
use crate::kernel::policy::shapes::{self, Effect, Verdict};
use crate::kernel::policy::Decision;

const SHAPES: &[Shape] = &[
    Shape { parts: &[Part::Word("-list")], verdict: Verdict::Allow, effect: Effect::Reads },
    Shape { parts: &[Part::Word("-list"), Part::Word("-details")], verdict: Verdict::Allow, effect: Effect::Reads },
    Shape {
        parts: &[
            Part::Word("-imageList"),
            Part::Word("-deviceType"),
            Part::Value(Kind::Name),
            Part::Word("-downloaded"),
            Part::Word("true"),
        ],
        verdict: Verdict::Allow,
        effect: Effect::Reads,
    },
    Shape { parts: &[Part::Word("-stop"), Part::Value(Kind::Name)], verdict: Verdict::Ask, effect: Effect::Replaces },
];

/// The one command line rein keeps running past its call (`kernel::process::kept`): `-start
/// <name>`, a long-running supervisor that must outlive its launcher (§6 "Start"). Run as a
/// program of a call it stays refused unless a rule names it: the call's end would kill it.
const KEPT: &[Shape] =
    &[Shape { parts: &[Part::Word("-start"), Part::Value(Kind::Name)], verdict: Verdict::Ask, effect: Effect::Adds }];

/// Whether `args` is a command line rein may keep running (always with a person's yes).
pub fn may_keep(args: &[String]) -> bool {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    shapes::find(KEPT, &words).is_some()
}

/// The instance's own stop for a kept `-start <name>`: `-stop <name>`.
pub fn kept_stop(args: &[String]) -> Option<Vec<String>> {
    match args {
        [start, name] if may_keep(args) && start == "-start" => Some(vec!["-stop".to_string(), name.clone()]),
        _ => None,
    }
}

pub fn decide(args: &[String]) -> Decision {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match shapes::find(SHAPES, &words) {
        Some((shape, _)) if shape.verdict == Verdict::Allow => Decision::Allow,
        Some(_) => Decision::Ask,
        None if words.is_empty() => Decision::Deny("Emulator without a command".into()),
        None => Decision::DenyUnlessRule(format!("Emulator `{}` is not a command rein knows", words.join(" "))),
    }
}

/// What the command does, as its shape declares; one outside the table may do anything.
pub fn effect(args: &[String]) -> Effect {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    shapes::find(SHAPES, &words)
        .or_else(|| shapes::find(KEPT, &words))
        .map_or(Effect::Replaces, |(shape, _)| shape.effect)
}

/// What the table allows or asks about, for README.
#[cfg(test)]
pub fn documented() -> Vec<(String, Verdict)> {
    SHAPES.iter().map(|s| (format!("emulator {}", s.render()), s.verdict)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harmony::grammar::table_cases::{label, words};

    #[test]
    fn emulator_policy_table() {
        let verdict = |line: &str| label(&decide(&words(line)));
        let cases = [
            ("-list", "allow"),
            ("-list -details", "allow"),
            ("-imageList -deviceType phone -downloaded true", "allow"),
            ("-imageList -deviceType phone -downloaded false", "rule"),
            ("-stop Mate60", "ask"),
            ("-stop -path", "rule"),
            ("-start Mate60", "rule"),
            ("-create x -deviceType phone", "rule"),
            ("-install x", "rule"),
            ("-stop ../x", "rule"),
            ("", "deny"),
        ];
        for (line, expected) in cases {
            assert_eq!(verdict(line), expected, "Emulator {line}");
        }
    }

    #[test]
    fn only_start_of_one_named_instance_is_kept_and_its_stop_is_stop() {
        assert!(may_keep(&words("-start Mate60")));
        assert_eq!(kept_stop(&words("-start Mate60")), Some(words("-stop Mate60")));
        for line in
            ["-start", "-start ../x", "-start Mate60 -bootmode coldboot", "-list", "-stop Mate60", "-start -list"]
        {
            assert!(!may_keep(&words(line)), "Emulator {line}");
            assert_eq!(kept_stop(&words(line)), None, "Emulator {line}");
        }
        // One word, shown as it runs: no space, line break, path, option or endless name.
        let long = "M".repeat(129);
        for name in ["Mate 60", "Mate60\n-stop", "Mate60\r", "..", "/tmp/x", "a/b", "-path", "Mate60\u{200b}", &long] {
            let line = vec!["-start".to_string(), name.to_string()];
            assert!(!may_keep(&line), "Emulator -start {name:?}");
        }
        assert!(may_keep(&["-start".to_string(), "M".repeat(128)]));
    }
}
