//! Fake `hvigorw`: reads the project's JSON5 files, writes real HAP zips (signed by the real
//! hap-sign-tool when the product has a signingConfig), fails as the real one does
//! (shared/HARMONY.md §1).
//!
//! Every console line starts with `> hvigor ` except the ArkTS error body; a failure ends with
//! `> hvigor ERROR: BUILD FAILED in ... ` (a trailing space) and exit 255, a success with
//! `BUILD SUCCESSFUL in ...`.

use std::collections::{BTreeMap, BTreeSet};

use super::common::{conf_i64, conf_str, outln};
use crate::state::State;

pub const P: &str = "> hvigor ";
const FLAGS: [&str; 20] = [
    "--no-daemon",
    "--daemon",
    "--parallel",
    "--no-parallel",
    "--incremental",
    "--no-incremental",
    "--sync",
    "--stacktrace",
    "--no-stacktrace",
    "--debug",
    "--info",
    "--warn",
    "--error",
    "--stop-daemon",
    "--stop-daemon-all",
    "--status-daemon",
    "--type-check",
    "--no-type-check",
    "--watch",
    "--enable-build-script-type-check",
];
const VALUED: [&str; 8] = ["--mode", "-m", "-p", "--prop", "--analyze", "--config", "-c", "--max-old-space-size"];

/// A build failure: the lines to print before `BUILD FAILED`.
pub struct Failed(pub Vec<String>);

impl Failed {
    pub fn line(text: String) -> Failed {
        Failed(vec![text])
    }
}

#[derive(Default)]
pub struct Args {
    pub tasks: Vec<String>,
    pub props: BTreeMap<String, String>,
    pub flags: BTreeSet<String>,
    pub error: Option<String>,
}

/// `699 ms`, `12 s 247 ms`, `1 min 14 s 227 ms` (shared/HARMONY.md §1).
fn duration(ms: i64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms < 60000 {
        format!("{} s {} ms", ms / 1000, ms % 1000)
    } else {
        format!("{} min {} s {} ms", ms / 60000, (ms % 60000) / 1000, ms % 1000)
    }
}

fn parse_args(argv: &[String]) -> Args {
    let mut args = Args::default();
    let mut i = 0;
    while i < argv.len() {
        let a = &argv[i];
        i += 1;
        let (name, value) = match a.split_once('=') {
            Some((name, value)) => (name, Some(value.to_string())),
            None => (a.as_str(), None),
        };
        if FLAGS.contains(&a.as_str()) {
            args.flags.insert(a.clone());
        } else if ["-v", "--version", "version", "-h", "--help"].contains(&a.as_str()) {
            args.flags.insert(if a.contains('h') { "--help" } else { "--version" }.to_string());
        } else if VALUED.contains(&name) {
            let value = match value {
                Some(value) => value,
                None if i < argv.len() => {
                    i += 1;
                    argv[i - 1].clone()
                }
                None => {
                    args.error = Some(format!("Option '{a}' requires a value."));
                    break;
                }
            };
            if name == "-p" || name == "--prop" {
                let (k, v) = value.split_once('=').unwrap_or((value.as_str(), ""));
                args.props.insert(k.to_string(), v.to_string());
            }
        } else if a.starts_with('-') {
            // GUESS: the words for an option hvigor does not know.
            args.error = Some(format!("Unknown option '{a}'."));
            break;
        } else {
            args.tasks.push(a.clone());
        }
    }
    args
}

pub fn main(state: &State, argv: &[String]) -> i32 {
    let conf = state.scenario("hvigorw");
    let args = parse_args(argv);
    let took = duration(conf_i64(&conf, "duration_ms", 3512));
    if args.flags.contains("--version") {
        outln(&conf_str(&conf, "version").unwrap_or_else(|| "5.18.4".into()));
        return 0;
    }
    if args.flags.contains("--help") {
        outln("Usage: hvigorw [taskNames...] <options...>");
        return 0;
    }
    let code = conf_i64(&conf, "exit_code", 255) as i32;
    match run(&args, &conf) {
        Ok(()) => {
            outln(&format!("{P}BUILD SUCCESSFUL in {took}"));
            0
        }
        Err(Failed(lines)) => {
            lines.iter().for_each(|l| outln(l));
            outln(&format!("{P}ERROR: BUILD FAILED in {took} "));
            code
        }
    }
}

fn run(args: &Args, conf: &super::common::Conf) -> Result<(), Failed> {
    let root = std::env::current_dir().unwrap_or_default();
    if let Some(error) = &args.error {
        return Err(Failed::line(format!("{P}ERROR: {error}")));
    }
    if !root.join("hvigorfile.ts").is_file() {
        // GUESS: the words for a folder that is not a project root.
        return Err(Failed::line(format!(
            "{P}ERROR: Cannot find the project build file 'hvigorfile.ts' in {}. Run hvigorw in the project root directory.",
            root.display()
        )));
    }
    if args.flags.contains("--stop-daemon") || args.flags.contains("--stop-daemon-all") {
        // GUESS: the words of --stop-daemon.
        outln(&format!("{P}Hvigor daemon stopped."));
        std::process::exit(0);
    }
    if args.flags.contains("--status-daemon") {
        outln(&format!("{P}PID    STATUS  PORT    ROOT_PATH"));
        std::process::exit(0);
    }
    if args.tasks.is_empty() {
        outln(&format!("{P}Usage: hvigorw [taskNames...] <options...>"));
        std::process::exit(0);
    }
    super::hvigor_build::build(&root, args, conf)
}
