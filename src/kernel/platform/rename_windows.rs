//! Replacing a file on Windows by renaming the new one onto it, while other handles have the
//! old one open: rein's own readers, an editor, an indexer or antivirus. Windows refuses a
//! plain replace (`MoveFileExW`) while any handle is open on the target; rename with POSIX
//! semantics does not:
//!
//! - `SetFileInformationByHandle(FileRenameInfoEx)` with `FILE_RENAME_FLAG_REPLACE_IF_EXISTS |
//!   FILE_RENAME_FLAG_POSIX_SEMANTICS` "allow[s] replacing a file even if there are existing
//!   handles to the file; existing handles to the replaced file continue to be valid"
//!   (FILE_RENAME_INFORMATION, ntifs.h:
//!   <https://learn.microsoft.com/en-us/windows-hardware/drivers/ddi/ntifs/ns-ntifs-_file_rename_information>;
//!   the Win32 form, FILE_RENAME_INFO: <https://learn.microsoft.com/en-us/windows/win32/api/winbase/ns-winbase-file_rename_info>,
//!   Windows 10 1709 and later, NTFS). Handles opened without `FILE_SHARE_DELETE` still block
//!   it. `FILE_RENAME_IGNORE_READONLY_ATTRIBUTE` (Windows 10 1809) replaces a read-only file,
//!   as a rename replaces a mode-0444 file on Unix; the new file carries the read-only
//!   attribute over (`keep`).
//! - Where that class or a flag is unsupported (older Windows, FAT, some network shares,
//!   Wine), `MoveFileExW(REPLACE_EXISTING | WRITE_THROUGH)`
//!   (<https://learn.microsoft.com/en-us/windows/win32/api/winbase/nf-winbase-movefileexw>),
//!   whose replace is refused for a read-only target (its attribute is lifted for the
//!   rename and put back if the rename fails).
//! - Either way, a refusal that another program's handle causes (access denied, sharing
//!   violation) is retried for a bounded time, then reported.

use std::ffi::OsStr;
use std::fs::OpenOptions;
use std::os::windows::ffi::OsStrExt;
use std::os::windows::fs::{MetadataExt, OpenOptionsExt};
use std::os::windows::io::AsRawHandle;
use std::path::Path;
use std::time::{Duration, Instant};

use windows_sys::Win32::Foundation::{
    ERROR_ACCESS_DENIED, ERROR_INVALID_FUNCTION, ERROR_INVALID_PARAMETER, ERROR_NOT_SUPPORTED, ERROR_SHARING_VIOLATION,
};
use windows_sys::Win32::Storage::FileSystem::{
    FileRenameInfoEx, MoveFileExW, SetFileAttributesW, SetFileInformationByHandle, DELETE, FILE_ATTRIBUTE_NORMAL,
    FILE_ATTRIBUTE_READONLY, FILE_FLAG_OPEN_REPARSE_POINT, FILE_RENAME_INFO, FILE_SHARE_DELETE, FILE_SHARE_READ,
    FILE_SHARE_WRITE, MOVEFILE_REPLACE_EXISTING, MOVEFILE_WRITE_THROUGH,
};

// FILE_RENAME_INFORMATION's flags (ntifs.h; the same values as winbase.h's FILE_RENAME_FLAG_*).
const REPLACE_IF_EXISTS: u32 = 0x1;
const POSIX_SEMANTICS: u32 = 0x2;
const IGNORE_READONLY_ATTRIBUTE: u32 = 0x40;

/// How long a replace another program's handle blocks is retried before it is reported.
const RETRY_FOR: Duration = Duration::from_secs(2);
const RETRY_PAUSE: Duration = Duration::from_millis(20);

/// Renames `from` onto `to` (full paths in one folder), replacing `to` even while others have
/// it open (see the module comment).
pub fn replace(from: &Path, to: &Path) -> std::io::Result<()> {
    let started = Instant::now();
    loop {
        let result = match posix_rename(from, to) {
            // A Windows that knows the class but not the read-only flag refuses a read-only
            // target as access denied.
            Err(e) if unsupported(&e) || held_by_another(&e) && is_read_only(to) => move_replacing(from, to),
            other => other,
        };
        match result {
            Err(e) if held_by_another(&e) && started.elapsed() < RETRY_FOR => std::thread::sleep(RETRY_PAUSE),
            other => return other,
        }
    }
}

/// The rename with POSIX semantics, through a handle on `from` opened for DELETE only.
fn posix_rename(from: &Path, to: &Path) -> std::io::Result<()> {
    let file = OpenOptions::new()
        .access_mode(DELETE)
        .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
        .open(from)?;
    let name: Vec<u16> = to.as_os_str().encode_wide().collect();
    let info = RenameInfo::new(REPLACE_IF_EXISTS | POSIX_SEMANTICS | IGNORE_READONLY_ATTRIBUTE, &name);
    // SAFETY: `info` holds a FILE_RENAME_INFO followed by the name, of the size passed; the
    // handle is open with DELETE access, which a rename needs.
    let ok = unsafe { SetFileInformationByHandle(file.as_raw_handle(), FileRenameInfoEx, info.as_ptr(), info.size()) };
    if ok == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// `MoveFileExW`, lifting a read-only target's attribute for the replace and restoring it if
/// the replace fails.
fn move_replacing(from: &Path, to: &Path) -> std::io::Result<()> {
    let read_only = is_read_only(to);
    let (from_w, to_w) = (wide(from.as_os_str()), wide(to.as_os_str()));
    if read_only {
        set_attributes(&to_w, FILE_ATTRIBUTE_NORMAL)?;
    }
    // SAFETY: both are NUL-terminated UTF-16 strings that outlive the call.
    let ok = unsafe { MoveFileExW(from_w.as_ptr(), to_w.as_ptr(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH) };
    if ok == 0 {
        let err = std::io::Error::last_os_error();
        if read_only {
            let _ = set_attributes(&to_w, FILE_ATTRIBUTE_READONLY);
        }
        return Err(err);
    }
    Ok(())
}

fn is_read_only(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_attributes() & FILE_ATTRIBUTE_READONLY != 0)
}

fn set_attributes(path: &[u16], attributes: u32) -> std::io::Result<()> {
    // SAFETY: `path` is a NUL-terminated UTF-16 string.
    if unsafe { SetFileAttributesW(path.as_ptr(), attributes) } == 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Whether this Windows and the disk under `dir` rename with POSIX semantics (Windows 10 1709
/// and later on NTFS; not Wine 8, whose NtSetInformationFile answers FileRenameInformationEx
/// with STATUS_NOT_IMPLEMENTED). For tests that need it.
#[cfg(test)]
pub(crate) fn has_posix_rename(dir: &Path) -> bool {
    let (from, to) = (dir.join(".posix-rename-probe.a"), dir.join(".posix-rename-probe.b"));
    std::fs::write(&from, b"").and_then(|()| std::fs::write(&to, b"")).expect("probe files");
    let supported = !posix_rename(&from, &to).is_err_and(|e| unsupported(&e));
    let _ = std::fs::remove_file(&from);
    let _ = std::fs::remove_file(&to);
    supported
}

/// The rename class or one of its flags is not supported here.
fn unsupported(e: &std::io::Error) -> bool {
    [ERROR_INVALID_PARAMETER, ERROR_NOT_SUPPORTED, ERROR_INVALID_FUNCTION].contains(&os_code(e))
}

/// Another handle on the target (or the temp file) refused the replace for now.
fn held_by_another(e: &std::io::Error) -> bool {
    [ERROR_ACCESS_DENIED, ERROR_SHARING_VIOLATION].contains(&os_code(e))
}

fn os_code(e: &std::io::Error) -> u32 {
    e.raw_os_error().map_or(0, |code| code as u32)
}

fn wide(text: &OsStr) -> Vec<u16> {
    text.encode_wide().chain(std::iter::once(0)).collect()
}

/// A FILE_RENAME_INFO with its variable-length name, in a buffer aligned for the struct.
struct RenameInfo {
    buffer: Vec<u64>,
    size: usize,
}

impl RenameInfo {
    fn new(flags: u32, name: &[u16]) -> RenameInfo {
        let name_offset = std::mem::offset_of!(FILE_RENAME_INFO, FileName);
        // The name and a NUL, which the size counts though FileNameLength does not.
        let size = (name_offset + (name.len() + 1) * 2).max(std::mem::size_of::<FILE_RENAME_INFO>());
        let mut buffer = vec![0u64; size.div_ceil(8)];
        let info = buffer.as_mut_ptr().cast::<FILE_RENAME_INFO>();
        // SAFETY: the buffer is zeroed, 8-aligned and at least `size` bytes: room for the
        // struct and the name after its FileName offset.
        unsafe {
            (*info).Anonymous.Flags = flags;
            (*info).FileNameLength = (name.len() * 2) as u32;
            let dest = buffer.as_mut_ptr().cast::<u8>().add(name_offset).cast::<u16>();
            std::ptr::copy_nonoverlapping(name.as_ptr(), dest, name.len());
        }
        RenameInfo { buffer, size }
    }

    fn as_ptr(&self) -> *const std::ffi::c_void {
        self.buffer.as_ptr().cast()
    }

    fn size(&self) -> u32 {
        self.size as u32
    }
}
