//! The keystore bytes a signing config's passwords go with. `material` binds the passwords to
//! the keystore and key alias the signing config names, but build-profile.json5 (which names
//! them) and a keystore inside the workspace are files an agent can write: a script that points
//! the config at a keystore it made with a guessed password, or writes one over the named
//! keystore, would learn from hap-sign-tool whether the guess is right (a signing oracle).
//!
//! So the first time the kernel fills in a config's passwords for a workspace, it records the
//! keystore's path and sha256 in rein's home (`signing-pins.json`, which no tool or program may
//! write); afterwards it fills them in only with those bytes. java gets a private copy of the
//! bytes it checked (in the spawn's own temp folder), so a keystore swapped after the check is
//! never read. A person who changed the signing material removes the workspace's entry.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::material::{flag_value_at, MaterialError};
use crate::kernel::digest::sha256_hex;
use crate::kernel::files::read::{open_unwaited, read_all, Links};
use crate::kernel::files::write::write_atomic;
use crate::visible;

/// The file in rein's home.
const FILE: &str = "signing-pins.json";
/// The copy's name in the spawn's temp folder.
const COPY: &str = "keystore.p12";

#[derive(Debug, Default, Serialize, Deserialize)]
struct PinFile {
    /// By workspace, then signing config.
    workspaces: BTreeMap<String, BTreeMap<String, Pin>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Pin {
    keystore: String,
    sha256: String,
}

/// Checks the keystore of `args` (a signing command `material::bind` accepted, its
/// `-keystoreFile` the resolved path) against the pin of `config` in `workspace` (recording it
/// on first use), and points `-keystoreFile` at a copy of the checked bytes in `tmp`.
pub fn hand_over(
    home: &Path,
    workspace: &Path,
    config: &str,
    args: &[String],
    tmp: &Path,
) -> Result<Vec<String>, MaterialError> {
    let unusable = |why: String| MaterialError::Unknown { config: config.to_string(), why };
    let at = flag_value_at(args, "-keystoreFile").ok_or(MaterialError::Missing { flag: "-keystoreFile".into() })?;
    let keystore = PathBuf::from(&args[at]);
    let bytes = read_keystore(&keystore)
        .map_err(|e| unusable(format!("the keystore {} cannot be read ({e})", visible::path(&keystore))))?;
    let now = Pin { keystore: keystore.display().to_string(), sha256: sha256_hex(&bytes) };
    let path = home.join(FILE);
    let mut file: PinFile = match std::fs::read(&path) {
        Ok(text) => serde_json::from_slice(&text)
            .map_err(|e| unusable(format!("{} is not rein's pin file ({e})", visible::path(&path))))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => PinFile::default(),
        Err(e) => return Err(unusable(format!("{} cannot be read ({e})", visible::path(&path)))),
    };
    let pins = file.workspaces.entry(workspace.display().to_string()).or_default();
    match pins.get(config) {
        Some(pinned) if *pinned == now => {}
        Some(pinned) => {
            return Err(MaterialError::NotPinned {
                config: config.to_string(),
                keystore: visible::path(&keystore),
                pinned: visible::path(&pinned.keystore),
                pinned_sha256: pinned.sha256.clone(),
                pins: visible::path(&path),
            })
        }
        None => {
            pins.insert(config.to_string(), now);
            let text = serde_json::to_vec_pretty(&file).unwrap_or_default();
            write_atomic(&path, &path.display().to_string(), &text).map_err(|e| unusable(e.to_string()))?;
        }
    }
    let copy = tmp.join(COPY);
    write_private(&copy, &bytes).map_err(|e| unusable(format!("the keystore's private copy ({e})")))?;
    let mut handed = args.to_vec();
    handed[at] = copy.display().to_string();
    Ok(handed)
}

/// The largest keystore rein reads: a `.p12` holding a key and its chain is a few KB.
const KEYSTORE_LIMIT: u64 = 1 << 20;

/// The bytes of `keystore` (links already resolved), only if it is a file of at most
/// [`KEYSTORE_LIMIT`]. Its path comes from build-profile.json5, which an agent can write, and a
/// build script can make a FIFO in the workspace: reading one waited for ever for a writer, with
/// this program's turn held alone (`turns`), so no other program of the session ever ran again;
/// a device (`/dev/zero`) would be read until memory ran out.
fn read_keystore(keystore: &Path) -> std::io::Result<Vec<u8>> {
    let file = open_unwaited(keystore, Links::Refuse)?;
    let meta = file.metadata()?;
    if !meta.is_file() || meta.len() > KEYSTORE_LIMIT {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("it is not a file of at most {} KiB; a keystore is a few KB", KEYSTORE_LIMIT >> 10),
        ));
    }
    read_all(file, meta.len(), KEYSTORE_LIMIT)
}

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)?.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(store: &Path) -> Vec<String> {
        ["sign-app", "-keyAlias", "k", "-keystoreFile", &store.display().to_string(), "-inFile", "a"]
            .map(String::from)
            .to_vec()
    }

    #[test]
    fn the_passwords_go_only_with_the_bytes_they_first_went_with() {
        let dir = tempfile::tempdir().unwrap();
        let (home, ws, store) = (dir.path().join("home"), dir.path().join("ws"), dir.path().join("ws/k.p12"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(&store, "the person's").unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let handed = hand_over(&home, &ws, "default", &args(&store), tmp.path()).unwrap();
        assert_eq!(handed[4], tmp.path().join(COPY).display().to_string());
        assert_eq!(std::fs::read_to_string(&handed[4]).unwrap(), "the person's");
        std::fs::write(&store, "a script's").unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let refused = hand_over(&home, &ws, "default", &args(&store), tmp.path()).unwrap_err();
        assert!(matches!(refused, MaterialError::NotPinned { .. }), "{refused}");
        assert!(!tmp.path().join(COPY).exists(), "no copy of what was refused");
        let other = dir.path().join("other");
        std::fs::create_dir_all(&other).unwrap();
        hand_over(&home, &other, "default", &args(&store), tmp.path()).expect("another workspace pins its own");
    }

    #[test]
    #[cfg(unix)]
    fn a_keystore_that_is_no_file_is_refused_without_waiting_or_reading_it_whole() {
        let dir = tempfile::tempdir().unwrap();
        let (home, ws) = (dir.path().join("home"), dir.path().join("ws"));
        std::fs::create_dir_all(&ws).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let fifo = ws.join("k.p12");
        let name = std::ffi::CString::new(fifo.display().to_string()).unwrap();
        // SAFETY: mkfifo(3) with a NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
        let tmp = tempfile::tempdir().unwrap();
        for store in [fifo.as_path(), Path::new("/dev/zero")] {
            let refused = hand_over(&home, &ws, "default", &args(store), tmp.path()).unwrap_err();
            assert!(refused.to_string().contains("not a file of at most 1024 KiB"), "{refused}");
        }
        assert!(!home.join(FILE).exists(), "nothing pinned");
    }
}
