//! What a file rein replaces keeps: on Unix its permission bits and (when rein may set them)
//! its owner and group; on Windows its attributes (read-only, hidden, system, ...). The new
//! content arrives in a fresh file, so these are copied onto it before it takes the old name.

use std::fs::File;

/// The old file's metadata that the new one must keep.
#[derive(Debug, Clone, Copy)]
pub struct Keep {
    #[cfg(unix)]
    mode: u32,
    #[cfg(unix)]
    uid: u32,
    #[cfg(unix)]
    gid: u32,
    #[cfg(windows)]
    attributes: u32,
}

impl Keep {
    /// What `old` (the file being replaced, open) has.
    pub fn of(old: &File) -> std::io::Result<Keep> {
        let meta = old.metadata()?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Ok(Keep { mode: meta.mode() & 0o7777, uid: meta.uid(), gid: meta.gid() })
        }
        #[cfg(windows)]
        {
            use std::os::windows::fs::MetadataExt;
            Ok(Keep { attributes: meta.file_attributes() })
        }
    }

    /// Gives `new` (the replacement, open for writing) what the old file had.
    pub fn apply(&self, new: &File) -> std::io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            new.set_permissions(std::fs::Permissions::from_mode(self.mode))?;
            // Only root may give a file away; anyone else keeps their own ownership.
            let _ = std::os::unix::fs::fchown(new, Some(self.uid), Some(self.gid));
            Ok(())
        }
        #[cfg(windows)]
        {
            windows_attributes::set(new, self.attributes)
        }
    }
}

#[cfg(windows)]
mod windows_attributes {
    use std::fs::File;
    use std::os::windows::io::AsRawHandle;

    use windows_sys::Win32::Storage::FileSystem::{
        FileBasicInfo, SetFileInformationByHandle, FILE_ATTRIBUTE_ARCHIVE, FILE_ATTRIBUTE_HIDDEN,
        FILE_ATTRIBUTE_NORMAL, FILE_ATTRIBUTE_NOT_CONTENT_INDEXED, FILE_ATTRIBUTE_READONLY, FILE_ATTRIBUTE_SYSTEM,
        FILE_BASIC_INFO,
    };

    /// The attributes a person sets on a file (not those the filesystem owns, such as
    /// compressed, sparse or reparse point).
    const KEPT: u32 = FILE_ATTRIBUTE_READONLY
        | FILE_ATTRIBUTE_HIDDEN
        | FILE_ATTRIBUTE_SYSTEM
        | FILE_ATTRIBUTE_ARCHIVE
        | FILE_ATTRIBUTE_NOT_CONTENT_INDEXED;

    /// Sets `attributes` on the open `file`; zero times leave its times unchanged.
    pub fn set(file: &File, attributes: u32) -> std::io::Result<()> {
        let kept = attributes & KEPT;
        let info = FILE_BASIC_INFO {
            FileAttributes: if kept == 0 { FILE_ATTRIBUTE_NORMAL } else { kept },
            ..Default::default()
        };
        // SAFETY: `info` is a FILE_BASIC_INFO of the size passed; the handle is open for writing.
        let ok = unsafe {
            SetFileInformationByHandle(
                file.as_raw_handle(),
                FileBasicInfo,
                (&info as *const FILE_BASIC_INFO).cast(),
                std::mem::size_of::<FILE_BASIC_INFO>() as u32,
            )
        };
        if ok == 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }
}
