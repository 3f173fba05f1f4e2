//! `rein completions SHELL` and `rein man`: rendered by clap_complete and clap_mangen from the
//! same argument definitions as `--help`, so the three never disagree.

use clap::CommandFactory;
use clap_complete::Shell;
use serde_json::json;

use rein::{Code, Failure};

use super::args::Cli;
use super::output::Output;

pub fn completions(shell: Shell, out: &Output) -> u8 {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "rein", &mut script);
    print(script, "script", out)
}

/// The page of `rein` or of the command `path` names (`["pack", "add"]`: rein-pack-add(1),
/// the page rein(1) and rein-pack(1) refer to).
pub fn man(path: &[String], out: &Output) -> u8 {
    let mut command = Cli::command();
    // Building gives subcommands their display names (`rein-pack`) and usage (`rein pack`).
    command.build();
    for (depth, name) in path.iter().enumerate() {
        let Some(sub) = command.find_subcommand(name).cloned() else {
            let known: Vec<&str> = command.get_subcommands().map(|c| c.get_name()).collect();
            let hint = rein::did_you_mean(&rein::closest_names(name, known.iter().copied()));
            let within = if depth == 0 { "rein".to_string() } else { format!("rein {}", path[..depth].join(" ")) };
            let message = format!("{within} has no command {name:?}.{hint} `{within} --help` lists them.");
            return out.failure(&Failure::new(Code::InvalidArgs, message));
        };
        command = sub;
    }
    let mut page = Vec::new();
    if let Err(err) = clap_mangen::Man::new(command).render(&mut page) {
        return out.failure(&Failure::new(Code::IoError, format!("cannot render the man page: {err}")));
    }
    print(page, "roff", out)
}

/// The text itself, or with --json, one object holding it.
fn print(bytes: Vec<u8>, key: &str, out: &Output) -> u8 {
    let text = String::from_utf8_lossy(&bytes);
    if out.json {
        return out.success(&json!({ key: text }));
    }
    super::screen::print(&text);
    0
}
