//! The `rein` command. Everything, the command line included, lives in the library
//! (`rein::cli`, feature `cli`).

use std::process::ExitCode;

// glibc's allocator grows and trims a worker thread's arena on almost every MCP call (sysmalloc
// and mprotect were ~12% of `rein serve`'s time under pipelined calls); mimalloc keeps freed
// memory for reuse: +20% calls/s in `cargo bench --bench mcp_pipeline` (docs/src/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    rein::cli::main()
}
