//! Windows confinement's Win32 calls, kept to what cannot be decided elsewhere
//! (`process::windows_acl` decides which entries, `process::windows_launch` builds the command
//! line and environment): a write-restricted token, the ACL entries of its capability SID, and a
//! program started with the token, suspended, so that it joins its Job Object before it runs.
//!
//! The token (`CreateRestrictedToken` with `DISABLE_MAX_PRIVILEGE | WRITE_RESTRICTED`): every
//! write the program asks for must also be allowed to one of its restricting SIDs — the spawn's
//! capability SID, which only rein's entries name, and (as OpenAI Codex's
//! `codex-rs/windows-sandbox-rs/src/token.rs` does) Everyone and the logon session, so that what
//! every program may write (the console, the NUL device, its own pipes) stays writable. Reads are
//! not restricted. Type-checked in CI, never run here: Wine makes the token but enforces nothing
//! (docs/src/platform-confinement.md).

use std::ffi::c_void;
use std::os::windows::ffi::OsStrExt;
use std::os::windows::io::{AsRawHandle, FromRawHandle, OwnedHandle};
use std::path::Path;

use windows_sys::Win32::Foundation::{
    LocalFree, SetHandleInformation, ERROR_ACCESS_DENIED, ERROR_FILE_NOT_FOUND, ERROR_PATH_NOT_FOUND, ERROR_SUCCESS,
    HANDLE, HANDLE_FLAG_INHERIT, WAIT_OBJECT_0,
};
use windows_sys::Win32::Security::Authorization::{
    ConvertStringSidToSidW, GetNamedSecurityInfoW, SetEntriesInAclW, SetNamedSecurityInfoW, DENY_ACCESS,
    EXPLICIT_ACCESS_W, GRANT_ACCESS, REVOKE_ACCESS, SE_FILE_OBJECT, TRUSTEE_IS_SID, TRUSTEE_IS_UNKNOWN, TRUSTEE_W,
};
use windows_sys::Win32::Security::{
    CreateRestrictedToken, CreateWellKnownSid, GetSecurityDescriptorControl, GetTokenInformation, TokenGroups,
    WinWorldSid, ACL, DACL_SECURITY_INFORMATION, DISABLE_MAX_PRIVILEGE, PROTECTED_DACL_SECURITY_INFORMATION,
    SE_DACL_PROTECTED, SID_AND_ATTRIBUTES, SUB_CONTAINERS_AND_OBJECTS_INHERIT, TOKEN_ADJUST_DEFAULT,
    TOKEN_ADJUST_PRIVILEGES, TOKEN_ADJUST_SESSIONID, TOKEN_ASSIGN_PRIMARY, TOKEN_DUPLICATE, TOKEN_GROUPS, TOKEN_QUERY,
    UNPROTECTED_DACL_SECURITY_INFORMATION, WRITE_RESTRICTED,
};
use windows_sys::Win32::Storage::FileSystem::{
    DELETE, FILE_APPEND_DATA, FILE_DELETE_CHILD, FILE_GENERIC_EXECUTE, FILE_GENERIC_READ, FILE_GENERIC_WRITE,
    FILE_WRITE_ATTRIBUTES, FILE_WRITE_DATA, FILE_WRITE_EA, WRITE_DAC, WRITE_OWNER,
};
use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
use windows_sys::Win32::System::Pipes::CreatePipe;
use windows_sys::Win32::System::SystemServices::SE_GROUP_LOGON_ID;
use windows_sys::Win32::System::Threading::{
    CreateProcessAsUserW, DeleteProcThreadAttributeList, GetCurrentProcess, GetExitCodeProcess, GetProcessId,
    InitializeProcThreadAttributeList, OpenProcessToken, UpdateProcThreadAttribute, WaitForSingleObject,
    CREATE_SUSPENDED, CREATE_UNICODE_ENVIRONMENT, EXTENDED_STARTUPINFO_PRESENT, INFINITE, PROCESS_INFORMATION,
    PROC_THREAD_ATTRIBUTE_HANDLE_LIST, STARTF_USESTDHANDLES, STARTUPINFOEXW,
};

/// What a write entry allows the capability SID on a folder and all beneath it (as Codex's
/// `acl.rs` grants: read, write, run, delete).
const WRITE_MASK: u32 = FILE_GENERIC_READ | FILE_GENERIC_WRITE | FILE_GENERIC_EXECUTE | DELETE | FILE_DELETE_CHILD;
/// What a deny entry takes away: every kind of write, delete, and changing the entries
/// themselves. Never READ_CONTROL or SYNCHRONIZE (both in FILE_GENERIC_WRITE), which reading
/// needs.
const DENY_MASK: u32 = FILE_WRITE_DATA
    | FILE_APPEND_DATA
    | FILE_WRITE_EA
    | FILE_WRITE_ATTRIBUTES
    | DELETE
    | FILE_DELETE_CHILD
    | WRITE_DAC
    | WRITE_OWNER;

/// True under Wine (its ntdll exports `wine_get_version`), which makes tokens and ACLs but
/// enforces neither.
pub fn under_wine() -> bool {
    let ntdll = wide(Path::new("ntdll.dll"));
    // SAFETY: ntdll is loaded in every process; the name is NUL-terminated; a null result is checked.
    let module = unsafe { GetModuleHandleW(ntdll.as_ptr()) };
    // SAFETY: a loaded module and a NUL-terminated name.
    !module.is_null() && unsafe { GetProcAddress(module, c"wine_get_version".as_ptr().cast()) }.is_some()
}

/// A SID parsed from its string form, freed with `LocalFree`.
struct Sid(*mut c_void);

impl Sid {
    fn parse(text: &str) -> std::io::Result<Sid> {
        let text = wide(Path::new(text));
        let mut sid = std::ptr::null_mut();
        // SAFETY: a NUL-terminated string and an out pointer; the SID is freed in Drop.
        if unsafe { ConvertStringSidToSidW(text.as_ptr(), &mut sid) } == 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Sid(sid))
    }
}

impl Drop for Sid {
    fn drop(&mut self) {
        // SAFETY: allocated by ConvertStringSidToSidW, freed once.
        unsafe { LocalFree(self.0) };
    }
}

/// A write-restricted primary token for one spawn.
pub struct RestrictedToken(OwnedHandle);

impl RestrictedToken {
    /// This process's token, write-restricted to `capability_sid` (and Everyone and the logon
    /// session), without privileges.
    pub fn new(capability_sid: &str) -> std::io::Result<RestrictedToken> {
        let capability = Sid::parse(capability_sid)?;
        let own = own_token()?;
        let mut everyone = vec![0u8; 68];
        let mut size = everyone.len() as u32;
        // SAFETY: a buffer of `size` bytes (SECURITY_MAX_SID_SIZE) for a well-known SID.
        if unsafe { CreateWellKnownSid(WinWorldSid, std::ptr::null_mut(), everyone.as_mut_ptr().cast(), &mut size) }
            == 0
        {
            return Err(std::io::Error::last_os_error());
        }
        let groups = token_groups(&own)?;
        let mut restricting = vec![
            SID_AND_ATTRIBUTES { Sid: capability.0, Attributes: 0 },
            SID_AND_ATTRIBUTES { Sid: everyone.as_mut_ptr().cast(), Attributes: 0 },
        ];
        if let Some(logon) = logon_sid(&groups) {
            restricting.push(SID_AND_ATTRIBUTES { Sid: logon, Attributes: 0 });
        }
        let mut token = std::ptr::null_mut();
        // SAFETY: `own` is open with TOKEN_DUPLICATE; the SIDs live until the call returns
        // (`groups` holds the logon SID); the new handle is owned below.
        let ok = unsafe {
            CreateRestrictedToken(
                own.as_raw_handle(),
                DISABLE_MAX_PRIVILEGE | WRITE_RESTRICTED,
                0,
                std::ptr::null(),
                0,
                std::ptr::null(),
                restricting.len() as u32,
                restricting.as_ptr(),
                &mut token,
            )
        };
        if ok == 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: a token handle just created, owned from here on.
        Ok(RestrictedToken(unsafe { OwnedHandle::from_raw_handle(token) }))
    }
}

fn own_token() -> std::io::Result<OwnedHandle> {
    let rights = TOKEN_DUPLICATE
        | TOKEN_QUERY
        | TOKEN_ASSIGN_PRIMARY
        | TOKEN_ADJUST_DEFAULT
        | TOKEN_ADJUST_SESSIONID
        | TOKEN_ADJUST_PRIVILEGES;
    let mut token = std::ptr::null_mut();
    // SAFETY: this process's pseudo-handle and an out pointer; the handle is owned below.
    if unsafe { OpenProcessToken(GetCurrentProcess(), rights, &mut token) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: a handle just opened, owned from here on.
    Ok(unsafe { OwnedHandle::from_raw_handle(token) })
}

/// The token's groups (`TOKEN_GROUPS`), in a buffer aligned for it.
fn token_groups(token: &OwnedHandle) -> std::io::Result<Vec<u64>> {
    let mut needed = 0u32;
    // SAFETY: asks only for the size.
    unsafe { GetTokenInformation(token.as_raw_handle(), TokenGroups, std::ptr::null_mut(), 0, &mut needed) };
    let mut buffer = vec![0u64; (needed as usize).div_ceil(8).max(1)];
    let size = (buffer.len() * 8) as u32;
    // SAFETY: a buffer of `size` bytes, 8-aligned as TOKEN_GROUPS needs.
    if unsafe { GetTokenInformation(token.as_raw_handle(), TokenGroups, buffer.as_mut_ptr().cast(), size, &mut needed) }
        == 0
    {
        return Err(std::io::Error::last_os_error());
    }
    Ok(buffer)
}

/// The logon session's SID among `groups` (inside the buffer: valid while it lives).
fn logon_sid(groups: &[u64]) -> Option<*mut c_void> {
    let groups = groups.as_ptr().cast::<TOKEN_GROUPS>();
    // SAFETY: the buffer holds a TOKEN_GROUPS GetTokenInformation wrote, with GroupCount entries.
    let (count, first) = unsafe { ((*groups).GroupCount as usize, (*groups).Groups.as_ptr()) };
    (0..count)
        // SAFETY: i < GroupCount.
        .map(|i| unsafe { *first.add(i) })
        .find(|g| g.Attributes & (SE_GROUP_LOGON_ID as u32) == SE_GROUP_LOGON_ID as u32)
        .map(|g| g.Sid)
}

/// Adds an entry for `sid` on `path`: write (inherited by all beneath), or a deny of every
/// write. `NotFound` when the path does not exist.
pub fn add_entry(path: &Path, sid: &str, deny: bool) -> std::io::Result<()> {
    let sid = Sid::parse(sid)?;
    let (mode, mask) = if deny { (DENY_ACCESS, DENY_MASK) } else { (GRANT_ACCESS, WRITE_MASK) };
    change_entries(path, &sid, mode, mask)
}

/// Removes every entry of `sid` on `path`. `NotFound` when the path is gone.
pub fn remove_entries(path: &Path, sid: &str) -> std::io::Result<()> {
    let sid = Sid::parse(sid)?;
    change_entries(path, &sid, REVOKE_ACCESS, 0)
}

fn change_entries(path: &Path, sid: &Sid, mode: i32, mask: u32) -> std::io::Result<()> {
    let name = wide(path);
    let failed = |code: u32| match code {
        ERROR_FILE_NOT_FOUND | ERROR_PATH_NOT_FOUND => std::io::Error::from(std::io::ErrorKind::NotFound),
        code => std::io::Error::from_raw_os_error(code as i32),
    };
    let (mut dacl, mut descriptor): (*mut ACL, *mut c_void) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: a NUL-terminated path and out pointers; the descriptor is freed below.
    let code = unsafe {
        GetNamedSecurityInfoW(
            name.as_ptr(),
            SE_FILE_OBJECT,
            DACL_SECURITY_INFORMATION,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            &mut dacl,
            std::ptr::null_mut(),
            &mut descriptor,
        )
    };
    if code != ERROR_SUCCESS {
        return Err(failed(code));
    }
    let (mut control, mut revision) = (0u16, 0u32);
    // SAFETY: the descriptor GetNamedSecurityInfoW returned.
    unsafe { GetSecurityDescriptorControl(descriptor, &mut control, &mut revision) };
    // The folder's own choice about inheriting from its parent is kept as it was.
    let protection = if control & SE_DACL_PROTECTED != 0 {
        PROTECTED_DACL_SECURITY_INFORMATION
    } else {
        UNPROTECTED_DACL_SECURITY_INFORMATION
    };
    let entry = EXPLICIT_ACCESS_W {
        grfAccessPermissions: mask,
        grfAccessMode: mode,
        grfInheritance: SUB_CONTAINERS_AND_OBJECTS_INHERIT,
        Trustee: TRUSTEE_W {
            pMultipleTrustee: std::ptr::null_mut(),
            MultipleTrusteeOperation: 0,
            TrusteeForm: TRUSTEE_IS_SID,
            TrusteeType: TRUSTEE_IS_UNKNOWN,
            ptstrName: sid.0.cast(),
        },
    };
    let mut new_dacl: *mut ACL = std::ptr::null_mut();
    // SAFETY: one entry naming a live SID, the DACL from the descriptor still held; the new DACL
    // is freed below.
    let code = unsafe { SetEntriesInAclW(1, &entry, dacl, &mut new_dacl) };
    let result = if code != ERROR_SUCCESS {
        Err(failed(code))
    } else {
        // SAFETY: a NUL-terminated path and the DACL just made.
        let code = unsafe {
            SetNamedSecurityInfoW(
                name.as_ptr(),
                SE_FILE_OBJECT,
                DACL_SECURITY_INFORMATION | protection,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                new_dacl,
                std::ptr::null(),
            )
        };
        // SAFETY: allocated by SetEntriesInAclW, freed once.
        unsafe { LocalFree(new_dacl.cast()) };
        if code == ERROR_SUCCESS {
            Ok(())
        } else {
            Err(failed(code))
        }
    };
    // SAFETY: allocated by GetNamedSecurityInfoW, freed once (the DACL pointed into it).
    unsafe { LocalFree(descriptor) };
    result
}

/// What `start_suspended` runs: the program (an absolute path, not searched for), its command
/// line and environment block (`process::windows_launch`), and its folder.
pub struct Launch<'a> {
    pub program: &'a Path,
    pub command_line: &'a str,
    pub env: &'a [u16],
    pub cwd: &'a Path,
}

/// A program started suspended, and rein's ends of its pipes.
pub struct Started {
    pub process: OwnedHandle,
    pub thread: OwnedHandle,
    pub stdin: OwnedHandle,
    pub stdout: OwnedHandle,
    pub stderr: OwnedHandle,
}

/// Starts `launch` with `token`, suspended, its standard handles three new pipes. Only those
/// three handles are inherited (`PROC_THREAD_ATTRIBUTE_HANDLE_LIST`), never another of rein's.
pub fn start_suspended(token: &RestrictedToken, launch: &Launch<'_>) -> std::io::Result<Started> {
    let (stdin_child, stdin) = pipe()?;
    let (stdout, stdout_child) = pipe()?;
    let (stderr, stderr_child) = pipe()?;
    let children = [&stdin_child, &stdout_child, &stderr_child];
    let (process, thread) = create_process(Some(token), launch, children, CREATE_SUSPENDED).map_err(|e| e.into_io())?;
    // The child's ends close here (it holds its own copies).
    drop((stdin_child, stdout_child, stderr_child));
    Ok(Started { process, thread, stdin, stdout, stderr })
}

/// A program started to outlive rein (a kept program's holder): its process, and when it was
/// created (`GetProcessTimes`' creation time, 100 ns since 1601), which tells it apart from a
/// later process given the same id.
pub struct Detached {
    pub pid: u32,
    pub created: u64,
}

/// Why `start_detached` failed.
#[derive(Debug, thiserror::Error)]
pub enum DetachError {
    /// rein runs inside a Job Object that lets no process break away from it: whatever rein
    /// started would end with that job.
    #[error("rein runs inside a Windows Job Object that does not allow breakaway (JOB_OBJECT_LIMIT_BREAKAWAY_OK), so a program rein starts would end when that job ends; run rein outside that job (from a terminal of its own, not from a tool that wraps its children in a job)")]
    JobForbidsBreakaway,
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl DetachError {
    fn into_io(self) -> std::io::Error {
        match self {
            DetachError::Io(e) => e,
            other => std::io::Error::other(other),
        }
    }
}

/// Starts `launch` (with `token` where the program is confined) so that it outlives rein: on no
/// console (`DETACHED_PROCESS`: not rein's, so closing rein's terminal or a Ctrl+C there never
/// reaches it), in a process group of its own (`CREATE_NEW_PROCESS_GROUP`), and outside any Job
/// Object rein runs in (`CREATE_BREAKAWAY_FROM_JOB`), its stdin the NUL device and its stdout
/// and stderr `log`. Not `CREATE_NO_WINDOW` (a hidden console of its own): under Wine 8 the
/// test of a holder outliving the `rein serve` that started it then failed or hung, its
/// `conhost.exe` ended and the holder gone, and two tests hung for good when run at once;
/// with `DETACHED_PROCESS` all pass, together.
/// Only those handles are inherited. Microsoft Learn, "Process Creation Flags":
/// `CREATE_BREAKAWAY_FROM_JOB` — "The child processes of a process associated with a job are not
/// associated with the job. If the calling process is not associated with a job, this constant
/// has no effect. If the calling process is associated with a job, the job must set the
/// JOB_OBJECT_LIMIT_BREAKAWAY_OK limit"; `DETACHED_PROCESS` — "For console processes, the new
/// process does not inherit its parent's console"; `CREATE_NEW_PROCESS_GROUP` — "The new process is the root
/// process of a new process group". The page does not say how a job that forbids breakaway
/// refuses; `CreateProcess` failing with `ERROR_ACCESS_DENIED` is how it is commonly reported
/// (Microsoft's "Job object insanity", winsdk blog, for the same refusal on assignment). So
/// rein's own job's limits are read first (`QueryInformationJobObject` with no job handle asks
/// about the caller's: `in_job_without_breakaway`), and an access denial inside a job (one
/// further up a nesting) is taken as the same refusal: `DetachError::JobForbidsBreakaway`.
pub fn start_detached(
    token: Option<&RestrictedToken>,
    launch: &Launch<'_>,
    log: &std::fs::File,
) -> Result<Detached, DetachError> {
    use windows_sys::Win32::System::Threading::{
        CREATE_BREAKAWAY_FROM_JOB, CREATE_NEW_PROCESS_GROUP, DETACHED_PROCESS,
    };
    // A job whose limits cannot be read is tried: its refusal is recognised below.
    if in_job_without_breakaway().unwrap_or(false) {
        return Err(DetachError::JobForbidsBreakaway);
    }
    let nul = std::fs::File::open("NUL")?;
    let (stdin, stdout, stderr) = (OwnedHandle::from(nul), own(log)?, own(log)?);
    let flags = DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP | CREATE_BREAKAWAY_FROM_JOB;
    let (process, _thread) = match create_process(token, launch, [&stdin, &stdout, &stderr], flags) {
        Err(DetachError::Io(e)) if e.raw_os_error() == Some(ERROR_ACCESS_DENIED as i32) && in_job()? => {
            // A job further up the nesting forbids it (the check above sees only rein's own).
            return Err(DetachError::JobForbidsBreakaway);
        }
        other => other?,
    };
    let created = created_at(&process)?;
    // SAFETY: an open process handle.
    let pid = unsafe { GetProcessId(process.as_raw_handle()) };
    Ok(Detached { pid, created })
}

/// A handle of `file` of rein's own (not inheritable until `create_process` marks it).
fn own(file: &std::fs::File) -> std::io::Result<OwnedHandle> {
    Ok(OwnedHandle::from(file.try_clone()?))
}

/// When `process` was created (100 ns since 1601).
pub fn created_at(process: &OwnedHandle) -> std::io::Result<u64> {
    use windows_sys::Win32::Foundation::FILETIME;
    use windows_sys::Win32::System::Threading::GetProcessTimes;
    let (mut created, mut exited, mut kernel, mut user) =
        (FILETIME::default(), FILETIME::default(), FILETIME::default(), FILETIME::default());
    // SAFETY: an open process handle (with PROCESS_QUERY_LIMITED_INFORMATION) and out pointers.
    if unsafe { GetProcessTimes(process.as_raw_handle(), &mut created, &mut exited, &mut kernel, &mut user) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((u64::from(created.dwHighDateTime) << 32) | u64::from(created.dwLowDateTime))
}

/// Whether rein runs inside a Job Object.
fn in_job() -> std::io::Result<bool> {
    use windows_sys::Win32::System::JobObjects::IsProcessInJob;
    let mut inside = 0;
    // SAFETY: this process's pseudo-handle, no job (any job), an out pointer.
    if unsafe { IsProcessInJob(GetCurrentProcess(), std::ptr::null_mut(), &mut inside) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(inside != 0)
}

/// Whether rein's own job (the innermost, when jobs nest) lets no child break away: neither
/// `JOB_OBJECT_LIMIT_BREAKAWAY_OK` nor `JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK` is set.
fn in_job_without_breakaway() -> std::io::Result<bool> {
    use windows_sys::Win32::System::JobObjects::{
        JobObjectExtendedLimitInformation, QueryInformationJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
        JOB_OBJECT_LIMIT_BREAKAWAY_OK, JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK,
    };
    if !in_job()? {
        return Ok(false);
    }
    let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
    // SAFETY: a null job asks about the calling process's own job ("QueryInformationJobObject",
    // Microsoft Learn); `limits` is the structure the class names, of the size passed.
    let ok = unsafe {
        QueryInformationJobObject(
            std::ptr::null_mut(),
            JobObjectExtendedLimitInformation,
            (&mut limits as *mut JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
            std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
            std::ptr::null_mut(),
        )
    };
    if ok == 0 {
        return Err(std::io::Error::last_os_error());
    }
    let allowed = JOB_OBJECT_LIMIT_BREAKAWAY_OK | JOB_OBJECT_LIMIT_SILENT_BREAKAWAY_OK;
    Ok(limits.BasicLimitInformation.LimitFlags & allowed == 0)
}

/// `CreateProcessAsUserW` with `token` (or `CreateProcessW` without one) for `launch`, its
/// standard handles `std` (marked inheritable here, and the only handles inherited:
/// `PROC_THREAD_ATTRIBUTE_HANDLE_LIST`), with `flags` added to the Unicode environment and the
/// extended start-up information; its process and thread.
fn create_process(
    token: Option<&RestrictedToken>,
    launch: &Launch<'_>,
    std: [&OwnedHandle; 3],
    flags: u32,
) -> Result<(OwnedHandle, OwnedHandle), DetachError> {
    use windows_sys::Win32::System::Threading::CreateProcessW;
    let inherited = std.map(|h| h.as_raw_handle());
    for handle in inherited {
        // SAFETY: a handle of ours just made for the child; only its inherit flag changes.
        if unsafe { SetHandleInformation(handle, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT) } == 0 {
            return Err(std::io::Error::last_os_error().into());
        }
    }
    let mut attributes = HandleList::new(&inherited)?;
    let mut info = STARTUPINFOEXW::default();
    info.StartupInfo.cb = std::mem::size_of::<STARTUPINFOEXW>() as u32;
    info.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
    info.StartupInfo.hStdInput = inherited[0];
    info.StartupInfo.hStdOutput = inherited[1];
    info.StartupInfo.hStdError = inherited[2];
    info.lpAttributeList = attributes.list();
    let program = wide(launch.program);
    let mut command_line: Vec<u16> = launch.command_line.encode_utf16().chain([0]).collect();
    let cwd = wide(launch.cwd);
    let flags = flags | CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT;
    let mut created = PROCESS_INFORMATION::default();
    // SAFETY: every string is NUL-terminated and lives past the call; the environment block is
    // Unicode as the flag says; the handles in the list are open and inheritable.
    let ok = unsafe {
        match token {
            Some(token) => CreateProcessAsUserW(
                token.0.as_raw_handle(),
                program.as_ptr(),
                command_line.as_mut_ptr(),
                std::ptr::null(),
                std::ptr::null(),
                1,
                flags,
                launch.env.as_ptr().cast(),
                cwd.as_ptr(),
                &info.StartupInfo,
                &mut created,
            ),
            None => CreateProcessW(
                program.as_ptr(),
                command_line.as_mut_ptr(),
                std::ptr::null(),
                std::ptr::null(),
                1,
                flags,
                launch.env.as_ptr().cast(),
                cwd.as_ptr(),
                &info.StartupInfo,
                &mut created,
            ),
        }
    };
    if ok == 0 {
        return Err(std::io::Error::last_os_error().into());
    }
    // SAFETY: both handles were just returned to us, each owned once.
    Ok(unsafe { (OwnedHandle::from_raw_handle(created.hProcess), OwnedHandle::from_raw_handle(created.hThread)) })
}

/// Waits for the process to end; its exit status.
pub fn wait(process: &OwnedHandle) -> std::io::Result<std::process::ExitStatus> {
    use std::os::windows::process::ExitStatusExt;
    // SAFETY: an open process handle.
    if unsafe { WaitForSingleObject(process.as_raw_handle(), INFINITE) } != WAIT_OBJECT_0 {
        return Err(std::io::Error::last_os_error());
    }
    let mut code = 0u32;
    // SAFETY: an open process handle and an out pointer.
    if unsafe { GetExitCodeProcess(process.as_raw_handle(), &mut code) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(std::process::ExitStatus::from_raw(code))
}

/// An anonymous pipe, (read end, write end), neither inheritable.
fn pipe() -> std::io::Result<(OwnedHandle, OwnedHandle)> {
    let (mut read, mut write): (HANDLE, HANDLE) = (std::ptr::null_mut(), std::ptr::null_mut());
    // SAFETY: out pointers; no security attributes (not inheritable); default size.
    if unsafe { CreatePipe(&mut read, &mut write, std::ptr::null(), 0) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: both handles just made, each owned once.
    Ok(unsafe { (OwnedHandle::from_raw_handle(read), OwnedHandle::from_raw_handle(write)) })
}

/// A process-thread attribute list naming the only handles a child inherits.
struct HandleList {
    buffer: Vec<u64>,
    handles: Box<[HANDLE; 3]>,
}

impl HandleList {
    fn new(handles: &[HANDLE; 3]) -> std::io::Result<HandleList> {
        let mut size = 0usize;
        // SAFETY: asks only for the size of a one-attribute list.
        unsafe { InitializeProcThreadAttributeList(std::ptr::null_mut(), 1, 0, &mut size) };
        let mut buffer = vec![0u64; size.div_ceil(8)];
        // SAFETY: a buffer of at least `size` bytes.
        if unsafe { InitializeProcThreadAttributeList(buffer.as_mut_ptr().cast(), 1, 0, &mut size) } == 0 {
            return Err(std::io::Error::last_os_error());
        }
        // Initialized: from here on Drop deletes it.
        let mut list = HandleList { buffer, handles: Box::new(*handles) };
        // SAFETY: the list was initialized; the handle array lives as long as the list (boxed).
        let ok = unsafe {
            UpdateProcThreadAttribute(
                list.list(),
                0,
                PROC_THREAD_ATTRIBUTE_HANDLE_LIST as usize,
                list.handles.as_ptr().cast(),
                std::mem::size_of::<[HANDLE; 3]>(),
                std::ptr::null_mut(),
                std::ptr::null(),
            )
        };
        if ok == 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(list)
    }

    fn list(&mut self) -> *mut c_void {
        self.buffer.as_mut_ptr().cast()
    }
}

impl Drop for HandleList {
    fn drop(&mut self) {
        // SAFETY: initialized in `new`, deleted once.
        unsafe { DeleteProcThreadAttributeList(self.list()) };
    }
}

/// A path (or any text) as a NUL-terminated UTF-16 string.
fn wide(path: &Path) -> Vec<u16> {
    path.as_os_str().encode_wide().chain([0]).collect()
}
