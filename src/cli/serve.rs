//! `rein serve`: MCP on stdin/stdout. `--yes` is never honoured: being called by an agent must
//! not approve anything, so only the person behind the client can (MCP elicitation).

use super::args::{Cli, Command};
use super::render;
use super::screen::tell;

pub fn run(cli: &Cli) -> u8 {
    if cli.yes {
        tell!("rein serve: --yes is ignored; over MCP only a person answering the client's question approves");
    }
    keep_freed_memory();
    let read_before_edit = !matches!(cli.command, Command::Serve { no_read_before_edit: true });
    let builder = super::host_builder(cli).read_before_edit(read_before_edit);
    match rein::mcp::serve_stdio(builder) {
        Ok(()) => 0,
        Err(failure) => {
            // stdout belongs to the protocol, even for a server that could not start.
            render::failure(&failure, cli.verbose > 0);
            if failure.is_usage_error() {
                2
            } else {
                1
            }
        }
    }
}

/// mimalloc's `mi_option_purge_delay` (mimalloc.h, `mi_option_e`, v3); a test checks it is the
/// option whose default is 1000 ms.
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// A server keeps what it freed instead of giving it back to the OS: each page mimalloc
/// returned and touched again was a page fault and a page the kernel zeroed (22% of
/// `rein serve`'s time under pipelined calls while mimalloc still used 2 MiB huge pages; it is
/// built without them now, and only whole-file buffers ask for them,
/// `kernel::platform::file_buffers`). The price is that a session's memory stays at its peak.
fn keep_freed_memory() {
    // SAFETY: mi_option_set stores a number in mimalloc's option table; -1 means never purge.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_purge_delay_option_is_the_one_that_defaults_to_a_second() {
        // SAFETY: reads mimalloc's option table.
        let delay = unsafe { libmimalloc_sys::mi_option_get(super::MI_OPTION_PURGE_DELAY) };
        assert_eq!(delay, 1000, "mimalloc's option numbering changed: find mi_option_purge_delay in mimalloc.h");
    }
}
