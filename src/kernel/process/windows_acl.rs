//! Windows confinement: a program runs (inside its Job Object) with a write-restricted token
//! whose restricting SID is a capability SID of the spawn's own; only ACL entries rein adds for
//! that SID let it write. This module is the half that decides, tested on every OS: which folder
//! gets which entry for which SID (`plan`), the record that lets a crash's entries be removed at
//! the next start (`Record`, `Records`, `undo`), and the order of a spawn's grant:
//! record first, then each entry, all of them removed again when one fails (`grant`,
//! `Granted::revoke`). The Win32 calls it is given (`AclEntries`) are in
//! `platform::token_windows`; docs/src/platform-confinement.md says what has run where.
//!
//! Why a write-restricted token and not an AppContainer: an AppContainer cannot connect to this
//! machine's loopback without an exemption only an administrator may grant
//! (`CheckNetIsolation LoopbackExempt`), and hdc talks to its server on 127.0.0.1; it also reads
//! only what its SID is granted, so every toolchain folder (SDK, JDK, node, the person's caches)
//! would need entries too. A write-restricted token, as OpenAI Codex's Windows sandbox builds it
//! (`codex-rs/windows-sandbox-rs/src/token.rs`, capability SIDs `S-1-5-21-a-b-c-d` in `cap.rs`,
//! entries in `acl.rs`), changes only where a program may write: it still reads what the person
//! can, and its network is the person's.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::grants::{Most, Profile};

/// What one entry lets (or stops) the capability SID do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Access {
    /// Allow: create, write, delete beneath the folder (inherited by what is made inside).
    Write,
    /// Deny: write, delete, change permissions (a carved path inside a writable folder; deny
    /// entries come first in an ACL's order, so they win over the folder's allow).
    DenyWrite,
}

/// One ACL entry rein adds for a spawn, and removes after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ace {
    pub path: PathBuf,
    pub sid: String,
    pub access: Access,
}

/// A capability SID for one spawn, from 128 bits (`S-1-5-21-a-b-c-d`, the form Codex uses):
/// unique, so one spawn's entries are never another's. It need not be secret: a program cannot
/// add a SID to its own token.
pub fn capability_sid(bits: [u32; 4]) -> String {
    let [a, b, c, d] = bits;
    format!("S-1-5-21-{a}-{b}-{c}-{d}")
}

/// The entries a program with `grants` needs under a write-restricted token with `sid`: write on
/// each writable grant, and a deny on every carved path (protected names, the hdc binary, secret
/// files) that lies beneath one. Reads are not planned: a write-restricted token does not narrow
/// them (`Most::Nothing` holds on Linux and macOS only).
pub fn plan(grants: &Profile, sid: &str) -> Vec<Ace> {
    let writable: Vec<&PathBuf> = grants.write.iter().chain(&grants.write_no_link).chain(&grants.dev_nodes).collect();
    let mut aces: Vec<Ace> = Vec::new();
    let mut add = |path: &Path, access: Access| {
        let ace = Ace { path: path.to_path_buf(), sid: sid.to_string(), access };
        if !aces.contains(&ace) {
            aces.push(ace);
        }
    };
    for path in &writable {
        add(path, Access::Write);
    }
    let carved = grants.carve.iter().filter(|c| matches!(c.most, Most::Nothing | Most::ReadNoExecute | Most::Read));
    for carve in carved.filter(|c| writable.iter().any(|w| c.path.starts_with(w))) {
        add(&carve.path, Access::DenyWrite);
    }
    aces
}

/// What rein writes (in its home) before it adds a spawn's entries, and removes once they are
/// gone: a crash between leaves the record, and the next start removes what it lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The rein process that added them (its entries are not touched while it runs).
    pub pid: u32,
    pub aces: Vec<Ace>,
}

/// Removes a record's entries with `remove`, each once. An entry whose path is gone is done
/// (`remove` says so with `NotFound`); every other failure is returned with what was left, so the
/// record stays for the next start.
pub fn undo(record: &Record, mut remove: impl FnMut(&Ace) -> std::io::Result<()>) -> Result<(), Undone> {
    let mut left = Vec::new();
    let mut first = None;
    for ace in &record.aces {
        match remove(ace) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                first.get_or_insert(e);
                left.push(ace.clone());
            }
        }
    }
    match first {
        None => Ok(()),
        Some(error) => Err(Undone { left: Record { pid: record.pid, aces: left }, error }),
    }
}

/// What could not be removed, and why (the first error).
#[derive(Debug, thiserror::Error)]
#[error("could not remove {} ACL entries rein added: {error}", left.aces.len())]
pub struct Undone {
    pub left: Record,
    pub error: std::io::Error,
}

/// Adds and removes one ACL entry (Windows: `SetEntriesInAclW` and `SetNamedSecurityInfoW`).
/// `remove` takes away every entry of the ACE's SID on its path, and says `NotFound` when the
/// path is gone.
pub trait AclEntries: Sync {
    fn add(&self, ace: &Ace) -> std::io::Result<()>;
    fn remove(&self, ace: &Ace) -> std::io::Result<()>;
}

/// The records of the entries rein has added and not yet removed: one JSON file per spawn,
/// `<pid>-<sid>.json`, in a folder of rein's home.
#[derive(Debug, Clone)]
pub struct Records {
    dir: PathBuf,
}

/// What the cleanup at start did with the records of reins that are gone.
#[derive(Debug, Default)]
#[cfg_attr(not(windows), allow(dead_code))]
pub struct Cleaned {
    /// Records whose entries are all gone (their files removed).
    pub removed: usize,
    /// What could not be cleaned, and why; each stays for the next start.
    pub failed: Vec<String>,
}

impl Records {
    pub fn new(dir: PathBuf) -> Records {
        Records { dir }
    }

    /// Writes `record` (flushed to disk) before any of its entries is added; its file.
    pub fn write(&self, sid: &str, record: &Record) -> std::io::Result<PathBuf> {
        use std::io::Write;
        std::fs::create_dir_all(&self.dir)?;
        let path = self.dir.join(format!("{}-{sid}.json", record.pid));
        let mut file = std::fs::File::create(&path)?;
        file.write_all(&serde_json::to_vec(record).map_err(std::io::Error::other)?)?;
        file.sync_all()?;
        Ok(path)
    }

    /// Removes the entries recorded for `sid` under process `pid` (a kept program's, once it has
    /// ended), then their record; nothing recorded is nothing to do. What cannot be removed
    /// stays recorded for the next start, and is returned.
    #[cfg_attr(not(windows), allow(dead_code))]
    pub fn release(&self, pid: u32, sid: &str, entries: &dyn AclEntries) -> Result<(), Undone> {
        let file = self.dir.join(format!("{pid}-{sid}.json"));
        let Ok(bytes) = std::fs::read(&file) else { return Ok(()) };
        match serde_json::from_slice::<Record>(&bytes) {
            Ok(record) => Granted { record, file }.revoke(entries),
            Err(e) => Err(Undone {
                left: Record { pid, aces: Vec::new() },
                error: std::io::Error::new(std::io::ErrorKind::InvalidData, format!("{}: {e}", file.display())),
            }),
        }
    }

    /// Removes the entries of every record whose rein is gone (`alive` asks the OS), deleting
    /// each record once its entries are gone; a record that cannot be read or fully undone stays
    /// (rewritten with what is left) and is named in `failed`.
    #[cfg_attr(not(windows), allow(dead_code))]
    pub fn clean(&self, alive: impl Fn(u32) -> bool, entries: &dyn AclEntries) -> Cleaned {
        let mut cleaned = Cleaned::default();
        let listing = match std::fs::read_dir(&self.dir) {
            Ok(listing) => listing,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return cleaned,
            Err(e) => {
                cleaned.failed.push(format!("{}: {e}", self.dir.display()));
                return cleaned;
            }
        };
        for path in listing.filter_map(|e| e.ok()).map(|e| e.path()) {
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            let read = std::fs::read(&path).map_err(|e| e.to_string());
            let record = read.and_then(|bytes| serde_json::from_slice::<Record>(&bytes).map_err(|e| e.to_string()));
            let record = match record {
                Ok(record) => record,
                Err(e) => {
                    cleaned.failed.push(format!("{}: {e}", path.display()));
                    continue;
                }
            };
            if alive(record.pid) {
                continue;
            }
            let result = match undo(&record, |ace| entries.remove(ace)) {
                Ok(()) => std::fs::remove_file(&path).map_err(|e| e.to_string()),
                Err(undone) => {
                    // If the rewrite fails the record still lists every entry: the next start tries all.
                    let kept = serde_json::to_vec(&undone.left).map_err(|e| e.to_string());
                    let _ = kept.and_then(|bytes| std::fs::write(&path, bytes).map_err(|e| e.to_string()));
                    Err(undone.to_string())
                }
            };
            match result {
                Ok(()) => cleaned.removed += 1,
                Err(e) => cleaned.failed.push(format!("{}: {e}", path.display())),
            }
        }
        cleaned
    }
}

/// Why a spawn's entries could not all be added (the program does not run).
#[derive(Debug, thiserror::Error)]
pub enum GrantError {
    #[error("cannot record the ACL entries rein is about to add in {path}: {error}")]
    Record { path: String, error: std::io::Error },
    #[error("cannot add an ACL entry on {path}: {error}{}", undone.as_ref().map(|u| format!("; {u} (recorded: the next start removes them)")).unwrap_or_default())]
    Add { path: String, error: std::io::Error, undone: Option<Undone> },
}

/// A spawn's entries, in place until [`Granted::revoke`].
#[derive(Debug)]
#[must_use = "the entries stay until revoked"]
pub struct Granted {
    record: Record,
    file: PathBuf,
}

/// Records the entries `plan` gives `grants` for `sid`, then adds them one by one; if one
/// cannot be added, the ones added are removed again (and the record deleted once they are
/// gone), so a spawn that cannot be confined leaves nothing behind.
pub fn grant(
    entries: &dyn AclEntries,
    records: &Records,
    grants: &Profile,
    sid: &str,
    pid: u32,
) -> Result<Granted, GrantError> {
    let record = Record { pid, aces: plan(grants, sid) };
    let file = records
        .write(sid, &record)
        .map_err(|error| GrantError::Record { path: records.dir.display().to_string(), error })?;
    for (n, ace) in record.aces.iter().enumerate() {
        match entries.add(ace) {
            Ok(()) => {}
            // A carved path that does not exist has nothing to protect yet (as on Linux).
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && ace.access == Access::DenyWrite => {}
            Err(error) => {
                let added = Record { pid, aces: record.aces[..n].to_vec() };
                let undone = undo(&added, |ace| entries.remove(ace)).err();
                if undone.is_none() {
                    // A record left behind only makes the next start remove entries already gone.
                    let _ = std::fs::remove_file(&file);
                }
                return Err(GrantError::Add { path: ace.path.display().to_string(), error, undone });
            }
        }
    }
    Ok(Granted { record, file })
}

impl Granted {
    /// Hands the entries to process `pid` (a kept program's holder, which outlives the rein
    /// that added them): the record is rewritten under its pid before the old one goes, so
    /// at every moment one names them, and the next start leaves them alone while that process
    /// runs (`Records::clean`). They stay until [`Records::release`] or that next start.
    #[cfg_attr(not(windows), allow(dead_code))]
    pub fn hand_to(&self, records: &Records, sid: &str, pid: u32) -> std::io::Result<()> {
        let record = Record { pid, aces: self.record.aces.clone() };
        let file = records.write(sid, &record)?;
        if file != self.file {
            std::fs::remove_file(&self.file)?;
        }
        Ok(())
    }

    /// Removes the spawn's entries (once its process tree has ended) and then its record; what
    /// cannot be removed stays recorded for the next start, and is returned.
    pub fn revoke(self, entries: &dyn AclEntries) -> Result<(), Undone> {
        match undo(&self.record, |ace| entries.remove(ace)) {
            Ok(()) => {
                // As in `grant`: a record left behind names only entries already gone.
                let _ = std::fs::remove_file(&self.file);
                Ok(())
            }
            Err(undone) => {
                // If the rewrite fails the record still lists every entry: the next start tries all.
                if let Ok(bytes) = serde_json::to_vec(&undone.left) {
                    let _ = std::fs::write(&self.file, bytes);
                }
                Err(undone)
            }
        }
    }
}

/// A spawn's entries with the OS's ACLs, removed when this is dropped: after the process tree
/// has ended (`spawn::Oversight::after_end`), or when the spawn fails before it starts.
pub struct Held {
    granted: Option<Granted>,
    entries: &'static dyn AclEntries,
}

impl Held {
    pub fn new(granted: Granted, entries: &'static dyn AclEntries) -> Held {
        Held { granted: Some(granted), entries }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some(granted) = self.granted.take() {
            if let Err(undone) = granted.revoke(self.entries) {
                tracing::warn!(target: "rein::spawn", "{undone} (recorded: the next start removes them)");
            }
        }
    }
}

/// The folder of rein's home that holds the records.
pub fn records_in(home: &Path) -> Records {
    Records::new(home.join("acl-entries"))
}

/// A new capability SID for one spawn, from the OS's random source.
pub fn new_capability_sid() -> std::io::Result<String> {
    let mut random = [0u8; 16];
    getrandom::fill(&mut random).map_err(|e| std::io::Error::other(format!("no random bits for a SID: {e}")))?;
    let word = |i: usize| u32::from_le_bytes([random[i], random[i + 1], random[i + 2], random[i + 3]]);
    Ok(capability_sid([word(0), word(4), word(8), word(12)]))
}

/// This OS's ACL entries: Windows' own; elsewhere there are none to add (the plan that asks for
/// them is made on Windows only).
pub fn os_entries() -> &'static dyn AclEntries {
    #[cfg(windows)]
    {
        &Win32Entries
    }
    #[cfg(not(windows))]
    {
        &NoEntries
    }
}

#[cfg(windows)]
struct Win32Entries;

#[cfg(windows)]
impl AclEntries for Win32Entries {
    fn add(&self, ace: &Ace) -> std::io::Result<()> {
        crate::kernel::platform::token_windows::add_entry(&ace.path, &ace.sid, ace.access == Access::DenyWrite)
    }
    fn remove(&self, ace: &Ace) -> std::io::Result<()> {
        crate::kernel::platform::token_windows::remove_entries(&ace.path, &ace.sid)
    }
}

#[cfg(not(windows))]
struct NoEntries;

#[cfg(not(windows))]
impl AclEntries for NoEntries {
    fn add(&self, _ace: &Ace) -> std::io::Result<()> {
        Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "Windows ACL entries exist only on Windows"))
    }
    fn remove(&self, _ace: &Ace) -> std::io::Result<()> {
        Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "Windows ACL entries exist only on Windows"))
    }
}

/// At start (a kernel that spawns, Windows): removes the entries of reins that are gone, and
/// says what it could not remove.
#[cfg_attr(not(windows), allow(dead_code))]
pub fn clean_at_start(home: &Path) {
    let cleaned = records_in(home).clean(crate::kernel::platform::alive::process_alive, os_entries());
    if cleaned.removed > 0 {
        tracing::info!(target: "rein::spawn", "removed the ACL entries {} earlier rein runs left", cleaned.removed);
    }
    for failed in cleaned.failed {
        tracing::warn!(target: "rein::spawn", "could not remove ACL entries an earlier rein left: {failed}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::process::grants::Carve;

    fn grants() -> Profile {
        Profile {
            read: vec![PathBuf::from("C:/sdk")],
            dev_nodes: vec![],
            write: vec![PathBuf::from("C:/t")],
            write_no_link: vec![PathBuf::from("C:/w/entry"), PathBuf::from("C:/w/build")],
            carve: vec![
                Carve { path: PathBuf::from("C:/w/entry/lib/.git"), most: Most::Read },
                Carve { path: PathBuf::from("C:/sdk/hdc.exe"), most: Most::ReadNoExecute },
            ],
            ..Profile::default()
        }
    }

    #[test]
    fn writable_folders_get_the_spawns_sid_and_carved_paths_beneath_them_a_deny() {
        let sid = capability_sid([1, 2, 3, 4]);
        assert_eq!(sid, "S-1-5-21-1-2-3-4");
        let ace = |path: &str, access| Ace { path: PathBuf::from(path), sid: sid.clone(), access };
        assert_eq!(
            plan(&grants(), &sid),
            [
                ace("C:/t", Access::Write),
                ace("C:/w/entry", Access::Write),
                ace("C:/w/build", Access::Write),
                ace("C:/w/entry/lib/.git", Access::DenyWrite),
            ],
            "the hdc binary is not under a writable folder: nothing to deny there; reads get no entry"
        );
    }

    #[test]
    fn an_entry_that_cannot_be_removed_stays_recorded_and_a_vanished_path_is_done() {
        let record = Record { pid: 7, aces: plan(&grants(), "S-1-5-21-1-2-3-4") };
        let undone = undo(&record, |ace| match ace.path.to_str() {
            Some("C:/t") => Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
            Some("C:/w/build") => Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied)),
            _ => Ok(()),
        })
        .unwrap_err();
        assert_eq!(undone.left.aces.iter().map(|a| a.path.clone()).collect::<Vec<_>>(), [PathBuf::from("C:/w/build")]);
        assert_eq!(undone.left.pid, 7);
        assert!(undone.to_string().contains("1 ACL entries"), "{undone}");
    }

    /// ACL entries in memory: what is on each path, and the paths where adding or removing
    /// fails (as `SetNamedSecurityInfoW` does on a folder the person may not change).
    #[derive(Default)]
    struct Entries {
        on: std::sync::Mutex<Vec<Ace>>,
        add_fails: Vec<PathBuf>,
        missing: Vec<PathBuf>,
        remove_fails: Vec<(PathBuf, String)>,
    }

    impl AclEntries for Entries {
        fn add(&self, ace: &Ace) -> std::io::Result<()> {
            if self.add_fails.contains(&ace.path) {
                return Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
            }
            if self.missing.contains(&ace.path) {
                return Err(std::io::Error::from(std::io::ErrorKind::NotFound));
            }
            self.on.lock().unwrap().push(ace.clone());
            Ok(())
        }
        fn remove(&self, ace: &Ace) -> std::io::Result<()> {
            if self.remove_fails.contains(&(ace.path.clone(), ace.sid.clone())) {
                return Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
            }
            self.on.lock().unwrap().retain(|a| !(a.path == ace.path && a.sid == ace.sid));
            Ok(())
        }
    }

    fn files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|l| l.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default();
        names.sort();
        names
    }

    /// The whole life of a spawn's entries: recorded before the first is added, all in place
    /// while it runs, none left and no record once it has ended.
    #[test]
    fn a_spawns_entries_are_recorded_first_and_gone_with_their_record_after() {
        let home = tempfile::tempdir().unwrap();
        let records = Records::new(home.path().join("acl"));
        let entries = Entries::default();
        let sid = capability_sid([9, 9, 9, 9]);
        let granted = grant(&entries, &records, &grants(), &sid, 77).unwrap();
        assert_eq!(*entries.on.lock().unwrap(), plan(&grants(), &sid));
        assert_eq!(files(&home.path().join("acl")), [format!("77-{sid}.json")]);
        granted.revoke(&entries).unwrap();
        assert!(entries.on.lock().unwrap().is_empty());
        assert!(files(&home.path().join("acl")).is_empty());
    }

    /// A folder whose ACL cannot be changed: the program does not run, and what was added
    /// before it is taken away again (no write entry outlives a refused spawn).
    #[test]
    fn when_one_entry_cannot_be_added_the_others_are_removed_and_nothing_is_left() {
        let home = tempfile::tempdir().unwrap();
        let records = Records::new(home.path().join("acl"));
        let entries = Entries { add_fails: vec![PathBuf::from("C:/w/build")], ..Entries::default() };
        let error = grant(&entries, &records, &grants(), "S-1-5-21-1-1-1-1", 5).unwrap_err();
        assert!(error.to_string().starts_with("cannot add an ACL entry on C:/w/build"), "{error}");
        assert!(entries.on.lock().unwrap().is_empty());
        assert!(files(&home.path().join("acl")).is_empty());
    }

    /// A carved path that does not exist gets no deny (nothing is there to protect, as on
    /// Linux) and the spawn goes on; a writable folder that does not exist fails it.
    #[test]
    fn a_missing_carved_path_is_passed_over_and_a_missing_writable_folder_refused() {
        let home = tempfile::tempdir().unwrap();
        let records = Records::new(home.path().join("acl"));
        let git = PathBuf::from("C:/w/entry/lib/.git");
        let entries = Entries { missing: vec![git.clone()], ..Entries::default() };
        let granted = grant(&entries, &records, &grants(), "S-1-5-21-2-2-2-2", 6).unwrap();
        assert!(entries.on.lock().unwrap().iter().all(|a| a.path != git));
        granted.revoke(&entries).unwrap();
        let entries = Entries { missing: vec![PathBuf::from("C:/w/build")], ..Entries::default() };
        assert!(grant(&entries, &records, &grants(), "S-1-5-21-2-2-2-3", 6).is_err());
        assert!(entries.on.lock().unwrap().is_empty());
    }

    /// A kept program's entries: added by rein (pid 41), handed to its holder (pid 50), which
    /// outlives that rein. The next start leaves them while the holder runs; `rein stop`
    /// releases them (entries and record gone); a holder that ended without a stop has them
    /// removed by the next start.
    #[test]
    fn a_kept_programs_entries_live_as_long_as_its_holder_and_go_with_it() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("acl");
        let records = Records::new(dir.clone());
        let entries = Entries::default();
        let (stopped, crashed) = ("S-1-5-21-5-0-0-1", "S-1-5-21-5-0-0-2");
        grant(&entries, &records, &grants(), stopped, 41).unwrap().hand_to(&records, stopped, 50).unwrap();
        grant(&entries, &records, &grants(), crashed, 41).unwrap().hand_to(&records, crashed, 51).unwrap();
        assert_eq!(files(&dir), [format!("50-{stopped}.json"), format!("51-{crashed}.json")]);
        let cleaned = records.clean(|pid| pid == 50 || pid == 51, &entries);
        assert_eq!((cleaned.removed, cleaned.failed.len()), (0, 0), "rein 41 is gone, its holders run");
        assert_eq!(entries.on.lock().unwrap().len(), 2 * plan(&grants(), stopped).len());
        records.release(50, stopped, &entries).unwrap();
        assert!(entries.on.lock().unwrap().iter().all(|a| a.sid == crashed));
        assert_eq!(files(&dir), [format!("51-{crashed}.json")]);
        records.release(50, stopped, &entries).unwrap();
        let cleaned = records.clean(|_| false, &entries);
        assert_eq!(cleaned.removed, 1, "{cleaned:?}");
        assert!(entries.on.lock().unwrap().is_empty());
        assert!(files(&dir).is_empty());
    }

    /// The crash: rein (pid 41) is killed with its entries in place; the next rein's cleanup
    /// removes them and the record, leaves a running rein's alone, and keeps (rewritten) the
    /// record of an entry it could not remove, naming it.
    #[test]
    fn the_next_start_removes_a_crashed_reins_entries_and_keeps_what_it_cannot() {
        let home = tempfile::tempdir().unwrap();
        let dir = home.path().join("acl");
        let records = Records::new(dir.clone());
        let (crashed, running, unlucky) = ("S-1-5-21-1-0-0-1", "S-1-5-21-1-0-0-2", "S-1-5-21-1-0-0-3");
        let entries =
            Entries { remove_fails: vec![(PathBuf::from("C:/t"), unlucky.to_string())], ..Entries::default() };
        for (sid, pid) in [(crashed, 41), (running, 42), (unlucky, 43)] {
            // Never revoked: as a crash leaves them.
            let _in_place = grant(&entries, &records, &grants(), sid, pid).unwrap();
        }
        std::fs::write(dir.join("44-garbled.json"), b"{").unwrap();
        let cleaned = records.clean(|pid| pid == 42, &entries);
        assert_eq!(cleaned.removed, 1, "{cleaned:?}");
        assert_eq!(cleaned.failed.len(), 2, "the unlucky record and the garbled one: {cleaned:?}");
        let on = entries.on.lock().unwrap().clone();
        assert!(on.iter().all(|a| a.sid == running || (a.sid == unlucky && a.path == Path::new("C:/t"))), "{on:?}");
        assert_eq!(on.len(), plan(&grants(), running).len() + 1);
        assert_eq!(files(&dir), ["42-S-1-5-21-1-0-0-2.json", "43-S-1-5-21-1-0-0-3.json", "44-garbled.json"]);
        let left: Record =
            serde_json::from_slice(&std::fs::read(dir.join("43-S-1-5-21-1-0-0-3.json")).unwrap()).unwrap();
        assert_eq!(left.aces.iter().map(|a| a.path.clone()).collect::<Vec<_>>(), [PathBuf::from("C:/t")]);
    }
}
