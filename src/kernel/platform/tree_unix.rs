//! A spawned program and everything it starts, as one: its own process group, signalled as a
//! whole (TERM, then KILL), killed when rein lets go of it unfinished.

use std::process::ExitStatus;

use tokio::process::{Child, Command};

/// The program's process group.
#[derive(Debug)]
pub struct ProcessTree {
    pgid: Option<i32>,
}

impl ProcessTree {
    /// Makes `cmd`'s child lead a new process group (before it is spawned).
    pub fn prepare(cmd: &mut Command) {
        cmd.process_group(0);
    }

    /// The tree of the `child` just spawned from a prepared command.
    pub fn adopt(child: &Child) -> std::io::Result<ProcessTree> {
        Ok(ProcessTree { pgid: child.id().map(|id| id as i32) })
    }

    /// Asks the whole tree to stop (SIGTERM).
    pub fn terminate(&self) {
        self.signal(libc::SIGTERM);
    }

    /// Stops the whole tree now (SIGKILL).
    pub fn kill(&self) {
        self.signal(libc::SIGKILL);
    }

    fn signal(&self, signal: i32) {
        if let Some(pgid) = self.pgid {
            // SAFETY: signalling a process group we created; a group that is gone gives ESRCH.
            unsafe {
                libc::kill(-pgid, signal);
            }
        }
    }

    /// The program finished normally: leave what it left running alone.
    pub fn disarm(mut self) {
        self.pgid = None;
    }
}

impl Drop for ProcessTree {
    fn drop(&mut self) {
        self.kill();
    }
}

/// How a program ended, beyond its exit code.
pub struct ExitInfo;

impl ExitInfo {
    /// The signal that ended it, if one did.
    pub fn signal(status: &ExitStatus) -> Option<i32> {
        use std::os::unix::process::ExitStatusExt;
        status.signal()
    }
}
