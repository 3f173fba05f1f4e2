//! A device belongs to one run at a time. Before a program changes a device (every hdc command
//! the policy does not simply allow: install, uninstall, `aa start`, file transfers …) the
//! kernel takes a lease on that device, and the whole call that ran it — a tool, a recipe with
//! all its steps — keeps it until it ends. Another rein process (another agent, another
//! worktree) waits up to a bound for it, then fails with DEVICE_BUSY naming the holder.
//!
//! A lease is a lock file under rein's home, `leases/`, keyed by the device (its hdc server
//! and connect key): `flock` on Unix, `LockFileEx` on Windows, so it dies with the process that
//! holds it, whatever ends it. A command without `-t` (the server's only device) takes the
//! server's lock alone; a command with `-t` shares the server's lock and takes the device's.
//! The lock file holds who has it (pid, workspace, since), for the message of whoever waits.
//!
//! Calls of one process share nothing through this module except the files: two root calls of
//! one `rein serve` on the same device exclude each other too; a nested call uses its root's.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use std::time::{Duration, Instant};

use super::error::{HarmonyError, Holder};
use super::grammar::hdc::DeviceOf;
use crate::kernel::platform::lock::{try_lock, Mode};
use crate::kernel::{Call, KernelError};

/// How often a waiting call tries again.
const RETRY: Duration = Duration::from_millis(200);
/// How long a call waits for a device by default (home config.toml `[lease] wait_s`).
pub const DEFAULT_WAIT: Duration = Duration::from_secs(30);

/// The device as one name: `<server>/<target>` (`local` for the local server, `*` for "the
/// server's only device").
pub fn device_name(device: &DeviceOf, server: &str) -> String {
    format!("{server}/{}", device.target.as_deref().unwrap_or("*"))
}

fn lock_path(dir: &Path, kind: &str, name: &str) -> PathBuf {
    let digest = crate::kernel::digest::sha256_hex(name.as_bytes());
    dir.join(format!("{kind}-{}.lock", &digest[..32]))
}

fn open(path: &Path) -> std::io::Result<File> {
    OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path)
}

/// Takes the lease on `server`/`device` for `call`'s tree, waiting up to `wait`.
pub async fn take(
    call: &Call,
    home: &Path,
    workspace: &Path,
    server: &str,
    device: &DeviceOf,
    wait: Duration,
) -> Result<(), KernelError> {
    let name = device_name(device, server);
    if call.leases().holds(&name) {
        return Ok(());
    }
    let dir = home.join("leases");
    std::fs::create_dir_all(&dir).map_err(|e| KernelError::io("create", dir.display().to_string(), e))?;
    let server_lock = lock_path(&dir, "server", server);
    let device_lock = device.target.as_ref().map(|_| lock_path(&dir, "device", &name));
    let started = Instant::now();
    loop {
        if let Some(files) = try_take(&server_lock, device_lock.as_deref())? {
            let holder = Holder {
                pid: std::process::id(),
                workspace: workspace.display().to_string(),
                since: humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
                device: name.clone(),
            };
            // The record is for whoever waits; the lock is what counts.
            let _ = write_holder(files.last().expect("a lock file"), &holder);
            call.leases().keep(name, files);
            return Ok(());
        }
        if started.elapsed() >= wait || call.is_cancelled() {
            let holder = holder_of(&dir, device_lock.as_deref().unwrap_or(&server_lock), server);
            return Err(HarmonyError::DeviceBusy {
                device: name,
                holder,
                waited_ms: started.elapsed().as_millis() as u64,
            }
            .into());
        }
        tokio::time::sleep(RETRY).await;
    }
}

/// The lock files, when both could be taken now.
fn try_take(server_lock: &Path, device_lock: Option<&Path>) -> Result<Option<Vec<File>>, KernelError> {
    let mode = if device_lock.is_some() { Mode::Shared } else { Mode::Exclusive };
    let Some(server) = try_file(server_lock, mode)? else { return Ok(None) };
    let Some(device_lock) = device_lock else { return Ok(Some(vec![server])) };
    let Some(device) = try_file(device_lock, Mode::Exclusive)? else { return Ok(None) };
    Ok(Some(vec![server, device]))
}

/// The lock file at `path`, locked in `mode`, or None when another holds it.
fn try_file(path: &Path, mode: Mode) -> Result<Option<File>, KernelError> {
    let io = |e| KernelError::io("lock", path.display().to_string(), e);
    let file = open(path).map_err(io)?;
    Ok(try_lock(&file, mode).map_err(io)?.then_some(file))
}

fn write_holder(mut file: &File, holder: &Holder) -> std::io::Result<()> {
    file.set_len(0)?;
    file.rewind()?;
    file.write_all(serde_json::to_string(holder).unwrap_or_default().as_bytes())?;
    file.flush()
}

fn read_holder(path: &Path) -> Option<Holder> {
    let mut text = String::new();
    File::open(path).ok()?.read_to_string(&mut text).ok()?;
    serde_json::from_str(&text).ok()
}

/// Who holds the lock at `path`; for a server's lock held shared, any holder of one of its
/// devices.
fn holder_of(dir: &Path, path: &Path, server: &str) -> Option<Holder> {
    let alive = |h: &Holder| crate::kernel::platform::alive::process_alive(h.pid);
    if let Some(holder) = read_holder(path).filter(alive) {
        return Some(holder);
    }
    let prefix = format!("{server}/");
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|e| read_holder(&e.path()))
        .find(|h| h.device.starts_with(&prefix) && alive(h))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn device(target: Option<&str>) -> DeviceOf {
        DeviceOf { server: None, target: target.map(String::from) }
    }

    async fn take_within(call: &Call, home: &Path, target: Option<&str>, wait: Duration) -> Result<(), KernelError> {
        take(call, home, Path::new("/ws"), "127.0.0.1:8710", &device(target), wait).await
    }

    #[tokio::test]
    async fn a_device_is_one_call_trees_until_the_tree_is_gone() {
        let home = tempfile::tempdir().unwrap();
        let (first, second) = (Call::new(), Call::new());
        take_within(&first, home.path(), Some("A"), Duration::ZERO).await.unwrap();
        let nested = first.acting_as(crate::kernel::Actor::new("app_install", None));
        take_within(&nested, home.path(), Some("A"), Duration::ZERO).await.expect("the tree holds it already");
        take_within(&second, home.path(), Some("B"), Duration::ZERO).await.expect("another device is free");
        let busy = take_within(&second, home.path(), Some("A"), Duration::from_millis(300)).await.unwrap_err();
        let Some(HarmonyError::DeviceBusy { device, holder, .. }) = busy.toolchain_failure() else {
            panic!("{busy:?}")
        };
        assert_eq!(device, "127.0.0.1:8710/A");
        let holder = holder.as_ref().expect("the holder is named");
        assert_eq!((holder.pid, holder.workspace.as_str()), (std::process::id(), "/ws"));
        assert!(busy.to_string().contains(&format!("pid {}", std::process::id())), "{busy}");
        assert_eq!(busy.code(), crate::error::Code::DeviceBusy);
        // The server's only device (no -t) could be any of them.
        assert!(matches!(
            take_within(&second, home.path(), None, Duration::ZERO).await.map_err(|e| e.code()),
            Err(crate::error::Code::DeviceBusy)
        ));
        drop((first, nested));
        take_within(&second, home.path(), Some("A"), Duration::ZERO).await.expect("free once the tree is gone");
    }

    #[tokio::test]
    async fn a_waiting_call_gets_the_device_when_its_holder_lets_go() {
        let home = tempfile::tempdir().unwrap();
        let holder = Call::new();
        take_within(&holder, home.path(), None, Duration::ZERO).await.unwrap();
        let release = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            drop(holder);
        });
        let waiter = Call::new();
        take_within(&waiter, home.path(), Some("A"), Duration::from_secs(30)).await.expect("got it after waiting");
        release.await.unwrap();
    }
}
