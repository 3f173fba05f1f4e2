//! A spawned program and everything it starts, as one (Unix other than Linux, i.e. macOS): its
//! own session and process group, signalled as a whole (TERM, then KILL), and killed when the
//! program ends or rein lets go of it. A process that leaves the group (`setsid`, `setpgid`)
//! escapes: macOS has no subreaper (docs/src/confinement.md). Linux: `tree_linux`.

use std::process::ExitStatus;

#[cfg(not(target_os = "linux"))]
pub use group::ProcessTree;

#[cfg(not(target_os = "linux"))]
mod group {
    use tokio::process::{Child, Command};

    use crate::kernel::platform::tree::{BeforeExec, Stragglers};

    /// The program's process group.
    #[derive(Debug)]
    pub struct ProcessTree {
        pgid: Option<i32>,
    }

    /// Nothing to carry from `prepare` to `adopt` here.
    #[derive(Debug)]
    pub struct Pending;

    impl ProcessTree {
        /// Makes `cmd`'s child lead a new session and group (no controlling terminal), then
        /// run `before_exec`.
        pub fn prepare(cmd: &mut Command, before_exec: Option<BeforeExec>) -> std::io::Result<Pending> {
            let mut before_exec = before_exec;
            let setup = move || -> std::io::Result<()> {
                // SAFETY: setsid is async-signal-safe; the child is not a group leader yet.
                if unsafe { libc::setsid() } < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                match before_exec.as_mut() {
                    Some(work) => work(),
                    None => Ok(()),
                }
            };
            // SAFETY: `setup` makes only system calls (see BeforeExec).
            unsafe {
                cmd.pre_exec(setup);
            }
            Ok(Pending)
        }

        /// The tree of the `child` just spawned from a prepared command.
        pub fn adopt(_pending: Pending, child: &Child) -> std::io::Result<ProcessTree> {
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
                // SAFETY: signalling the process group we created; a group that is gone gives
                // ESRCH.
                unsafe {
                    libc::kill(-pgid, signal);
                }
            }
        }

        /// The program ended: what it left in its group is killed (macOS cannot count it).
        pub fn finish(self) -> Stragglers {
            Stragglers::default()
        }
    }

    impl Drop for ProcessTree {
        fn drop(&mut self) {
            self.kill();
        }
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
