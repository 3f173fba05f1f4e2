//! hvigorw command lines: build, clean and daemon tasks in the workspace, with the options and
//! `-p` properties hvigorw documents (developer.huawei.com, "ide-hvigor-commandline"), each value
//! typed; a property that names a file is a path, judged by scope. Anything else is refused
//! unless a person's rule names it.

use super::values::Kind;
use crate::kernel::policy::shapes::Effect;
use crate::kernel::policy::Decision;
use crate::kernel::PathClass;

/// Tasks that build, clean or run the local unit tests inside the project (`test` runs
/// `src/test` in the previewer on this machine, writing under the module's `.test/`:
/// shared/HARMONY-VERIFY.md §2).
const TASKS: [&str; 7] =
    ["clean", "assembleHap", "assembleApp", "assembleHsp", "assembleHar", "collectCoverage", "test"];
/// Tasks that install on a device.
const DEVICE_TASKS: [&str; 1] = ["onDeviceTest"];
/// Daemon controls and queries, alone on their command line.
const CONTROLS: [&str; 6] = ["--stop-daemon", "--stop-daemon-all", "--status-daemon", "--version", "-v", "version"];
/// Of those, the ones that only read (every task builds or cleans: it replaces outputs; a stop
/// ends the daemons).
const QUERIES: [&str; 4] = ["--status-daemon", "--version", "-v", "version"];
/// Options without a value that change only how the build runs or logs.
const FLAGS: [&str; 12] = [
    "--no-daemon",
    "--daemon",
    "--parallel",
    "--no-parallel",
    "--incremental",
    "--no-incremental",
    "--info",
    "--debug",
    "--warn",
    "--error",
    "--stacktrace",
    "--no-stacktrace",
];

pub fn decide(args: &[String], classify: &dyn Fn(&str) -> PathClass) -> Decision {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if let [control] = args.as_slice() {
        if CONTROLS.contains(control) {
            return Decision::Allow;
        }
    }
    let mut tasks = Vec::new();
    let mut asks = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match *arg {
            "--mode" | "-m" => match iter.next() {
                Some(&"module" | &"project") => {}
                other => return refuse(&format!("--mode {}", other.unwrap_or(&""))),
            },
            "-p" => match iter.next().map(|p| property(p, classify)) {
                Some(Ok(needs_a_person)) => asks |= needs_a_person,
                Some(Err(decision)) => return decision,
                None => return Decision::Deny("hvigorw -p needs key=value".into()),
            },
            flag if FLAGS.contains(&flag) => {}
            task if TASKS.contains(&task) => tasks.push(task),
            task if DEVICE_TASKS.contains(&task) => {
                tasks.push(task);
                asks = true;
            }
            other => return refuse(other),
        }
    }
    match (tasks.is_empty(), asks) {
        (true, _) => Decision::Deny("hvigorw without a task; give assembleHap, clean ...".into()),
        (false, true) => Decision::Ask,
        (false, false) => Decision::Allow,
    }
}

/// What the command does: a query only reads; every task writes the project's outputs over
/// earlier ones.
pub fn effect(args: &[String]) -> Effect {
    match args {
        [only] if QUERIES.contains(&only.as_str()) => Effect::Reads,
        _ => Effect::Replaces,
    }
}

/// A `-p key=value`: Ok(whether a person must be asked), or the refusal.
fn property(text: &str, classify: &dyn Fn(&str) -> PathClass) -> Result<bool, Decision> {
    let Some((key, value)) = text.split_once('=') else {
        return Err(Decision::Deny(format!("hvigorw -p {text}: give key=value")));
    };
    let boolean = matches!(value, "true" | "false");
    let ok = match key {
        "product" | "requiredDeviceType" => Kind::Name.accepts(value),
        "buildMode" => Kind::Name.accepts(value),
        "module" => {
            value.split(',').all(|m| m.split('@').all(|part| Kind::Name.accepts(part)) && m.matches('@').count() <= 1)
        }
        "debuggable" | "ohos-test-coverage" | "coverage" => boolean,
        "buildVersion" => Kind::Number.accepts(value),
        "scope" => {
            value.split(',').all(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "_.#".contains(c)))
        }
        "parameterFile" => {
            return match classify(value) {
                PathClass::Workspace => Ok(false),
                PathClass::Outside => Ok(true),
                class => Err(Decision::Deny(format!("hvigorw -p parameterFile={value}: it is {}", class.describe()))),
            }
        }
        _ => return Err(refuse(&format!("-p {key}"))),
    };
    if ok {
        Ok(false)
    } else {
        Err(Decision::Deny(format!("hvigorw -p {text}: the value is not a plain {key}")))
    }
}

fn refuse(what: &str) -> Decision {
    Decision::DenyUnlessRule(format!("hvigorw `{what}` is not a build, clean or daemon task or option rein knows"))
}

/// What the table allows or asks about, for the approval table in docs/src/approvals.md.
#[cfg(test)]
pub fn documented() -> Vec<(String, crate::kernel::policy::shapes::Verdict)> {
    use crate::kernel::policy::shapes::Verdict;
    vec![
        (
            "hvigorw [--mode module|project] [-p product=<name>] [-p buildMode=<name>] [-p module=<name>@<target>,…] [-p debuggable=true|false] [-p buildVersion=<n>] [-p parameterFile=<path in the workspace>] [--no-daemon …] clean|assembleHap|assembleApp|assembleHsp|assembleHar|collectCoverage|test [-p scope=<suite>#<test>] [-p coverage=true|false]…".into(),
            Verdict::Allow,
        ),
        ("hvigorw --stop-daemon|--stop-daemon-all|--status-daemon|--version|-v|version".into(), Verdict::Allow),
        ("hvigorw … onDeviceTest [-p scope=<suite>] [-p coverage=true|false]; -p parameterFile=<path outside the workspace>".into(), Verdict::Ask),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harmony::grammar::table_cases::{label, words};

    fn verdict(line: &str) -> &'static str {
        let classify = |p: &str| {
            if p.starts_with("/home/") {
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
    fn hvigorw_policy_table() {
        let cases = [
            ("--mode module -p product=default -p buildMode=debug assembleHap --no-daemon", "allow"),
            ("--mode module -p module=entry@default -p product=default assembleHap --no-daemon", "allow"),
            // The test HAP (shared/HARMONY-VERIFY.md §1.5): built like the app.
            ("--mode module -p module=entry@ohosTest -p product=default assembleHap --no-daemon", "allow"),
            ("--mode module -p module=entry@default,lib -p product=default assembleHar", "allow"),
            ("clean --no-daemon", "allow"),
            ("--stop-daemon", "allow"),
            ("--version", "allow"),
            ("-p parameterFile=param.json5 assembleHap", "allow"),
            ("-p parameterFile=/outside/p.json5 assembleHap", "ask"),
            ("-p parameterFile=/home/u/.rein/p.json5 assembleHap", "deny"),
            ("onDeviceTest -p module=entry -p coverage=true -p scope=Suite#case", "ask"),
            // The local unit tests (§2): run on this machine, like a build.
            ("--mode module -p module=entry -p coverage=false -p scope=Suite#case test --no-daemon", "allow"),
            ("test -p scope=Suite;rm", "deny"),
            ("publishToMaven", "rule"),
            ("", "deny"),
            ("--no-daemon", "deny"),
            ("-p", "deny"),
            ("-p product=default;rm assembleHap", "deny"),
            ("-p ohos.buildDir=/tmp assembleHap", "rule"),
            ("--config properties.ohos.buildDir=/tmp assembleHap", "rule"),
            ("-c x assembleHap", "rule"),
            ("--mode evil assembleHap", "rule"),
            ("assembleHap --node-options=--require=/tmp/x.js", "rule"),
            ("--stop-daemon assembleHap", "rule"),
        ];
        for (line, expected) in cases {
            assert_eq!(verdict(line), expected, "hvigorw {line}");
        }
    }
}
