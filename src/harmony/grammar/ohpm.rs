//! ohpm command lines: installing and updating packages reaches the network and runs package
//! scripts, so it asks; version queries are allowed; anything else is refused unless a
//! person's rule names it.

use super::values::Kind;
use super::values::{Part, Shape};
use crate::kernel::policy::shapes::{self, Effect, Verdict};
use crate::kernel::policy::Decision;

const SHAPES: &[Shape] = &[
    Shape { parts: &[Part::Word("-v")], verdict: Verdict::Allow, effect: Effect::Reads },
    Shape { parts: &[Part::Word("--version")], verdict: Verdict::Allow, effect: Effect::Reads },
    Shape { parts: &[Part::Word("version")], verdict: Verdict::Allow, effect: Effect::Reads },
    Shape { parts: &[Part::Word("install")], verdict: Verdict::Ask, effect: Effect::Replaces },
    Shape {
        parts: &[Part::Word("install"), Part::Values(Kind::Package)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape { parts: &[Part::Word("update")], verdict: Verdict::Ask, effect: Effect::Replaces },
    Shape {
        parts: &[Part::Word("update"), Part::Values(Kind::Package)],
        verdict: Verdict::Ask,
        effect: Effect::Replaces,
    },
    Shape { parts: &[Part::Word("ping")], verdict: Verdict::Ask, effect: Effect::Reads },
];

pub fn decide(args: &[String]) -> Decision {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match shapes::find(SHAPES, &words) {
        Some((shape, _)) if shape.verdict == Verdict::Allow => Decision::Allow,
        Some(_) => Decision::Ask,
        None if words.is_empty() => Decision::Deny("ohpm without a command".into()),
        None => Decision::DenyUnlessRule(format!("ohpm `{}` is not a command rein knows", words.join(" "))),
    }
}

/// What the command does, as its shape declares; a command outside the table (a person's rule
/// ran it) may do anything.
pub fn effect(args: &[String]) -> Effect {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    shapes::find(SHAPES, &words).map_or(Effect::Replaces, |(shape, _)| shape.effect)
}

/// What the table allows or asks about, for the approval table in docs/src/approvals.md.
#[cfg(test)]
pub fn documented() -> Vec<(String, Verdict)> {
    SHAPES.iter().map(|s| (format!("ohpm {}", s.render()), s.verdict)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harmony::grammar::table_cases::{label, words};

    #[test]
    fn ohpm_policy_table() {
        let verdict = |line: &str| label(&decide(&words(line)));
        let cases = [
            ("install", "ask"),
            ("install @ohos/axios", "ask"),
            ("install @ohos/axios@2.2.0 @ohos/lottie", "ask"),
            ("update", "ask"),
            ("-v", "allow"),
            ("publish", "rule"),
            ("install --registry https://evil.example/", "rule"),
            ("install ../../outside.har", "rule"),
            ("config set registry https://evil.example/", "rule"),
            ("run postinstall", "rule"),
            ("", "deny"),
        ];
        for (line, expected) in cases {
            assert_eq!(verdict(line), expected, "ohpm {line}");
        }
    }
}
