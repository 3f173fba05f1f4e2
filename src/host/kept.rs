//! Kept programs, for embedders as for `rein ps` and `rein stop` (`kernel::process::kept`).

use super::Host;
use crate::error::Failure;
/// The holder's entry point (`rein hold …`, which rein runs itself) and the word it starts with.
pub use crate::kernel::process::kept::{hold as hold_kept_program, HoldRefused, HOLD_COMMAND};
pub use crate::kernel::process::kept::{Kept, Record, Stopped};

impl Host {
    /// Every program rein keeps running for this workspace (or kept: `state` says `ended`),
    /// oldest first.
    pub fn kept(&self) -> Result<Vec<Kept>, Failure> {
        self.kernel.kept().map_err(Failure::from)
    }

    /// Ends kept program `id`: its own stop first (asked about as that command is), then its
    /// process group. Returns its record and whether it was still running.
    pub fn stop_kept(&self, id: &str) -> Result<(Record, bool), Failure> {
        self.refuse_inside_async("Host::stop_kept", "a call of a tool that stops it")?;
        let call = self.new_call();
        self.block_on(self.kernel.stop_kept(&call, id)).map_err(Failure::from)
    }
}
