//! A process rein started to outlive it (a kept program's holder), found again by its id and
//! its creation time: an id alone may name a later process Windows gave the same number, so
//! every look and every termination first checks the creation time `start_detached` recorded.
//! The handle opened for that check is the one terminated, so the process cannot change
//! between the check and the end.

use std::os::windows::io::{FromRawHandle, OwnedHandle};
use std::time::Duration;

use windows_sys::Win32::Foundation::{STILL_ACTIVE, WAIT_OBJECT_0};
use windows_sys::Win32::System::Threading::{
    GetExitCodeProcess, OpenProcess, TerminateProcess, WaitForSingleObject, PROCESS_QUERY_LIMITED_INFORMATION,
    PROCESS_SYNCHRONIZE, PROCESS_TERMINATE,
};

use super::token_windows::created_at;

/// The exit code a terminated holder reports.
const ENDED: u32 = 1;

/// Process `pid`, if it runs and was created at `created`.
fn open(pid: u32, created: u64, rights: u32) -> Option<OwnedHandle> {
    // SAFETY: opens a handle with the rights asked; a null result is checked, the handle owned.
    let handle = unsafe { OpenProcess(rights | PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if handle.is_null() {
        return None;
    }
    // SAFETY: a handle just opened, owned from here on.
    let process = unsafe { OwnedHandle::from_raw_handle(handle) };
    let mut code = 0u32;
    // SAFETY: an open handle and an out pointer.
    let running = unsafe { GetExitCodeProcess(handle, &mut code) } != 0 && code == STILL_ACTIVE as u32;
    (running && created_at(&process).ok() == Some(created)).then_some(process)
}

/// Whether process `pid`, created at `created`, still runs.
pub fn runs(pid: u32, created: u64) -> bool {
    open(pid, created, 0).is_some()
}

/// Terminates process `pid` if it is the one created at `created` and runs, and waits up to
/// `wait` for it to be gone; whether it is gone (true when it had ended already).
pub fn end(pid: u32, created: u64, wait: Duration) -> bool {
    let Some(process) = open(pid, created, PROCESS_TERMINATE | PROCESS_SYNCHRONIZE) else { return true };
    use std::os::windows::io::AsRawHandle;
    // SAFETY: an open handle with PROCESS_TERMINATE; the process was checked to be ours above.
    unsafe { TerminateProcess(process.as_raw_handle(), ENDED) };
    let millis = u32::try_from(wait.as_millis()).unwrap_or(u32::MAX);
    // SAFETY: an open handle with SYNCHRONIZE.
    unsafe { WaitForSingleObject(process.as_raw_handle(), millis) == WAIT_OBJECT_0 }
}
