//! hap-sign-tool command lines: signing and verifying, each flag known and typed
//! (`developtools_hapsigner` hapsigntool's help: sign-app, verify-app, sign-profile,
//! verify-profile). Every path is judged by scope: material outside the workspace (keys under
//! `~/.ohos/config/` usually) asks. Anything else is refused unless a person's rule names it.

use crate::kernel::policy::shapes::Effect;
#[cfg(test)]
use crate::kernel::policy::shapes::Verdict;
use crate::kernel::policy::Decision;
use crate::kernel::PathClass;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Value {
    /// A file rein classes by scope.
    Path,
    /// A password or an alias: free text, never a flag.
    Text,
    /// One of a fixed set.
    OneOf(&'static [&'static str]),
}

const SIGN_ALGS: &[&str] = &["SHA256withECDSA", "SHA384withECDSA"];

/// The flags each command takes (all take a value).
fn flags(command: &str) -> Option<&'static [(&'static str, Value)]> {
    const SIGN_APP: &[(&str, Value)] = &[
        ("-mode", Value::OneOf(&["localSign"])),
        ("-keyAlias", Value::Text),
        ("-keyPwd", Value::Text),
        ("-appCertFile", Value::Path),
        ("-profileFile", Value::Path),
        ("-profileSigned", Value::OneOf(&["0", "1"])),
        ("-inFile", Value::Path),
        ("-inForm", Value::OneOf(&["zip", "elf", "bin"])),
        ("-signAlg", Value::OneOf(SIGN_ALGS)),
        ("-keystoreFile", Value::Path),
        ("-keystorePwd", Value::Text),
        ("-outFile", Value::Path),
        ("-signCode", Value::OneOf(&["0", "1"])),
        ("-compatibleVersion", Value::Text),
    ];
    const VERIFY_APP: &[(&str, Value)] = &[
        ("-inFile", Value::Path),
        ("-outCertChain", Value::Path),
        ("-outProfile", Value::Path),
        ("-inForm", Value::OneOf(&["zip", "elf", "bin"])),
    ];
    const SIGN_PROFILE: &[(&str, Value)] = &[
        ("-mode", Value::OneOf(&["localSign"])),
        ("-keyAlias", Value::Text),
        ("-keyPwd", Value::Text),
        ("-profileCertFile", Value::Path),
        ("-inFile", Value::Path),
        ("-signAlg", Value::OneOf(SIGN_ALGS)),
        ("-keystoreFile", Value::Path),
        ("-keystorePwd", Value::Text),
        ("-outFile", Value::Path),
    ];
    const VERIFY_PROFILE: &[(&str, Value)] = &[("-inFile", Value::Path), ("-outFile", Value::Path)];
    match command {
        "sign-app" => Some(SIGN_APP),
        "verify-app" => Some(VERIFY_APP),
        "sign-profile" => Some(SIGN_PROFILE),
        "verify-profile" => Some(VERIFY_PROFILE),
        _ => None,
    }
}

/// Asking hap-sign-tool what it is, alone on the command line: it prints and exits.
const QUERIES: [&str; 6] = ["-v", "-h", "--version", "--help", "help", "version"];

/// What the command does: a query reads; signing or verifying writes its output files, over
/// whatever is there.
pub fn effect(args: &[String]) -> Effect {
    match args {
        [only] if QUERIES.contains(&only.as_str()) => Effect::Reads,
        _ => Effect::Replaces,
    }
}

pub fn decide(args: &[String], classify: &dyn Fn(&str) -> PathClass) -> Decision {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (command, rest) = match args.split_first() {
        Some((query, [])) if QUERIES.contains(query) => return Decision::Allow,
        Some((command, rest)) => (*command, rest),
        None => return Decision::Deny("hap-sign-tool without a command".into()),
    };
    let Some(known) = flags(command) else {
        return refuse(&format!("hap-sign-tool `{command}` is not signing or verifying"));
    };
    let mut asks = false;
    let mut seen = Vec::new();
    let mut iter = rest.iter();
    while let Some(flag) = iter.next() {
        let Some((_, kind)) = known.iter().find(|(f, _)| f == flag) else {
            return refuse(&format!("hap-sign-tool {command} `{flag}` is not a flag rein knows"));
        };
        if seen.contains(flag) {
            return Decision::Deny(format!("hap-sign-tool {command}: {flag} given twice"));
        }
        seen.push(*flag);
        let Some(value) = iter.next() else {
            return Decision::Deny(format!("hap-sign-tool {command}: {flag} needs a value"));
        };
        match kind {
            Value::Text if value.starts_with('-') && !value.is_empty() && value.len() > 1 => {
                return Decision::Deny(format!("hap-sign-tool {command}: the value of {flag} looks like a flag"))
            }
            Value::Text => {}
            Value::OneOf(choices) if !choices.contains(value) => {
                return Decision::Deny(format!("hap-sign-tool {command}: {flag} takes {}", choices.join(" or ")))
            }
            Value::OneOf(_) => {}
            Value::Path => match classify(value) {
                PathClass::Workspace => {}
                PathClass::Outside => asks = true,
                class => return Decision::Deny(format!("hap-sign-tool {command}: {value} is {}", class.describe())),
            },
        }
    }
    if asks {
        Decision::Ask
    } else {
        Decision::Allow
    }
}

fn refuse(why: &str) -> Decision {
    Decision::DenyUnlessRule(why.to_string())
}

/// What the table allows or asks about, for the approval table in docs/src/approvals.md.
#[cfg(test)]
pub fn documented() -> Vec<(String, Verdict)> {
    vec![
        ("hap-sign-tool sign-app|verify-app|sign-profile|verify-profile with their documented flags, every path in the workspace".into(), Verdict::Allow),
        ("hap-sign-tool … with a path outside the workspace (signing material under ~/.ohos/config/)".into(), Verdict::Ask),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harmony::grammar::table_cases::{label, words};

    fn verdict(line: &str) -> &'static str {
        let classify = |p: &str| {
            if p.starts_with("/rein-home/") {
                PathClass::Home
            } else if p.starts_with('/') {
                PathClass::Outside
            } else {
                PathClass::Workspace
            }
        };
        label(&decide(&words(line), &classify))
    }

    #[test]
    fn hap_sign_tool_policy_table() {
        let cases = [
            ("sign-app -mode localSign -keyAlias debugKey -keyPwd 1 -inFile a.hap -outFile b.hap -keystoreFile k.p12 -keystorePwd 1 -appCertFile c.cer -profileFile p.p7b -signAlg SHA256withECDSA", "allow"),
            ("sign-app -inFile a.hap -outFile b.hap -keystoreFile /home/u/.ohos/config/k.p12", "ask"),
            ("verify-app -inFile b.hap -outCertChain c.cer -outProfile p.p7b", "allow"),
            ("verify-app -inFile /tmp/b.hap", "ask"),
            ("sign-app -inFile a.hap -outFile /rein-home/approvals.toml", "deny"),
            ("generate-keypair -keyAlias x", "rule"),
            ("sign-app -inFile a.hap -extraFlag x", "rule"),
            ("sign-app -inFile a.hap -inFile b.hap", "deny"),
            ("sign-app -inFile", "deny"),
            ("sign-app -mode remoteSign -inFile a.hap", "deny"),
            ("sign-app -keyAlias -outFile", "deny"),
            ("-v", "allow"),
            ("", "deny"),
        ];
        for (line, expected) in cases {
            assert_eq!(verdict(line), expected, "hap-sign-tool {line}");
        }
    }
}
