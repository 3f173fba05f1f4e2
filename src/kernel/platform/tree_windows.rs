//! A spawned program and everything it starts, as one: a Job Object that the program joins
//! before it runs a single instruction (it is created suspended, assigned, then resumed), so no
//! child it starts can escape; terminating the job stops the whole tree, and closing rein's
//! handle to it (`JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`) does too when rein lets go unfinished.
//!
//! When the program ends, whatever it left running in the job is ended too: nothing outlives
//! its spawn.
//!
//! Windows has no SIGTERM for console programs that rein could send to a tree, so "terminate"
//! and "kill" both end the job at once: a program past its deadline gets no grace period.
//! Type-checked in CI, not run (docs/src/platforms.md).

use std::os::windows::io::{AsRawHandle, OwnedHandle, RawHandle};
use std::process::ExitStatus;

use tokio::process::{Child, Command};
use windows_sys::Win32::Foundation::{
    CloseHandle, SetHandleInformation, HANDLE, HANDLE_FLAG_INHERIT, INVALID_HANDLE_VALUE,
};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, Thread32First, Thread32Next, TH32CS_SNAPTHREAD, THREADENTRY32,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectBasicAccountingInformation, JobObjectExtendedLimitInformation,
    QueryInformationJobObject, SetInformationJobObject, TerminateJobObject, JOBOBJECT_BASIC_ACCOUNTING_INFORMATION,
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
};

use super::tree::{BeforeExec, Stragglers};
use windows_sys::Win32::System::Threading::{OpenThread, ResumeThread, CREATE_SUSPENDED, THREAD_SUSPEND_RESUME};

/// The exit code a terminated tree reports.
const KILLED: u32 = 1;

/// The program's Job Object.
#[derive(Debug)]
pub struct ProcessTree {
    job: Option<Job>,
}

/// An owned job handle, closed (killing what is left in it) when dropped.
#[derive(Debug)]
struct Job(HANDLE);

// SAFETY: a job handle is a kernel object reference usable from any thread.
unsafe impl Send for Job {}
// SAFETY: the job is only passed to thread-safe kernel calls.
unsafe impl Sync for Job {}

impl Drop for Job {
    fn drop(&mut self) {
        // SAFETY: closing the handle this Job owns, once; KILL_ON_JOB_CLOSE ends what is left.
        unsafe { CloseHandle(self.0) };
    }
}

impl ProcessTree {
    /// Makes `cmd`'s child start suspended, so it can join the job before it runs, and keeps
    /// rein's own standard handles out of it. Nothing runs in the child before the program here
    /// (`before_exec` is never given on Windows).
    pub fn prepare(cmd: &mut Command, before_exec: Option<BeforeExec>) -> std::io::Result<Pending> {
        if before_exec.is_some() {
            return Err(std::io::Error::other("Windows programs cannot run work before they start"));
        }
        keep_own_stdio_from_children();
        cmd.creation_flags(CREATE_SUSPENDED);
        Ok(Pending)
    }

    /// Puts the `child` just spawned (suspended) in a new job, then lets it run. On failure the
    /// child is killed: a program that cannot be contained does not run.
    pub fn adopt(_pending: Pending, child: &Child) -> std::io::Result<ProcessTree> {
        let (Some(process), Some(pid)) = (child.raw_handle(), child.id()) else {
            return Err(std::io::Error::other("the program exited before it could join its job"));
        };
        let job = new_job()?;
        // SAFETY: both handles are open; the process is suspended and ours.
        if unsafe { AssignProcessToJobObject(job.0, process as HANDLE) } == 0 {
            let err = std::io::Error::last_os_error();
            kill_process(process);
            return Err(err);
        }
        let tree = ProcessTree { job: Some(job) };
        if let Err(err) = resume_threads(pid) {
            tree.kill();
            return Err(err);
        }
        Ok(tree)
    }

    /// Puts a program started suspended by rein's own `CreateProcessAsUserW`
    /// (`token_windows::start_suspended`) in a new job, then resumes its thread. On failure the
    /// process is killed: a program that cannot be contained does not run.
    pub fn contain(process: &OwnedHandle, thread: &OwnedHandle) -> std::io::Result<ProcessTree> {
        let job = new_job()?;
        // SAFETY: both handles are open; the process is suspended and ours.
        if unsafe { AssignProcessToJobObject(job.0, process.as_raw_handle()) } == 0 {
            let err = std::io::Error::last_os_error();
            kill_process(process.as_raw_handle());
            return Err(err);
        }
        let tree = ProcessTree { job: Some(job) };
        // SAFETY: the thread handle is open, with THREAD_SUSPEND_RESUME (CreateProcess gives all).
        if unsafe { ResumeThread(thread.as_raw_handle()) } == u32::MAX {
            let err = std::io::Error::last_os_error();
            tree.kill();
            return Err(err);
        }
        Ok(tree)
    }

    /// Stops the whole tree (Windows gives no gentler way for a whole tree).
    pub fn terminate(&self) {
        self.kill();
    }

    /// Stops the whole tree now.
    pub fn kill(&self) {
        if let Some(job) = &self.job {
            // SAFETY: the job handle is open; ending a job that is empty is harmless.
            unsafe { TerminateJobObject(job.0, KILLED) };
        }
    }

    /// The program ended: what it left running in the job is ended too, and counted.
    pub fn finish(self) -> Stragglers {
        let count = self.job.as_ref().map_or(0, active_processes);
        self.kill();
        Stragglers { count, names: Vec::new() }
    }
}

/// How many processes still run in the job.
fn active_processes(job: &Job) -> usize {
    let mut info = JOBOBJECT_BASIC_ACCOUNTING_INFORMATION::default();
    // SAFETY: `info` is the structure the class names, of the size passed.
    let ok = unsafe {
        QueryInformationJobObject(
            job.0,
            JobObjectBasicAccountingInformation,
            (&mut info as *mut JOBOBJECT_BASIC_ACCOUNTING_INFORMATION).cast(),
            std::mem::size_of::<JOBOBJECT_BASIC_ACCOUNTING_INFORMATION>() as u32,
            std::ptr::null_mut(),
        )
    };
    if ok == 0 {
        0
    } else {
        info.ActiveProcesses as usize
    }
}

/// Puts this process (a kept program's holder) in a Job Object of its own that ends everything
/// in it when its last handle closes (`JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`, Microsoft Learn
/// "JOBOBJECT_BASIC_LIMIT_INFORMATION": "Causes all processes associated with the job to
/// terminate when the last handle to the job is closed"). The only handle is this process's,
/// kept open for its whole life and never inherited: when the holder ends — its program
/// ended, or `rein stop` terminated it — the program and all it started end with it. Done
/// before the program is started, so the program is born in the job (a child joins its
/// parent's job) and cannot leave it (the job sets no breakaway limit).
pub fn join_own_job() -> std::io::Result<()> {
    use windows_sys::Win32::System::Threading::GetCurrentProcess;
    let job = new_job()?;
    // SAFETY: an open job handle and this process's pseudo-handle.
    if unsafe { AssignProcessToJobObject(job.0, GetCurrentProcess()) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    // Open until this process ends: closing it would end the program.
    std::mem::forget(job);
    Ok(())
}

/// Nothing to carry from `prepare` to `adopt` here.
#[derive(Debug)]
pub struct Pending;

impl Drop for ProcessTree {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Marks rein's own stdin, stdout and stderr not inheritable, once. When rein was started with
/// pipes (as an MCP client starts `rein serve`), those handles are inheritable, and Windows
/// hands every inheritable handle to each process created with inheritance — which Rust's std
/// always asks for, and so do the programs rein runs for theirs: a program (hvigorw runs the
/// project's `hvigorfile.ts`) could write answers rein never gave into the MCP stream, or read
/// requests meant for rein. A child that is to share them gets its own inheritable duplicate
/// from std (`Stdio::inherit`), so nothing else changes.
fn keep_own_stdio_from_children() {
    static DONE: std::sync::Once = std::sync::Once::new();
    DONE.call_once(|| {
        use std::os::windows::io::AsRawHandle;
        let handles =
            [std::io::stdin().as_raw_handle(), std::io::stdout().as_raw_handle(), std::io::stderr().as_raw_handle()];
        for handle in handles {
            if !handle.is_null() {
                // SAFETY: a standard handle of this process (an invalid one makes the call fail,
                // which leaves nothing to hand on); only its inherit flag changes.
                unsafe { SetHandleInformation(handle as HANDLE, HANDLE_FLAG_INHERIT, 0) };
            }
        }
    });
}

fn new_job() -> std::io::Result<Job> {
    // SAFETY: an unnamed job with default security; a null result is checked.
    let handle = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
    if handle.is_null() {
        return Err(std::io::Error::last_os_error());
    }
    let job = Job(handle);
    set_limits(&job, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE)?;
    Ok(job)
}

fn set_limits(job: &Job, flags: u32) -> std::io::Result<()> {
    let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
    limits.BasicLimitInformation.LimitFlags = flags;
    // SAFETY: `limits` is the structure the class names, of the size passed.
    let ok = unsafe {
        SetInformationJobObject(
            job.0,
            JobObjectExtendedLimitInformation,
            (&limits as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
            std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
        )
    };
    if ok == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Resumes every thread of process `pid` (a process created suspended has one).
fn resume_threads(pid: u32) -> std::io::Result<()> {
    // SAFETY: a snapshot of all threads; an invalid handle is checked and the handle closed.
    let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
    if snapshot == INVALID_HANDLE_VALUE {
        return Err(std::io::Error::last_os_error());
    }
    let mut entry = THREADENTRY32 { dwSize: std::mem::size_of::<THREADENTRY32>() as u32, ..Default::default() };
    let mut resumed = 0;
    // SAFETY: `entry` has its size set, as Thread32First/Next require.
    let mut more = unsafe { Thread32First(snapshot, &mut entry) } != 0;
    while more {
        if entry.th32OwnerProcessID == pid {
            // SAFETY: opening a thread of our own child to resume it; the handle is closed.
            let thread = unsafe { OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID) };
            if !thread.is_null() {
                // SAFETY: `thread` is open with THREAD_SUSPEND_RESUME.
                if unsafe { ResumeThread(thread) } != u32::MAX {
                    resumed += 1;
                }
                // SAFETY: closing the handle opened above.
                unsafe { CloseHandle(thread) };
            }
        }
        // SAFETY: as above.
        more = unsafe { Thread32Next(snapshot, &mut entry) } != 0;
    }
    // SAFETY: closing the snapshot handle.
    unsafe { CloseHandle(snapshot) };
    if resumed == 0 {
        return Err(std::io::Error::other("could not resume the program after putting it in its job"));
    }
    Ok(())
}

fn kill_process(process: RawHandle) {
    use windows_sys::Win32::System::Threading::TerminateProcess;
    // SAFETY: the handle belongs to our child, still open (tokio holds it).
    unsafe { TerminateProcess(process as HANDLE, KILLED) };
}

/// How a program ended, beyond its exit code.
pub struct ExitInfo;

impl ExitInfo {
    /// Windows programs are not ended by signals.
    pub fn signal(_status: &ExitStatus) -> Option<i32> {
        None
    }
}
