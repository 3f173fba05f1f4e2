//! `rein hold --id <id> -- <program> <args…>`: the holder of a kept program. It runs in a
//! session of its own, started by the kernel with the program's confinement already applied
//! (`start`), its stdout and stderr being the program's log. It starts the program as its
//! child, copies the program's output into the log (capped, `log_cap`), and stays the
//! program's parent until the program ends — a program that watches its launcher (an
//! emulator that exits when it loses its client) never sees it go. `rein stop` ends it with the program's
//! own stop, then their process group (Unix) or the holder, whose own Job Object then ends the
//! program and all it started (Windows: `platform::join_own_job`).
//!
//! Plain threads and std only: no runtime, nothing but pipes, a child and the log.

use std::fs::File;
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::log_cap::LogCap;
use super::LOG_LIMIT;

/// How long the pipes may stay open after the program ended (something it started holds them).
const PIPE_GRACE: Duration = Duration::from_secs(2);

/// Why a holder could not start holding: the caller (the CLI) says so on stderr.
#[derive(Debug)]
pub enum HoldRefused {
    /// Not started as rein starts a holder.
    Usage,
    /// Its stdout (the program's log) could not be taken.
    NoLog {
        /// The kept program's id.
        id: String,
        /// Why its stdout could not be taken.
        source: std::io::Error,
    },
}

impl std::fmt::Display for HoldRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HoldRefused::Usage => write!(
                f,
                "rein hold is started by rein for a kept program (rein ps lists them); it takes --id ID -- PROGRAM ARGS…"
            ),
            HoldRefused::NoLog { id, source } => write!(f, "rein hold {id}: no log to write: {source}"),
        }
    }
}

impl std::error::Error for HoldRefused {}

/// Runs the holder with `argv` (what follows `rein hold`); returns the exit code, or why it
/// could not begin.
pub fn hold(argv: &[String]) -> Result<u8, HoldRefused> {
    let (id, program, args) = match argv {
        [flag, id, dashes, program, args @ ..] if flag == "--id" && dashes == "--" => (id, program, args),
        _ => return Err(HoldRefused::Usage),
    };
    let log = stdout_file().map_err(|source| HoldRefused::NoLog { id: id.clone(), source })?;
    let mut log = LogCap::new(log, LOG_LIMIT);
    let say = |log: &mut LogCap, text: String| log.push(format!("[rein hold {id}] {text}\n").as_bytes());
    // Windows: the program is born in the holder's own job, so it ends with the holder
    // (`platform::join_own_job`); a program that could not be held so does not start.
    #[cfg(windows)]
    if let Err(e) = crate::kernel::platform::join_own_job() {
        say(&mut log, format!("cannot make a Job Object to hold {program} in: {e}"));
        log.flush();
        return Ok(1);
    }
    let mut child = match Command::new(program)
        .args(args)
        .env(super::KEPT_MARK, id)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) => {
            say(&mut log, format!("cannot start {program}: {e}"));
            log.flush();
            return Ok(1);
        }
    };
    say(&mut log, format!("{program} started as process {}", child.id()));
    let (sender, received) = mpsc::channel::<Vec<u8>>();
    let mut readers = Vec::new();
    let pipes: [Option<Box<dyn Read + Send>>; 2] = [
        child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>),
        child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>),
    ];
    for mut pipe in pipes.into_iter().flatten() {
        let sender = sender.clone();
        readers.push(std::thread::spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 || sender.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        }));
    }
    drop(sender);
    let mut ended = None;
    let mut give_up = None;
    loop {
        match received.recv_timeout(Duration::from_millis(200)) {
            Ok(bytes) => log.push(&bytes),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => log.flush(),
        }
        if ended.is_none() {
            if let Ok(Some(status)) = child.try_wait() {
                ended = Some(status);
                give_up = Some(std::time::Instant::now() + PIPE_GRACE);
            }
        }
        if give_up.is_some_and(|at| std::time::Instant::now() > at) {
            break;
        }
    }
    let status = match ended {
        Some(status) => Ok(status),
        None => child.wait(),
    };
    match status {
        Ok(status) => say(&mut log, format!("{program} ended: {}", described(&status))),
        Err(e) => say(&mut log, format!("lost track of {program}: {e}")),
    }
    log.flush();
    Ok(0)
}

/// The log rein opened for the holder: its stdout, as a file it can rewrite (`log_cap`).
#[cfg(unix)]
fn stdout_file() -> std::io::Result<File> {
    use std::os::fd::AsFd;
    Ok(File::from(std::io::stdout().as_fd().try_clone_to_owned()?))
}

#[cfg(windows)]
fn stdout_file() -> std::io::Result<File> {
    use std::os::windows::io::AsHandle;
    Ok(File::from(std::io::stdout().as_handle().try_clone_to_owned()?))
}

fn described(status: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(status) {
        return format!("signal {signal}");
    }
    match status.code() {
        Some(code) => format!("exit code {code}"),
        None => "no exit code".to_string(),
    }
}
