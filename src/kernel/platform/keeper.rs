//! The keeper: one small process per spawn that makes sure nothing the program starts outlives
//! it (Linux). It is the child rein spawns; it starts a new session, becomes a *child
//! subreaper* (`PR_SET_CHILD_SUBREAPER`, prctl(2)), forks the program, and waits. Every process
//! the program starts stays below the keeper whatever it does — `setsid`, `setpgid`, a double
//! fork: an orphan is re-parented to its nearest subreaper ancestor, the keeper, never to init.
//! When the program exits, or rein says so (its control pipe: `T` terminate, `K` or end of file
//! kill), the keeper kills its children until it has none (an orphan surfaces as its parent
//! dies), writes what it killed to the report pipe, and exits with the program's own status.
//! It only ever signals its own unreaped children, so no pid it signals can have been reused.
//!
//! Why this is our own code: it runs between `fork` and `exec` of a multi-threaded rein, where
//! only async-signal-safe calls are allowed. Everything below is a plain system call on stack
//! buffers — no allocation, no lock, no Rust standard library I/O. The program itself is forked
//! with a raw `clone` (no `pthread_atfork` handlers run), then returns to the standard library,
//! which goes on to `exec` it.

use std::os::fd::RawFd;

/// Control bytes rein writes: ask the program to stop (SIGTERM to its group and every orphan).
pub const TERMINATE: u8 = b'T';
/// Kill everything now (end of file does the same: rein let go, or rein is gone).
pub const KILL: u8 = b'K';
/// The report lists at most this many stragglers by name (the count is always complete).
const NAMED: usize = 32;

/// In the child rein spawned (after `fork`, before `exec`): starts a new session, becomes the
/// keeper and forks the program. Returns in the program (which goes on to `exec`); the keeper
/// never returns. `ctl` and `report` are the keeper's ends of rein's pipes.
///
/// # Safety
/// Only between `fork` and `exec` (a `pre_exec` hook), with `ctl` and `report` open.
pub unsafe fn split(ctl: RawFd, report: RawFd) -> std::io::Result<()> {
    if libc::setsid() < 0 || libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let program = libc::syscall(libc::SYS_clone, libc::SIGCHLD as libc::c_ulong, 0, 0, 0, 0) as libc::pid_t;
    match program {
        p if p < 0 => Err(std::io::Error::last_os_error()),
        // The program: its own process group (the keeper can signal it as one without itself).
        0 => {
            if libc::setpgid(0, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        }
        p => keep(p, ctl, report),
    }
}

/// The keeper's whole life.
unsafe fn keep(program: libc::pid_t, ctl: RawFd, report: RawFd) -> ! {
    close_all_but(ctl, report);
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGPIPE, libc::SIGQUIT] {
        libc::signal(signal, libc::SIG_IGN);
    }
    let mut set: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut set);
    libc::sigaddset(&mut set, libc::SIGCHLD);
    libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
    let children_exited = libc::signalfd(-1, &set, libc::SFD_CLOEXEC | libc::SFD_NONBLOCK);
    let mut status = None;
    wait_for_program(program, ctl, children_exited, &mut status);
    let mut report_buf = Report::new();
    sweep(program, &mut status, &mut report_buf);
    report_buf.send(report);
    exit_like(status.unwrap_or(1 << 8))
}

/// Waits until the program exits or rein asks to kill; forwards a terminate request.
unsafe fn wait_for_program(program: libc::pid_t, ctl: RawFd, children_exited: RawFd, status: &mut Option<i32>) {
    loop {
        reap_without_waiting(program, status);
        if status.is_some() {
            return;
        }
        let mut fds = [
            libc::pollfd { fd: ctl, events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: children_exited, events: libc::POLLIN, revents: 0 },
        ];
        // Without a signalfd (never on a kernel rein confines on), wake up now and then to reap.
        let timeout = if children_exited < 0 { 50 } else { -1 };
        if libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout) < 0 {
            continue;
        }
        if fds[1].revents != 0 {
            let mut drain = [0u8; 1024];
            while libc::read(children_exited, drain.as_mut_ptr().cast(), drain.len()) > 0 {}
        }
        if fds[0].revents != 0 {
            let mut byte = 0u8;
            match libc::read(ctl, (&mut byte as *mut u8).cast(), 1) {
                1 if byte == TERMINATE => terminate(program),
                n if n < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
                _ => return,
            }
        }
    }
}

/// Reaps every child that has exited (orphans too), noting the program's status.
unsafe fn reap_without_waiting(program: libc::pid_t, status: &mut Option<i32>) {
    loop {
        let mut st = 0;
        let pid = libc::waitpid(-1, &mut st, libc::WNOHANG);
        if pid <= 0 {
            return;
        }
        if pid == program {
            *status = Some(st);
        }
    }
}

/// SIGTERM to the program's group and to every orphan the keeper holds.
unsafe fn terminate(program: libc::pid_t) {
    libc::kill(-program, libc::SIGTERM);
    for_each_child(&mut |pid| {
        libc::kill(pid, libc::SIGTERM);
    });
}

/// Kills the keeper's children until it has none: each round kills what is there, and what
/// they leave surfaces as the next round's children. Every process killed other than the
/// program is a straggler.
unsafe fn sweep(program: libc::pid_t, status: &mut Option<i32>, report: &mut Report) {
    loop {
        reap_without_waiting(program, status);
        for_each_child(&mut |pid| {
            if pid != program {
                report.straggler(pid);
            }
            libc::kill(pid, libc::SIGKILL);
        });
        let mut st = 0;
        let pid = libc::waitpid(-1, &mut st, 0);
        if pid == program {
            *status = Some(st);
        }
        if pid < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD) {
            return;
        }
    }
}

/// Calls `f` with each direct child's pid: `/proc/thread-self/children` (the keeper has one
/// thread), else a scan of `/proc` for processes whose parent is the keeper.
unsafe fn for_each_child(f: &mut dyn FnMut(libc::pid_t)) {
    let fd = libc::open(c"/proc/thread-self/children".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return scan_proc(libc::getpid(), f);
    }
    let mut buf = [0u8; 512];
    let mut number: libc::pid_t = 0;
    loop {
        let n = libc::read(fd, buf.as_mut_ptr().cast(), buf.len());
        if n <= 0 {
            break;
        }
        for &byte in &buf[..n as usize] {
            if byte.is_ascii_digit() {
                number = number * 10 + (byte - b'0') as libc::pid_t;
            } else if number > 0 {
                f(number);
                number = 0;
            }
        }
    }
    if number > 0 {
        f(number);
    }
    libc::close(fd);
}

/// The fallback of [`for_each_child`] (kernels without `CONFIG_PROC_CHILDREN`).
pub(super) unsafe fn scan_proc(parent: libc::pid_t, f: &mut dyn FnMut(libc::pid_t)) {
    let dir = libc::open(c"/proc".as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC);
    if dir < 0 {
        return;
    }
    let mut entries = [0u8; 4096];
    loop {
        let n = libc::syscall(libc::SYS_getdents64, dir, entries.as_mut_ptr(), entries.len());
        if n <= 0 {
            break;
        }
        let mut at = 0usize;
        while at < n as usize {
            // struct linux_dirent64: d_ino u64, d_off i64, d_reclen u16, d_type u8, d_name[].
            let reclen = u16::from_ne_bytes([entries[at + 16], entries[at + 17]]) as usize;
            let name = &entries[at + 19..at + reclen];
            let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
            if let Some(pid) = parse_pid(name) {
                if parent_of(dir, name) == Some(parent) {
                    f(pid);
                }
            }
            at += reclen;
        }
    }
    libc::close(dir);
}

fn parse_pid(name: &[u8]) -> Option<libc::pid_t> {
    if name.is_empty() || name.len() > 9 || !name.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(name.iter().fold(0, |n, &b| n * 10 + (b - b'0') as libc::pid_t))
}

/// The parent pid in `/proc/<name>/stat` (the field after the state, after the last `)`).
unsafe fn parent_of(proc_dir: RawFd, name: &[u8]) -> Option<libc::pid_t> {
    let mut path = [0u8; 24];
    path[..name.len()].copy_from_slice(name);
    path[name.len()..name.len() + 5].copy_from_slice(b"/stat");
    let fd = libc::openat(proc_dir, path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return None;
    }
    let mut stat = [0u8; 512];
    let n = libc::read(fd, stat.as_mut_ptr().cast(), stat.len());
    libc::close(fd);
    let stat = &stat[..n.max(0) as usize];
    let after = stat.iter().rposition(|&b| b == b')')? + 1;
    // ") S 1234 ..." — skip the space, the state and the space after it.
    let fields = stat.get(after + 3..)?;
    let end = fields.iter().position(|&b| b == b' ')?;
    parse_pid(&fields[..end])
}

/// Closes every descriptor but the keeper's two pipe ends: the program's stdio (so rein sees
/// end of file once the program and everything it started are gone) and whatever else rein had
/// open when it forked (other spawns' pipes).
unsafe fn close_all_but(a: RawFd, b: RawFd) {
    let (low, high) = (a.min(b) as libc::c_uint, a.max(b) as libc::c_uint);
    let ranges = [(0, low.wrapping_sub(1)), (low + 1, high.wrapping_sub(1)), (high + 1, libc::c_uint::MAX)];
    for (first, last) in ranges {
        if first > last || (first == 0 && low == 0) {
            continue;
        }
        if libc::syscall(libc::SYS_close_range, first, last, 0) < 0 {
            // Before Linux 5.9: close them one by one, up to the descriptor limit.
            let mut limit: libc::rlimit = std::mem::zeroed();
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit);
            let last = last.min(limit.rlim_cur.min(1 << 20) as libc::c_uint);
            for fd in first..=last {
                libc::close(fd as RawFd);
            }
        }
    }
}

/// Ends the keeper the way the program ended: the same exit code, or the same signal.
unsafe fn exit_like(status: i32) -> ! {
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        let no_core = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        libc::setrlimit(libc::RLIMIT_CORE, &no_core);
        libc::signal(signal, libc::SIG_DFL);
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
        libc::kill(libc::getpid(), signal);
        libc::_exit(128 + signal);
    }
    libc::_exit(if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { 1 })
}

/// What the keeper tells rein: one line per straggler it names (`<pid> <name>`), then
/// `total <n>`.
struct Report {
    buf: [u8; 2048],
    len: usize,
    total: usize,
}

impl Report {
    fn new() -> Report {
        Report { buf: [0; 2048], len: 0, total: 0 }
    }

    /// Notes straggler `pid` (an unreaped child, so its `/proc` entry is its own).
    unsafe fn straggler(&mut self, pid: libc::pid_t) {
        self.total += 1;
        if self.total > NAMED {
            return;
        }
        let mut path = [0u8; 32];
        let mut at = 6;
        path[..6].copy_from_slice(b"/proc/");
        at += write_number(&mut path[at..], pid as usize);
        path[at..at + 5].copy_from_slice(b"/comm");
        let mut name = [0u8; 32];
        let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        let n = if fd < 0 { 0 } else { libc::read(fd, name.as_mut_ptr().cast(), name.len()).max(0) as usize };
        if fd >= 0 {
            libc::close(fd);
        }
        let n = if n > 0 && name[n - 1] == b'\n' { n - 1 } else { n };
        let name = &mut name[..n];
        for byte in name.iter_mut() {
            if !byte.is_ascii_graphic() {
                *byte = b'?';
            }
        }
        let mut line = [0u8; 64];
        let mut len = write_number(&mut line, pid as usize);
        line[len] = b' ';
        len += 1;
        line[len..len + name.len()].copy_from_slice(name);
        len += name.len();
        line[len] = b'\n';
        self.push(&line[..len + 1]);
    }

    fn push(&mut self, bytes: &[u8]) {
        if self.len + bytes.len() <= self.buf.len() {
            self.buf[self.len..self.len + bytes.len()].copy_from_slice(bytes);
            self.len += bytes.len();
        }
    }

    unsafe fn send(mut self, fd: RawFd) {
        let mut line = [0u8; 32];
        line[..6].copy_from_slice(b"total ");
        let len = 6 + write_number(&mut line[6..], self.total);
        line[len] = b'\n';
        self.push(&line[..len + 1]);
        let mut at = 0;
        while at < self.len {
            let n = libc::write(fd, self.buf[at..].as_ptr().cast(), self.len - at);
            if n <= 0 {
                break;
            }
            at += n as usize;
        }
        libc::close(fd);
    }
}

/// Writes `n` in decimal at the start of `out`; returns how many bytes.
fn write_number(out: &mut [u8], mut n: usize) -> usize {
    let mut digits = [0u8; 20];
    let mut count = 0;
    loop {
        digits[count] = b'0' + (n % 10) as u8;
        count += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for i in 0..count {
        out[i] = digits[count - 1 - i];
    }
    count
}

/// What the keeper's report says: how many stragglers it killed, and the names of the first.
pub fn parse_report(text: &str) -> (usize, Vec<String>) {
    let mut names = Vec::new();
    let mut total = 0;
    for line in text.lines() {
        match line.split_once(' ') {
            Some(("total", n)) => total = n.parse().unwrap_or(0),
            Some((_pid, name)) => names.push(name.to_string()),
            None => {}
        }
    }
    (total.max(names.len()), names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_reports_round_trip() {
        let mut out = [0u8; 20];
        let n = write_number(&mut out, 4_194_304);
        assert_eq!(&out[..n], b"4194304");
        let n = write_number(&mut out, 0);
        assert_eq!(&out[..n], b"0");
        assert_eq!(parse_report("12 sleep\n13 sh\ntotal 40\n"), (40, vec!["sleep".to_string(), "sh".to_string()]));
        assert_eq!(parse_report(""), (0, vec![]));
        assert_eq!(parse_pid(b"123"), Some(123));
        assert_eq!(parse_pid(b"self"), None);
    }

    #[test]
    fn the_proc_scan_finds_a_child_of_this_process() {
        let mut child = std::process::Command::new("sleep").arg("5").spawn().unwrap();
        let mut found = Vec::new();
        // SAFETY: plain system calls on stack buffers.
        unsafe { scan_proc(std::process::id() as libc::pid_t, &mut |pid| found.push(pid)) };
        child.kill().unwrap();
        child.wait().unwrap();
        assert!(found.contains(&(child.id() as libc::pid_t)), "{found:?}");
    }
}
