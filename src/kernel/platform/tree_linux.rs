//! A spawned program and everything it starts, as one (Linux): the child rein spawns is the
//! program's keeper (`platform::keeper`), a subreaper in a session of its own, so nothing the
//! program starts can leave the tree, whether it calls `setsid`, `setpgid` or forks twice.
//! rein talks to the keeper through a socket pair: terminate, kill, or — when rein lets go of
//! the tree, or rein itself dies — end of file, which kills. When the program ends, the keeper
//! kills whatever it left running and reports it.

use std::fs::File;
use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

use tokio::process::{Child, Command};

use super::keeper;
use super::tree::{BeforeExec, Stragglers};

/// The keeper's control pipe and report, from rein's side.
#[derive(Debug)]
pub struct ProcessTree {
    control: Option<File>,
    report: File,
}

/// rein's and the keeper's ends of both pipes, between `prepare` and `adopt`.
#[derive(Debug)]
pub struct Pending {
    control: File,
    report: File,
    /// The keeper's ends: rein closes its copies once the child exists.
    _keeper_ends: [OwnedFd; 2],
}

impl ProcessTree {
    /// Makes `cmd`'s child the keeper of the program, which runs `before_exec` (confinement)
    /// just before it executes.
    pub fn prepare(cmd: &mut Command, before_exec: Option<BeforeExec>) -> std::io::Result<Pending> {
        let (control_read, control_write) = control_channel()?;
        let (report_read, report_write) = pipe()?;
        let (ctl, report) = (control_read.as_raw_fd(), report_write.as_raw_fd());
        let mut before_exec = before_exec;
        let setup = move || -> std::io::Result<()> {
            // SAFETY: in the forked child before exec; both descriptors are open (rein keeps
            // them until the child exists).
            unsafe { keeper::split(ctl, report)? };
            match before_exec.as_mut() {
                Some(work) => work(),
                None => Ok(()),
            }
        };
        // SAFETY: `setup` makes only system calls on values prepared before the fork
        // (`keeper::split`, and `before_exec`, which promises the same).
        unsafe {
            cmd.pre_exec(setup);
        }
        Ok(Pending {
            control: File::from(control_write),
            report: File::from(report_read),
            _keeper_ends: [control_read, report_write],
        })
    }

    /// The tree of the child just spawned from a prepared command.
    pub fn adopt(pending: Pending, _child: &Child) -> std::io::Result<ProcessTree> {
        Ok(ProcessTree { control: Some(pending.control), report: pending.report })
    }

    /// Asks the whole tree to stop (SIGTERM to the program's group and every orphan).
    pub fn terminate(&self) {
        self.tell(keeper::TERMINATE);
    }

    /// Stops the whole tree now (SIGKILL to everything in it).
    pub fn kill(&self) {
        self.tell(keeper::KILL);
    }

    fn tell(&self, byte: u8) {
        if let Some(control) = self.control.as_ref() {
            // A keeper that is gone has ended the tree already; MSG_NOSIGNAL keeps that from
            // raising SIGPIPE in rein (the CLI does not ignore it).
            // SAFETY: sending one byte from a live buffer on a socket this tree owns.
            unsafe { libc::send(control.as_raw_fd(), [byte].as_ptr().cast(), 1, libc::MSG_NOSIGNAL) };
        }
    }

    /// After the child (the keeper) exited: what it killed that the program left running.
    pub fn finish(mut self) -> Stragglers {
        self.control = None;
        let mut text = String::new();
        let _ = self.report.read_to_string(&mut text);
        let (count, names) = keeper::parse_report(&text);
        Stragglers { count, names }
    }
}

impl Drop for ProcessTree {
    fn drop(&mut self) {
        self.kill();
        // Then wait until the keeper is gone: it closes the report only once it has reaped
        // everything in the tree, so what runs after an abandoned spawn (the sweep for planted
        // repositories, the next call) never meets the program still running. SIGKILL ends a
        // tree within milliseconds; the bound is for a process stuck in the kernel (a dead NFS
        // server), which rein then leaves to the keeper.
        wait_for_end_of_file(&self.report, KEEPER_GONE_WITHIN);
    }
}

/// How long an abandoned spawn's keeper may take to end the tree.
const KEEPER_GONE_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

/// Reads and drops what `report` holds until its end of file, or until `within` has passed.
fn wait_for_end_of_file(report: &File, within: std::time::Duration) {
    let deadline = std::time::Instant::now() + within;
    let mut buf = [0u8; 512];
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        let mut fd = libc::pollfd { fd: report.as_raw_fd(), events: libc::POLLIN, revents: 0 };
        // SAFETY: polls one descriptor this tree owns, through a live struct.
        let ready = unsafe { libc::poll(&mut fd, 1, left.as_millis().min(i32::MAX as u128) as i32) };
        if ready == 0 || left.is_zero() {
            return;
        }
        if ready < 0 {
            continue;
        }
        // SAFETY: reads into a live stack buffer from a descriptor this tree owns.
        if unsafe { libc::read(report.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) } <= 0 {
            return;
        }
    }
}

/// The control channel: a connected socket pair (rein's end, the keeper's end), so rein can
/// send without risking SIGPIPE.
fn control_channel() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors socketpair returns.
    if unsafe { libc::socketpair(libc::AF_UNIX, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0, fds.as_mut_ptr()) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[1]), OwnedFd::from_raw_fd(fds[0])) })
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2 returns.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}
