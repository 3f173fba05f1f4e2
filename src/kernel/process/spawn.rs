//! Running a toolchain program: argv only (never a shell), its own process tree in a session
//! of its own (Linux: a keeper process that is its subreaper; macOS: a process group; Windows: a
//! Job Object: `platform::tree_*`), a cleared environment, a deadline after which the whole tree
//! is stopped, bounded output streamed line by line to the caller — and when the program ends,
//! nothing it started is left running.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::process::Command;

use super::capture::Capture;
use crate::kernel::platform::tree::BeforeExec;
use crate::kernel::platform::{ExitInfo, ProcessTree};
pub use crate::kernel::reported::SpawnOutput;
use crate::visible::shown_path;

/// Time between TERM and KILL when a program overstays its deadline.
const TERM_GRACE: Duration = Duration::from_secs(2);
/// How long pipes may stay open after the program exited (a stray grandchild holding them).
const PIPE_GRACE: Duration = Duration::from_secs(2);
/// Lines longer than this are passed to the line callback in pieces.
const MAX_LINE: usize = 64 * 1024;

#[derive(Debug, Clone)]
pub struct SpawnRequest {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub cwd: PathBuf,
    /// The complete environment (already filtered).
    pub env: Vec<(String, String)>,
    pub stdin: Option<Vec<u8>>,
    pub timeout: Duration,
    /// Bytes kept per stream (head and tail).
    pub output_limit: usize,
    /// Windows: the capability SID of the write-restricted token the program runs with
    /// (`confine::Plan::RestrictedToken`); its ACL entries are in place before the spawn.
    pub restricted: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    Stdout,
    Stderr,
}

#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("cannot start {program}: {source}")]
    Start { program: String, source: std::io::Error },
    #[error("lost track of {program}: {source}")]
    Wait { program: String, source: std::io::Error },
    /// The line callback asked to stop; the program's group was killed.
    #[error("stopped: {0}")]
    Stopped(StopReason),
}

/// Why a line callback asked to stop the program (its own error, or a tripped budget).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StopReason(pub String);

/// Receives each output line as it arrives; an error stops the program.
pub type OnLine<'a> = dyn FnMut(Stream, &str) -> Result<(), StopReason> + Send + 'a;

/// What watches a spawn from outside its process tree (the kernel's watch for planted
/// repositories, `process::planted`).
#[derive(Default)]
pub struct Oversight {
    /// Resolves when the program must be stopped, with why.
    pub stop: Option<Pin<Box<dyn Future<Output = StopReason> + Send>>>,
    /// Runs once the program and everything it started have ended, however the run ends: an
    /// exit, a timeout, a stop, or the run dropped half-way (a cancelled call).
    pub after_end: Option<Box<dyn FnOnce() + Send>>,
}

/// The process tree, and what runs once it is gone. Fields drop in order: the tree first
/// (killed, and on Linux waited for), then `after_end`.
struct Tree {
    tree: Option<ProcessTree>,
    after_end: Option<Box<dyn FnOnce() + Send>>,
}

impl Drop for Tree {
    fn drop(&mut self) {
        drop(self.tree.take());
        if let Some(after_end) = self.after_end.take() {
            after_end();
        }
    }
}

/// Runs the request to completion (or its deadline). `on_line` sees every output line as it
/// arrives; returning an error stops the program.
pub async fn run(request: &SpawnRequest, on_line: &mut OnLine<'_>) -> Result<SpawnOutput, SpawnError> {
    run_confined(request, None, Oversight::default(), on_line).await
}

/// [`run`], the child doing `before_exec` (its confinement, prepared before the fork) just
/// before it executes the program, under `oversight`.
pub async fn run_confined(
    request: &SpawnRequest,
    before_exec: Option<BeforeExec>,
    oversight: Oversight,
    on_line: &mut OnLine<'_>,
) -> Result<SpawnOutput, SpawnError> {
    let started = Instant::now();
    let program = shown_path(&request.program);
    let start_error = |source| SpawnError::Start { program: program.clone(), source };
    let Oversight { stop, after_end } = oversight;
    let mut tree = Tree { tree: None, after_end };
    // The whole tree is killed if the run is abandoned (cancelled, or an error): ProcessTree's
    // Drop.
    let (group, running) = start(request, before_exec).map_err(start_error)?;
    let group = tree.tree.insert(group);
    let Running { stdin, stdout, stderr, mut exit } = running;
    if let (Some(input), Some(mut stdin)) = (request.stdin.clone(), stdin) {
        tokio::spawn(async move {
            // A program that exits without reading its input closes the pipe; that is its call.
            let _ = stdin.write_all(&input).await;
            let _ = stdin.flush().await;
        });
    }
    let mut pump = Pump::new(request.output_limit);
    let status = pump.drive((stdout, stderr), &mut exit, group, request.timeout, stop, on_line).await;
    let status = match status {
        Ok(status) => status,
        Err(PumpError::Wait(source)) => return Err(SpawnError::Wait { program, source }),
        Err(PumpError::Stopped(reason)) => return Err(SpawnError::Stopped(reason)),
    };
    let stragglers = tree.tree.take().expect("the tree is there until here").finish();
    let dropped = pump.out.dropped() + pump.err.dropped();
    Ok(SpawnOutput {
        code: status.code(),
        signal: ExitInfo::signal(&status),
        stdout: pump.out.into_text(),
        stderr: pump.err.into_text(),
        timed_out: pump.timed_out,
        duration_ms: started.elapsed().as_millis() as u64,
        truncated: dropped > 0,
        dropped_bytes: dropped,
        stragglers: stragglers.count,
        straggler_names: stragglers.names,
    })
}

/// A started program's pipe it writes to, as the pump reads it.
type Output = Pin<Box<dyn AsyncRead + Send>>;
/// A started program's end, as the pump waits for it.
type Exit = Pin<Box<dyn Future<Output = std::io::Result<ExitStatus>> + Send>>;

/// A started program as the pump sees it: its pipes, and its exit.
struct Running {
    stdin: Option<Pin<Box<dyn AsyncWrite + Send>>>,
    stdout: Option<Output>,
    stderr: Option<Output>,
    exit: Exit,
}

/// Starts the program in its process tree: with `std`'s `Command`, or (Windows, a restricted
/// token) with `CreateProcessAsUserW`.
fn start(request: &SpawnRequest, before_exec: Option<BeforeExec>) -> std::io::Result<(ProcessTree, Running)> {
    if let Some(sid) = &request.restricted {
        return start_restricted(request, sid);
    }
    let mut cmd = command(request);
    let pending = ProcessTree::prepare(&mut cmd, before_exec)?;
    let mut child = cmd.spawn()?;
    let group = ProcessTree::adopt(pending, &child)?;
    let running = Running {
        stdin: child.stdin.take().map(|p| Box::pin(p) as Pin<Box<dyn AsyncWrite + Send>>),
        stdout: child.stdout.take().map(|p| Box::pin(p) as Output),
        stderr: child.stderr.take().map(|p| Box::pin(p) as Output),
        exit: Box::pin(async move { child.wait().await }),
    };
    Ok((group, running))
}

/// Windows: the program runs with a write-restricted token of capability SID `sid`, created
/// suspended and put in its Job Object before it runs (`platform::token_windows`). Its pipes are
/// plain anonymous pipes, read on blocking threads as tokio reads a child's pipes on Windows.
#[cfg(windows)]
fn start_restricted(request: &SpawnRequest, sid: &str) -> std::io::Result<(ProcessTree, Running)> {
    use super::windows_launch::{command_line, environment_block};
    use crate::kernel::platform::token_windows::{self, RestrictedToken};
    let invalid = |e: super::windows_launch::LaunchError| std::io::Error::new(std::io::ErrorKind::InvalidInput, e);
    let line = command_line(&request.program, &request.args).map_err(invalid)?;
    let env = environment_block(&request.env).map_err(invalid)?;
    let token = RestrictedToken::new(sid)?;
    let launch = token_windows::Launch { program: &request.program, command_line: &line, env: &env, cwd: &request.cwd };
    let started = token_windows::start_suspended(&token, &launch)?;
    let group = ProcessTree::contain(&started.process, &started.thread)?;
    let file = |handle: std::os::windows::io::OwnedHandle| tokio::fs::File::from_std(std::fs::File::from(handle));
    let stdin = request.stdin.is_some().then_some(started.stdin).map(file);
    let process = started.process;
    let exit = async move {
        tokio::task::spawn_blocking(move || token_windows::wait(&process)).await.map_err(std::io::Error::other)?
    };
    let running = Running {
        stdin: stdin.map(|p| Box::pin(p) as Pin<Box<dyn AsyncWrite + Send>>),
        stdout: Some(Box::pin(file(started.stdout))),
        stderr: Some(Box::pin(file(started.stderr))),
        exit: Box::pin(exit),
    };
    Ok((group, running))
}

#[cfg(not(windows))]
fn start_restricted(_request: &SpawnRequest, _sid: &str) -> std::io::Result<(ProcessTree, Running)> {
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "restricted tokens exist only on Windows"))
}

fn command(request: &SpawnRequest) -> Command {
    let mut cmd = Command::new(&request.program);
    cmd.args(&request.args)
        .current_dir(&request.cwd)
        .env_clear()
        .envs(request.env.iter().map(|(k, v)| (k, v)))
        .stdin(if request.stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

enum PumpError {
    Wait(std::io::Error),
    Stopped(StopReason),
}

/// Moves output from the pipes into the captures and the callback until the program is done.
struct Pump {
    out: Capture,
    err: Capture,
    out_line: Vec<u8>,
    err_line: Vec<u8>,
    timed_out: bool,
}

impl Pump {
    fn new(limit: usize) -> Pump {
        Pump {
            out: Capture::new(limit),
            err: Capture::new(limit),
            out_line: Vec::new(),
            err_line: Vec::new(),
            timed_out: false,
        }
    }

    async fn drive(
        &mut self,
        (mut stdout, mut stderr): (Option<Output>, Option<Output>),
        exit: &mut Exit,
        group: &ProcessTree,
        timeout: Duration,
        stop: Option<Pin<Box<dyn Future<Output = StopReason> + Send>>>,
        on_line: &mut OnLine<'_>,
    ) -> Result<ExitStatus, PumpError> {
        let mut stop = stop.unwrap_or_else(|| Box::pin(std::future::pending()));
        let (mut out_buf, mut err_buf) = (vec![0u8; 64 * 1024], vec![0u8; 64 * 1024]);
        let far = tokio::time::Instant::now() + Duration::from_secs(10 * 365 * 24 * 3600);
        let mut deadline = tokio::time::Instant::now() + timeout;
        let mut kill_at = far;
        let mut pipes_until = far;
        let mut status = None;
        while status.is_none() || stdout.is_some() || stderr.is_some() {
            tokio::select! {
                read = read_some(&mut stdout, &mut out_buf) => {
                    self.take(Stream::Stdout, read, &out_buf, &mut stdout, on_line).map_err(PumpError::Stopped)?;
                }
                read = read_some(&mut stderr, &mut err_buf) => {
                    self.take(Stream::Stderr, read, &err_buf, &mut stderr, on_line).map_err(PumpError::Stopped)?;
                }
                exit = exit.as_mut(), if status.is_none() => {
                    status = Some(exit.map_err(PumpError::Wait)?);
                    pipes_until = tokio::time::Instant::now() + PIPE_GRACE;
                }
                _ = tokio::time::sleep_until(deadline), if !self.timed_out => {
                    self.timed_out = true;
                    group.terminate();
                    kill_at = tokio::time::Instant::now() + TERM_GRACE;
                    deadline = far;
                }
                _ = tokio::time::sleep_until(kill_at) => {
                    group.kill();
                    kill_at = far;
                }
                reason = &mut stop => {
                    return Err(PumpError::Stopped(reason));
                }
                _ = tokio::time::sleep_until(pipes_until) => {
                    // The program is gone but something it started still holds the pipes.
                    group.kill();
                    break;
                }
            }
        }
        self.flush(on_line).map_err(PumpError::Stopped)?;
        Ok(status.expect("the loop ends only after the program exited"))
    }

    fn take(
        &mut self,
        stream: Stream,
        read: std::io::Result<usize>,
        buf: &[u8],
        pipe: &mut Option<impl Sized>,
        on_line: &mut OnLine<'_>,
    ) -> Result<(), StopReason> {
        let n = match read {
            Ok(0) | Err(_) => {
                *pipe = None;
                return Ok(());
            }
            Ok(n) => n,
        };
        let bytes = &buf[..n];
        let (capture, line) = match stream {
            Stream::Stdout => (&mut self.out, &mut self.out_line),
            Stream::Stderr => (&mut self.err, &mut self.err_line),
        };
        capture.push(bytes);
        split_lines(line, bytes, |text| on_line(stream, text))
    }

    fn flush(&mut self, on_line: &mut OnLine<'_>) -> Result<(), StopReason> {
        for (stream, line) in [(Stream::Stdout, &mut self.out_line), (Stream::Stderr, &mut self.err_line)] {
            if !line.is_empty() {
                on_line(stream, &String::from_utf8_lossy(line))?;
                line.clear();
            }
        }
        Ok(())
    }
}

/// Reads from an open pipe; a closed one never completes, so `select!` skips it.
async fn read_some<R: tokio::io::AsyncRead + Unpin>(pipe: &mut Option<R>, buf: &mut [u8]) -> std::io::Result<usize> {
    match pipe {
        Some(reader) => reader.read(buf).await,
        None => std::future::pending().await,
    }
}

/// Appends `bytes` to the pending `line` and emits every complete line (without "\n"/"\r\n").
fn split_lines(
    line: &mut Vec<u8>,
    mut bytes: &[u8],
    mut emit: impl FnMut(&str) -> Result<(), StopReason>,
) -> Result<(), StopReason> {
    while let Some(at) = memchr::memchr(b'\n', bytes) {
        line.extend_from_slice(&bytes[..at]);
        let text = line.strip_suffix(b"\r").unwrap_or(line);
        emit(&String::from_utf8_lossy(text))?;
        line.clear();
        bytes = &bytes[at + 1..];
    }
    line.extend_from_slice(bytes);
    if line.len() >= MAX_LINE {
        emit(&String::from_utf8_lossy(line))?;
        line.clear();
    }
    Ok(())
}
