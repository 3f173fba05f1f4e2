//! Whether a process still runs: temp files carry their writer's process id, and only those
//! of writers that are gone are swept.

/// True when process `pid` exists (or may: when in doubt, its files are left alone).
#[cfg(unix)]
pub fn process_alive(pid: u32) -> bool {
    // Not a pid this OS can have: not rein's debris to judge, so left alone.
    let Ok(pid) = i32::try_from(pid) else { return true };
    // SAFETY: signal 0 only checks that the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// True when process `pid` exists (or may: when in doubt, its files are left alone).
#[cfg(windows)]
pub fn process_alive(pid: u32) -> bool {
    use windows_sys::Win32::Foundation::{CloseHandle, ERROR_INVALID_PARAMETER, STILL_ACTIVE};
    use windows_sys::Win32::System::Threading::{GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION};
    // SAFETY: opens a handle for querying only, closed below; a null handle is checked.
    let handle = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
    if handle.is_null() {
        // No such process; any other failure (access denied) means it exists.
        return std::io::Error::last_os_error().raw_os_error() != Some(ERROR_INVALID_PARAMETER as i32);
    }
    let mut code = 0u32;
    // SAFETY: `handle` is open; `code` is a valid out pointer.
    let ok = unsafe { GetExitCodeProcess(handle, &mut code) };
    // SAFETY: closing the handle opened above, once.
    unsafe { CloseHandle(handle) };
    ok == 0 || code == STILL_ACTIVE as u32
}
