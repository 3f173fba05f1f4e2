//! Windows confinement, planned: a program runs (inside its Job Object) with a write-restricted
//! token whose restricting SID is a capability SID of the spawn's own; only ACL entries rein adds
//! for that SID let it write. This module is the pure half, tested on every OS: which folder gets
//! which entry for which SID (`plan`), and the record that lets a crash's entries be removed at
//! the next start (`Record`, `leftovers`, `undo`). The Win32 half (the token, the entries, the
//! process started with the token) is not written yet, so Windows still reports no confinement
//! (docs/src/platform-confinement.md says why and what is left).
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

/// The records whose rein is no longer running (`alive` asks the OS about a pid).
pub fn leftovers(records: Vec<Record>, alive: impl Fn(u32) -> bool) -> Vec<Record> {
    records.into_iter().filter(|r| !alive(r.pid)).collect()
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

    /// The attack: rein crashes (or is killed) while a program runs; the write entries it added
    /// would let any later program with that SID write there. The record survives the crash,
    /// the next start finds it (its rein is gone) and removes every entry; a running rein's
    /// record is left alone.
    #[test]
    fn a_crashed_reins_entries_are_found_and_removed_and_a_running_ones_are_not() {
        let (crashed, running) = (Record { pid: 41, aces: plan(&grants(), "S-1-5-21-1-2-3-4") }, 42);
        let records = vec![crashed.clone(), Record { pid: running, aces: plan(&grants(), "S-1-5-21-5-6-7-8") }];
        let text = serde_json::to_string(&records).unwrap();
        let read_back: Vec<Record> = serde_json::from_str(&text).unwrap();
        let found = leftovers(read_back, |pid| pid == running);
        assert_eq!(found, std::slice::from_ref(&crashed));
        let mut removed = Vec::new();
        undo(&found[0], |ace| {
            removed.push(ace.clone());
            Ok(())
        })
        .unwrap();
        assert_eq!(removed, crashed.aces);
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
}
