//! The `rein` command: parses arguments, builds a Host, prints. Everything else lives in the
//! library.

mod cli;

use std::process::ExitCode;

use clap::Parser;

// glibc's allocator grows and trims a worker thread's arena on almost every MCP call (sysmalloc
// and mprotect were ~12% of `rein serve`'s time under pipelined calls); mimalloc keeps freed
// memory for reuse: +20% calls/s in `cargo bench --bench mcp_pipeline` (README: speed).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    // Like other Unix tools, stop quietly when the reader of stdout goes away
    // (`rein tools | head`) instead of panicking on a broken pipe.
    // SAFETY: restoring the default disposition of SIGPIPE before any thread starts.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let args = cli::args::Cli::parse();
    cli::logging::init(args.verbose);
    let code = cli::run(args);
    ExitCode::from(code)
}
