//! rein's transit folder in the workspace, `.rein-received/`: where hdc puts a file rein
//! receives from a device (a screenshot, a UI tree), until the kernel takes it out — into a
//! run's folder, or into a tool's answer. hdc writes local files itself (the real client asks
//! its server to), so a received file has to land in the workspace first; this folder keeps it
//! off the project's own files.
//!
//! What comes out of it is evidence a person reviews, so nothing but the device may put it
//! there. The folder is a protected name (`scope::protected`): no file tool of the agent's and
//! no program rein runs may write it. The kernel names each file: a call reserves a name with
//! an unguessable part ([`Kernel::reserve_received`]), the hdc policy lets `hdc file recv` write
//! only a name this call reserved and has not received yet — and that one hdc spawn alone is
//! granted the folder ([`recv_into_transit`], `policy::confinement`) — and
//! [`Kernel::take_received`] takes only a name the call's own hdc received, a file that was not
//! there before the recv.

use std::ffi::OsStr;
use std::path::Path;

use crate::kernel::files::dir::Dir;
use crate::kernel::Call;
use crate::kernel::{Kernel, KernelError};

pub use crate::kernel::scope::protected::RECEIVED_DIR;

/// The largest received file rein takes (a phone's screenshot is a few hundred KB, a UI tree
/// a few MB).
const RECEIVED_LIMIT: u64 = 32 << 20;

/// Where the device's scratch file of a received name is (hdc's `file recv` reads it there).
const DEVICE_TMP: &str = "/data/local/tmp/";

/// How far a reserved name got (the call keeps it: `Call::receipts`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Given out; no hdc received it yet.
    Reserved,
    /// The kernel let one hdc spawn receive it (when the file was not there).
    Received,
}

fn stage_of(call: &Call, name: &str) -> Option<Stage> {
    call.receipts().get(name).map(|received| if received { Stage::Received } else { Stage::Reserved })
}

/// A name [`Kernel::reserve_received`] gave.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Reservation {
    /// `rein-<what>-<32 hex digits>.<ext>`: the device's scratch file takes it too.
    pub name: String,
    /// `.rein-received/<name>`, relative to the workspace root: what `hdc file recv` gets.
    pub path: String,
}

impl Kernel {
    /// Reserves a new name for a file `call` will receive: `rein-<what>-<32 hex digits>.<ext>`,
    /// the same name the device's scratch file takes (`/data/local/tmp/<name>`). Makes the
    /// transit folder (a real folder: a link in its place is refused). Not journaled: like
    /// `.rein/`, it is rein's, not the project's.
    pub fn reserve_received(&self, call: &Call, what: &str, ext: &str) -> Result<Reservation, KernelError> {
        let plain_word = !what.is_empty() && what.len() <= 16 && what.bytes().all(|b| b.is_ascii_lowercase());
        if !plain_word || !["jpeg", "json"].contains(&ext) {
            return Err(KernelError::invalid(format!(
                "rein receives under rein-<what>-<random>.jpeg|json, with 1 to 16 lowercase letters for what; not {what:?} and {ext:?}"
            )));
        }
        let mut random = [0u8; 16];
        getrandom::fill(&mut random).map_err(|e| {
            KernelError::io("draw a random name for", RECEIVED_DIR, std::io::Error::other(e.to_string()))
        })?;
        let hex: String = random.iter().map(|b| format!("{b:02x}")).collect();
        let name = format!("rein-{what}-{hex}.{ext}");
        let dir = self.transit(true)?;
        if dir.kind_of(OsStr::new(&name)).map_err(|e| KernelError::io("look into", RECEIVED_DIR, e))?.is_some() {
            return Err(KernelError::invalid(format!("{RECEIVED_DIR}/{name} exists already; it is not rein's")));
        }
        call.receipts().set(&name, Some(false));
        Ok(Reservation { path: format!("{RECEIVED_DIR}/{name}"), name })
    }

    /// Whether `hdc args` may receive into the transit folder for `call`: None when the command
    /// line is no `file recv` into it; else Ok once the name is marked received, or the reason
    /// it may not (a name this call did not reserve, one received already, another device file
    /// than the name's own, a file already there).
    pub(crate) fn admit_recv(&self, call: &Call, args: &[String]) -> Option<Result<(), RecvRefused>> {
        let (remote, name) = recv_into_transit(args)?;
        let receipts = call.receipts();
        if let Some(why) = self.recv_refusal(stage_of(call, name), remote, name) {
            return Some(Err(why));
        }
        receipts.set(name, Some(true));
        Some(Ok(()))
    }

    fn recv_refusal(&self, stage: Option<Stage>, remote: &str, name: &str) -> Option<RecvRefused> {
        let display = format!("{RECEIVED_DIR}/{name}");
        match stage {
            None => Some(RecvRefused::NotReserved { display }),
            Some(Stage::Received) => Some(RecvRefused::ReceivedAlready { display }),
            Some(Stage::Reserved) if remote != format!("{DEVICE_TMP}{name}") => Some(RecvRefused::OtherDeviceFile {
                display,
                own: format!("{DEVICE_TMP}{name}"),
                remote: remote.into(),
            }),
            Some(Stage::Reserved) => match self.transit(false).map(|dir| dir.kind_of(OsStr::new(name))) {
                Ok(Ok(None)) => None,
                Ok(Ok(Some(_))) => Some(RecvRefused::ThereBefore { display }),
                Ok(Err(e)) => Some(RecvRefused::Uncheckable { display, why: e.to_string() }),
                Err(e) => Some(RecvRefused::Transit { why: e.to_string() }),
            },
        }
    }

    /// The bytes of `.rein-received/<name>`, and the file removed, through the folder held open
    /// beneath the workspace (a link put there is not followed). Only a name `call` reserved and
    /// its own hdc received; the reservation ends here, taken or not.
    pub fn take_received(&self, call: &Call, name: &str) -> Result<Vec<u8>, KernelError> {
        check_name(name)?;
        let display = format!("{RECEIVED_DIR}/{name}");
        let stage = stage_of(call, name);
        call.receipts().set(name, None);
        match stage {
            Some(Stage::Received) => {}
            Some(Stage::Reserved) => {
                return Err(KernelError::invalid(format!("{display} was reserved, but no hdc of this call received it")))
            }
            None => {
                return Err(KernelError::invalid(format!(
                    "{display} is not a file rein received for this call; rein takes only what its own hdc received under a name it reserved"
                )))
            }
        }
        let dir = match self.transit(false) {
            Err(KernelError::FileNotFound { .. }) => return Err(KernelError::FileNotFound { path: display }),
            other => other?,
        };
        let file = match dir.open_read(OsStr::new(name)) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(KernelError::FileNotFound { path: display })
            }
            Err(e) => return Err(KernelError::io("read", &display, e)),
        };
        let taken = read_limited(file, &display);
        // Taken or not, it leaves: a file rein could not use is no use to anyone there.
        dir.remove_file(OsStr::new(name)).map_err(|e| KernelError::io("remove", &display, e))?;
        taken
    }

    /// The transit folder, held open beneath the workspace without following a link (made
    /// first with `create`).
    fn transit(&self, create: bool) -> Result<Dir, KernelError> {
        let rel = Path::new(RECEIVED_DIR);
        let opened = if create { self.root.create_beneath(rel) } else { self.root.open_beneath(rel) };
        match opened {
            Ok(dir) => Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(KernelError::FileNotFound { path: RECEIVED_DIR.to_string() })
            }
            Err(e) => Err(KernelError::io("open", RECEIVED_DIR, e)),
        }
    }
}

/// The device file and the name of a `hdc … file recv <remote> .rein-received/<name>` command
/// line: the one hdc spawn that may write the transit folder, once [`Kernel::admit_recv`]
/// admitted it.
pub fn recv_into_transit(args: &[String]) -> Option<(&str, &str)> {
    let at = args.windows(2).position(|w| w[0] == "file" && w[1] == "recv")?;
    let [remote, local] = &args[at + 2..] else { return None };
    let name = local.strip_prefix(RECEIVED_DIR)?.strip_prefix('/')?;
    is_rein_file_name(name).then_some((remote.as_str(), name))
}

fn read_limited(file: std::fs::File, display: &str) -> Result<Vec<u8>, KernelError> {
    let meta = file.metadata().map_err(|e| KernelError::io("read", display, e))?;
    if !meta.is_file() || meta.len() > RECEIVED_LIMIT || !single_link(&meta) {
        return Err(KernelError::invalid(format!(
            "{display} is not a received file of at most {} MB with one name; it was removed",
            RECEIVED_LIMIT >> 20
        )));
    }
    crate::kernel::files::read::read_all(file, meta.len(), RECEIVED_LIMIT)
        .map_err(|e| KernelError::io("read", display, e))
}

/// A file hdc made has one name; a second (a hard link from elsewhere) is a file someone else
/// can still change.
#[cfg(unix)]
fn single_link(meta: &std::fs::Metadata) -> bool {
    std::os::unix::fs::MetadataExt::nlink(meta) == 1
}

#[cfg(not(unix))]
fn single_link(_: &std::fs::Metadata) -> bool {
    true
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

/// Why an hdc recv into the transit folder may not run (the reason its `Deny` gives).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecvRefused {
    #[error("{display} is no name rein reserved for this call (rein.fs.reserve_received gives one); only the kernel receives into its transit folder")]
    NotReserved { display: String },
    #[error("{display} was received already; reserve another name")]
    ReceivedAlready { display: String },
    #[error("{display} receives only the device's {own}, not {remote}")]
    OtherDeviceFile { display: String, own: String, remote: String },
    #[error("{display} is there before the recv: rein does not take a file it did not receive")]
    ThereBefore { display: String },
    #[error("{display} cannot be checked: {why}")]
    Uncheckable { display: String, why: String },
    /// The transit folder itself cannot be used (a link in its place).
    #[error("{why}")]
    Transit { why: String },
}

#[cfg(test)]
#[path = "received_tests.rs"]
mod tests;
