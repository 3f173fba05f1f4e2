//! Permission bits where they exist: Unix modes; on Windows only what maps (a file without the
//! owner's write bit is read-only; runnable means a program extension, as `PATHEXT` lists).

use std::path::Path;

/// Sets `path`'s permissions from a Unix `mode` (Windows: the read-only attribute of a file,
/// from the owner's write bit; folders ignore it there, so they are left alone).
pub fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }
    #[cfg(windows)]
    {
        let meta = std::fs::metadata(path)?;
        if meta.is_dir() {
            return Ok(());
        }
        let mut permissions = meta.permissions();
        permissions.set_readonly(mode & 0o200 == 0);
        std::fs::set_permissions(path, permissions)
    }
}

/// Whether `path` is a file this OS would run: any execute bit on Unix; on Windows a `.exe`,
/// `.bat`, `.cmd` or `.com` (the program kinds rein starts; a `.js` runs through node).
pub fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else { return false };
    if !meta.is_file() {
        return false;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(windows)]
    {
        let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
        matches!(ext.as_deref(), Some("exe" | "bat" | "cmd" | "com"))
    }
}
