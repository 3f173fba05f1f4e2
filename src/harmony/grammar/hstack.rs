//! hstack command lines (shared/HARMONY-VERIFY.md §7, from Huawei's "Command Line Tools" guide,
//! ide-command-line-hstack): `hstack -c "<one stack>" -s <sourcemapDir> [-n <nameCacheDir>]
//! [--so <soDir>]` restores one crash stack and prints it. rein allows only that form, with
//! every folder inside the workspace (the build's own maps), so it only reads: `-i` (a crash
//! folder, whose restored copies it writes into that folder) and `-o` (an output file or
//! folder) write, and are refused unless a person's rule allows them.

use crate::kernel::policy::shapes::Effect;
#[cfg(test)]
use crate::kernel::policy::shapes::Verdict;
use crate::kernel::policy::Decision;
use crate::kernel::scope::PathClass;

pub fn decide(args: &[String], classify: &dyn Fn(&str) -> PathClass) -> Decision {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    if matches!(words.as_slice(), ["-v"] | ["--version"] | ["-h"] | ["--help"]) {
        return Decision::Allow;
    }
    let refuse = |why: String| Decision::DenyUnlessRule(format!("hstack {}: {why}", words.join(" ")));
    let (mut stack, mut maps) = (false, false);
    let mut at = 0;
    while at < words.len() {
        let value = words.get(at + 1).copied();
        match words[at] {
            "-c" | "--crash" => match value {
                // A stack that reads as an option would be taken for one.
                Some(v) if !v.starts_with('-') && !stack => stack = true,
                _ => return refuse("-c takes one stack, once, not starting with -".into()),
            },
            flag @ ("-s" | "--sourcemapDir" | "-n" | "--nameObfuscation" | "--so" | "--soDir") => match value {
                Some(v) if classify(v) == PathClass::Workspace => maps |= matches!(flag, "-s" | "--sourcemapDir"),
                _ => return refuse(format!("{flag} takes a folder inside the workspace")),
            },
            "-i" | "--input" => return refuse("-i writes the restored files into the crash folder".into()),
            "-o" | "--output" => return refuse("-o writes a file; rein reads the restored stack on stdout".into()),
            other => return refuse(format!("{other} is not an option rein knows")),
        }
        at += 2;
    }
    if !stack || !maps {
        return refuse("rein runs hstack with -c and -s".into());
    }
    Decision::Allow
}

/// Every command rein allows only reads (`-i` and `-o` are refused).
pub fn effect(_args: &[String]) -> Effect {
    Effect::Reads
}

/// What the grammar allows, for the book.
#[cfg(test)]
pub fn documented() -> Vec<(String, Verdict)> {
    vec![
        ("hstack -v".to_string(), Verdict::Allow),
        (
            "hstack -c <one stack> -s <folder in the workspace> [-n <folder in the workspace>] [--so <folder in the workspace>]"
                .to_string(),
            Verdict::Allow,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harmony::grammar::table_cases::label;

    #[test]
    fn hstack_policy_table() {
        let classify =
            |p: &str| if p.starts_with('/') || p.starts_with("..") { PathClass::Outside } else { PathClass::Workspace };
        let map = "entry/build/default/cache/default/default@CompileArkTS/esmodule/release";
        let frame = "at i (entry|entry|1.0.0|src/main/ets/pages/Index.ts:71:71)";
        let cache = format!("{map}/obfuscation");
        let cases: Vec<(Vec<&str>, &str)> = vec![
            (vec!["-v"], "allow"),
            (vec!["-c", frame, "-s", map], "allow"),
            (vec!["-c", frame, "-s", map, "-n", &cache], "allow"),
            (vec!["--crash", frame, "--sourcemapDir", map, "--so", "entry/build/default/intermediates/libs"], "allow"),
            // It writes: the restored copies into the crash folder, or an output file.
            (vec!["-i", "faultlog", "-s", map], "rule"),
            (vec!["-c", frame, "-s", map, "-o", "out.txt"], "rule"),
            // Maps or caches outside the workspace: another project's files.
            (vec!["-c", frame, "-s", "/home/u/other/release"], "rule"),
            (vec!["-c", frame, "-s", map, "-n", "../other"], "rule"),
            // A "stack" that is an option in disguise, twice a stack, a missing map.
            (vec!["-c", "-o/tmp/x", "-s", map], "rule"),
            (vec!["-c", frame, "-c", frame, "-s", map], "rule"),
            (vec!["-c", frame], "rule"),
            (vec!["-c", frame, "-s"], "rule"),
            (vec!["-c", frame, "-s", map, "--unknown", "x"], "rule"),
        ];
        for (line, expected) in cases {
            let args: Vec<String> = line.iter().map(|w| w.to_string()).collect();
            assert_eq!(label(&decide(&args, &classify)), expected, "hstack {line:?}");
        }
    }
}
