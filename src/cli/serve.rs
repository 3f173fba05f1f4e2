//! `rein serve`: MCP on stdin/stdout. `--yes` is never honoured: being called by an agent must
//! not approve anything, so only the person behind the client can (MCP elicitation).

use super::args::{Cli, Command};
use super::render;

pub fn run(cli: &Cli) -> u8 {
    if cli.yes {
        eprintln!("rein serve: --yes is ignored; over MCP only a person answering the client's question approves");
    }
    let read_before_edit = !matches!(cli.command, Command::Serve { no_read_before_edit: true });
    let builder = super::host_builder(cli).read_before_edit(read_before_edit);
    match rein::mcp::serve_stdio(builder) {
        Ok(()) => 0,
        Err(failure) => {
            // stdout belongs to the protocol, even for a server that could not start.
            render::failure(&failure);
            if failure.is_usage_error() {
                2
            } else {
                1
            }
        }
    }
}
