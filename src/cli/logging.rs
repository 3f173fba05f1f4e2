//! Logs go to stderr only: stdout belongs to results (and to the protocol, for `rein serve`).
//! Never a secret: see the rmcp cap below.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

pub fn init(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let asked = std::env::var_os("REIN_LOG").is_some() || verbose > 0;
    let filter = EnvFilter::try_from_env("REIN_LOG").unwrap_or_else(|_| EnvFilter::new(default));
    // rmcp logs whole requests and results at debug, tool arguments (passwords) included;
    // rein logs what a call did itself, with secrets scrubbed. Its info lines (a session's
    // start, as a Rust debug dump of the client's parameters) only when logs were asked for.
    let rmcp = if asked { "rmcp=info" } else { "rmcp=warn" };
    let filter = filter.add_directive(rmcp.parse().expect("a valid directive"));
    // Colours only on a terminal: MCP clients keep a server's stderr in their log files.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| super::screen::LogWriter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .try_init();
}
