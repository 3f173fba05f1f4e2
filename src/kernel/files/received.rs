//! rein's transit folder in the workspace, `.rein-received/`: where hdc puts a file rein
//! receives from a device (a screenshot, a UI tree), until the kernel takes it out — into a
//! run's folder, or into a tool's answer. hdc writes local files itself, inside the workspace
//! only (its confinement and the hdc policy), so a received file has to land there first; this
//! folder keeps it off the project's own files. Only rein's own names
//! ([`is_rein_file_name`]) go in or come out, and taking one removes it.

use std::ffi::OsStr;
use std::path::Path;

use crate::kernel::{Kernel, KernelError};

/// The transit folder, relative to the workspace root.
pub const RECEIVED_DIR: &str = ".rein-received";

/// The largest received file rein takes (a phone's screenshot is a few hundred KB, a UI tree
/// a few MB).
const RECEIVED_LIMIT: u64 = 32 << 20;

impl Kernel {
    /// Makes the transit folder (hdc needs it to exist) and gives the workspace-relative path
    /// hdc should write `name` to. Not journaled: like `.rein/`, it is rein's, not the project's.
    pub fn receive_place(&self, name: &str) -> Result<String, KernelError> {
        check_name(name)?;
        self.root
            .create_beneath(Path::new(RECEIVED_DIR))
            .map_err(|e| KernelError::io("create the folder", RECEIVED_DIR, e))?;
        Ok(format!("{RECEIVED_DIR}/{name}"))
    }

    /// The bytes of `.rein-received/<name>`, and the file removed, through the folder held open
    /// beneath the workspace (a link put there is not followed).
    pub fn take_received(&self, name: &str) -> Result<Vec<u8>, KernelError> {
        check_name(name)?;
        let display = format!("{RECEIVED_DIR}/{name}");
        let not_found = || KernelError::FileNotFound { path: display.clone() };
        let dir = match self.root.open_beneath(Path::new(RECEIVED_DIR)) {
            Ok(dir) => dir,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(not_found()),
            Err(e) => return Err(KernelError::io("open", RECEIVED_DIR, e)),
        };
        let file = match dir.open_read(OsStr::new(name)) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(not_found()),
            Err(e) => return Err(KernelError::io("read", &display, e)),
        };
        let taken = read_limited(file, &display);
        // Taken or not, it leaves: a file rein could not use is no use to anyone there.
        dir.remove_file(OsStr::new(name)).map_err(|e| KernelError::io("remove", &display, e))?;
        taken
    }
}

fn read_limited(file: std::fs::File, display: &str) -> Result<Vec<u8>, KernelError> {
    let meta = file.metadata().map_err(|e| KernelError::io("read", display, e))?;
    if !meta.is_file() || meta.len() > RECEIVED_LIMIT {
        return Err(KernelError::invalid(format!(
            "{display} is not a received file of at most {} MB; it was removed",
            RECEIVED_LIMIT >> 20
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::io::Read::read_to_end(&mut std::io::Read::take(file, RECEIVED_LIMIT), &mut bytes)
        .map_err(|e| KernelError::io("read", display, e))?;
    Ok(bytes)
}

/// A name rein gives its own scratch files on a device and in its transit folder:
/// `rein-`, lowercase letters, digits and single `-`, then `.jpeg` or `.json` (at most 80
/// characters). No other tool's file has it by accident, it holds no path, and it cannot name
/// a folder rein would have to remove recursively.
pub fn is_rein_file_name(name: &str) -> bool {
    let Some(stem) = name.strip_suffix(".jpeg").or_else(|| name.strip_suffix(".json")) else { return false };
    let Some(tag) = stem.strip_prefix("rein-") else { return false };
    name.len() <= 80
        && !tag.is_empty()
        && tag
            .split('-')
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

fn check_name(name: &str) -> Result<(), KernelError> {
    if is_rein_file_name(name) {
        return Ok(());
    }
    Err(KernelError::invalid(format!(
        "{name:?} is not a name rein receives under: rein-<lowercase letters, digits, single ->.jpeg or .json"
    )))
}
