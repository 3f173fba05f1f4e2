//! The `rein` command: parses arguments, builds a Host, prints. Everything else lives in the
//! library.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::args::Cli::parse();
    cli::logging::init(args.verbose);
    let code = cli::run(args);
    ExitCode::from(code)
}
