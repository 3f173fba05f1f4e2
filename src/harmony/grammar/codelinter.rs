//! codelinter command lines (shared/HARMONY-VERIFY.md §4, from Huawei's "Command Line Tools"
//! guide, ide-command-line-codelinter): `codelinter [options] [dir|file …]`. A check only
//! reads the project, so it is allowed; `--fix` rewrites source files and `-o` writes a report
//! file, so neither is (rein reads the report from stdout); a path outside the workspace is
//! not linted without a person's rule.

use crate::kernel::policy::shapes::Effect;
#[cfg(test)]
use crate::kernel::policy::shapes::Verdict;
use crate::kernel::policy::Decision;
use crate::kernel::scope::PathClass;

/// `-f` values §4 lists.
const FORMATS: [&str; 4] = ["default", "json", "xml", "html"];
/// `-e` levels §4 lists.
const LEVELS: [&str; 3] = ["error", "warn", "suggestion"];

pub fn decide(args: &[String], classify: &dyn Fn(&str) -> PathClass) -> Decision {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    if matches!(words.as_slice(), ["-v"] | ["--version"] | ["-h"] | ["--help"]) {
        return Decision::Allow;
    }
    let refuse = |why: String| Decision::DenyUnlessRule(format!("codelinter {}: {why}", words.join(" ")));
    let mut at = 0;
    while at < words.len() {
        let word = words[at];
        let value = words.get(at + 1).copied();
        match word {
            "--fix" => return refuse("--fix rewrites source files; rein only checks".into()),
            "-o" | "--output" => return refuse("-o writes a report file; rein reads the report on stdout".into()),
            "-i" | "--incremental" => {}
            "-f" | "--format" => match value {
                Some(v) if FORMATS.contains(&v) => at += 1,
                _ => return refuse(format!("-f takes one of {}", FORMATS.join(", "))),
            },
            "-e" | "--exit-on" => match value {
                Some(v) if v.split(',').all(|l| LEVELS.contains(&l)) => at += 1,
                _ => return refuse(format!("-e takes levels among {}", LEVELS.join(","))),
            },
            "-p" | "--product" => match value {
                Some(v) if !v.is_empty() && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') => {
                    at += 1
                }
                _ => return refuse("-p takes a product name".into()),
            },
            "-c" | "--config" => match value {
                Some(v) if classify(v) == PathClass::Workspace => at += 1,
                _ => return refuse("-c takes a rules file inside the workspace".into()),
            },
            path if path.starts_with('-') => return refuse(format!("{path} is not an option rein knows")),
            path if classify(path) != PathClass::Workspace => {
                return refuse(format!("{path} is not inside the workspace"));
            }
            _ => {}
        }
        at += 1;
    }
    Decision::Allow
}

/// Every command rein allows only reads (`--fix` and `-o` are refused).
pub fn effect(_args: &[String]) -> Effect {
    Effect::Reads
}

/// What the grammar allows, for README.
#[cfg(test)]
pub fn documented() -> Vec<(String, Verdict)> {
    vec![
        ("codelinter -v".to_string(), Verdict::Allow),
        (
            "codelinter [-c <rules file in the workspace>] [-f default|json|xml|html] [-p <product>] [-i] [-e <levels>] [<paths in the workspace>…]"
                .to_string(),
            Verdict::Allow,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harmony::grammar::table_cases::{label, words};

    #[test]
    fn codelinter_policy_table() {
        let classify =
            |p: &str| if p.starts_with('/') || p.starts_with("..") { PathClass::Outside } else { PathClass::Workspace };
        let verdict = |line: &str| label(&decide(&words(line), &classify));
        let cases = [
            ("-v", "allow"),
            ("", "allow"),
            ("-e error,warn,suggestion .", "allow"),
            ("-f json -p default -i entry/src/main/ets/pages/Index.ets", "allow"),
            ("-c code-linter.json5 entry", "allow"),
            ("--fix .", "rule"),
            ("-o report.txt .", "rule"),
            ("/etc", "rule"),
            ("../other-project", "rule"),
            ("-c /home/u/rules.json5 .", "rule"),
            ("-e error,fatal .", "rule"),
            ("-f yaml .", "rule"),
            ("--unknown .", "rule"),
        ];
        for (line, expected) in cases {
            assert_eq!(verdict(line), expected, "codelinter {line}");
        }
    }
}
