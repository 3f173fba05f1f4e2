//! `rein completions SHELL` and `rein man`: rendered by clap_complete and clap_mangen from the
//! same argument definitions as `--help`, so the three never disagree.

use clap::CommandFactory;
use clap_complete::Shell;
use serde_json::json;

use super::args::Cli;
use super::output::Output;

pub fn completions(shell: Shell, out: &Output) -> u8 {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "rein", &mut script);
    print(script, "script", out)
}

pub fn man(out: &Output) -> u8 {
    let mut page = Vec::new();
    if let Err(err) = clap_mangen::Man::new(Cli::command()).render(&mut page) {
        return out.failure(&rein::Failure::new(rein::Code::IoError, format!("cannot render the man page: {err}")));
    }
    print(page, "roff", out)
}

/// The text itself, or with --json, one object holding it.
fn print(bytes: Vec<u8>, key: &str, out: &Output) -> u8 {
    let text = String::from_utf8_lossy(&bytes);
    if out.json {
        return out.success(&json!({ key: text }));
    }
    print!("{text}");
    0
}
