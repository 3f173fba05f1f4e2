//! Grants around a carved path (Linux). Landlock only adds rights, and a rule on a directory
//! covers everything beneath it, so a path that must get less than its directory (the hdc binary
//! inside the SDK, a nested `.git` inside a workspace entry, `/etc/shadow` inside `/etc`) is
//! carved out by granting the directory's entries one by one instead, down to the carved path,
//! which gets only what its carve allows (perhaps nothing). The directories on the way keep what
//! the carve allows too (plus listing). Entries that are links are never granted (a link would
//! grant its target).
//!
//! The walk goes by handle (`handles`): another program of the workspace may be swapping a
//! folder for a link while rein walks, and a rule holds the very handle rein opened, so what a
//! rule grants is what rein saw, never a link's target.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use landlock::{AccessFs, BitFlags, ABI};

use super::handles;
use crate::kernel::process::grants::{Carve, Most};

/// One grant asked for: a path, its rights, and whether a link there may be followed.
pub type Grant = (PathBuf, BitFlags<AccessFs>, bool);

/// One rule for the ruleset: the handle rein opened, its rights, and its path (for messages).
#[derive(Debug)]
pub struct Rule {
    pub path: PathBuf,
    pub handle: OwnedFd,
    pub access: BitFlags<AccessFs>,
}

/// What `most` allows, at this ABI.
pub fn allowed(most: Most, abi: ABI) -> BitFlags<AccessFs> {
    match most {
        Most::Read => AccessFs::from_read(abi),
        Most::ReadNoExecute => AccessFs::from_read(abi) & !AccessFs::Execute,
        Most::Nothing => BitFlags::EMPTY,
    }
}

/// The rules for `grants`: every grant that holds a carved path (strictly) replaced by rules on
/// its entries, every grant of a carved path itself cut down to what the carve allows. Paths
/// that are missing (or links, where they may not be followed) give no rule.
pub fn expand(grants: Vec<Grant>, carves: &[Carve], abi: ABI) -> Vec<Rule> {
    expand_observed(grants, carves, abi, &mut |_| {})
}

/// [`expand`], calling `listed` after each folder is listed and before its entries are opened
/// (the moment another program's swap would have to hit; tests swap there).
pub fn expand_observed(grants: Vec<Grant>, carves: &[Carve], abi: ABI, listed: &mut dyn FnMut(&Path)) -> Vec<Rule> {
    let mut out = Vec::new();
    for (path, access, follow) in grants {
        let inside: Vec<&Carve> = carves.iter().filter(|c| c.path.starts_with(&path)).collect();
        if inside.is_empty() {
            push(&mut out, path.clone(), handles::path(&path, follow), access);
        } else if let Some(carve) = inside.iter().find(|c| c.path == path) {
            push(&mut out, path.clone(), handles::path(&path, follow), access & allowed(carve.most, abi));
        } else if let Some(dir) = handles::open_dir(&path, follow) {
            split(&dir, &path, access, &inside, abi, &mut out, listed);
        }
    }
    out
}

/// Rules for the folder `dir` (at `path`), which holds `carves` strictly below it.
fn split(
    dir: &OwnedFd,
    path: &Path,
    access: BitFlags<AccessFs>,
    carves: &[&Carve],
    abi: ABI,
    out: &mut Vec<Rule>,
    listed: &mut dyn FnMut(&Path),
) {
    // The folder itself: what every carve below allows, and its listing.
    let least = carves.iter().map(|c| allowed(c.most, abi)).fold(access, |acc, a| acc & a);
    push(out, path.to_path_buf(), dir.try_clone().ok(), least | (access & AccessFs::ReadDir));
    let entries = handles::entries(dir);
    listed(path);
    for (name, _) in entries {
        let child = path.join(&name);
        let below: Vec<&Carve> = carves.iter().copied().filter(|c| c.path.starts_with(&child)).collect();
        if let Some(carve) = below.iter().find(|c| c.path == child) {
            push(out, child, handles::entry(dir, &name), access & allowed(carve.most, abi));
        } else if below.is_empty() {
            push(out, child, handles::entry(dir, &name), access);
        } else if let Some(inner) = handles::child_dir(dir, &name) {
            split(&inner, &child, access, &below, abi, out, listed);
        }
    }
}

fn push(out: &mut Vec<Rule>, path: PathBuf, handle: Option<OwnedFd>, access: BitFlags<AccessFs>) {
    if let Some(handle) = handle.filter(|_| !access.is_empty()) {
        out.push(Rule { path, handle, access });
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt;

    use landlock::Access;

    use super::*;

    fn access_of(rules: &[Rule], path: &Path) -> Option<BitFlags<AccessFs>> {
        rules.iter().find(|r| r.path == path).map(|r| r.access)
    }

    #[test]
    fn a_carved_binary_is_readable_but_not_executable_and_its_siblings_keep_everything() {
        let dir = tempfile::tempdir().unwrap();
        let sdk = dir.path().join("sdk");
        std::fs::create_dir_all(sdk.join("toolchains/lib")).unwrap();
        for file in ["toolchains/hdc", "toolchains/restool", "toolchains/lib/libusb.so", "readme"] {
            std::fs::write(sdk.join(file), "x").unwrap();
        }
        std::os::unix::fs::symlink("/", sdk.join("toolchains/root")).unwrap();
        let read = AccessFs::from_read(ABI::V5);
        let carve = Carve { path: sdk.join("toolchains/hdc"), most: Most::ReadNoExecute };
        let rules = expand(vec![(sdk.clone(), read, true)], &[carve], ABI::V5);
        let of = |rel: &str| access_of(&rules, &sdk.join(rel));
        assert_eq!(of("toolchains/hdc"), Some(read & !AccessFs::Execute));
        assert_eq!(of("toolchains/restool"), Some(read));
        assert_eq!(of("toolchains/lib"), Some(read));
        assert_eq!(of("readme"), Some(read));
        assert_eq!(of("root"), None, "links are never granted");
        assert_eq!(of("toolchains/root"), None);
        let whole = access_of(&rules, &sdk).unwrap();
        assert!(!whole.contains(AccessFs::Execute), "the directory itself carries no execute: {whole:?}");
        let untouched = expand(vec![(dir.path().to_path_buf(), read, true)], &[], ABI::V5);
        assert_eq!(untouched.len(), 1);
    }

    /// `/etc/shadow` and the like get no rule at all; `/etc` itself only its listing.
    #[test]
    fn a_path_carved_to_nothing_gets_no_rule() {
        let dir = tempfile::tempdir().unwrap();
        let etc = dir.path().join("etc");
        std::fs::create_dir_all(&etc).unwrap();
        std::fs::write(etc.join("shadow"), "root:x").unwrap();
        std::fs::write(etc.join("passwd"), "root:x").unwrap();
        let read = AccessFs::from_read(ABI::V5);
        let carve = Carve { path: etc.join("shadow"), most: Most::Nothing };
        let rules = expand(vec![(etc.clone(), read, true)], &[carve], ABI::V5);
        assert_eq!(access_of(&rules, &etc.join("shadow")), None);
        assert_eq!(access_of(&rules, &etc.join("passwd")), Some(read));
        assert_eq!(access_of(&rules, &etc), Some(BitFlags::from(AccessFs::ReadDir)));
    }

    /// findings/04: a folder holding a nested `.git` is swapped for a link to rein's home after
    /// rein listed its parent and before it opens the folder's entries. No rule may reach the
    /// link's target.
    #[test]
    fn a_folder_swapped_for_a_link_after_listing_grants_nothing_behind_the_link() {
        let dir = tempfile::tempdir().unwrap();
        let (entry, home) = (dir.path().join("entry"), dir.path().join("home"));
        std::fs::create_dir_all(entry.join("sub/.git")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join("config.toml"), "[spawn]\n").unwrap();
        let carve = Carve { path: entry.join("sub/.git"), most: Most::Read };
        let mut swap = |listed: &Path| {
            if listed == entry {
                std::fs::rename(entry.join("sub"), dir.path().join("old-sub")).unwrap();
                std::os::unix::fs::symlink(&home, entry.join("sub")).unwrap();
            }
        };
        let all = AccessFs::from_all(ABI::V5);
        let rules = expand_observed(vec![(entry.clone(), all, false)], &[carve], ABI::V5, &mut swap);
        let home_inodes: Vec<u64> =
            [home.clone(), home.join("config.toml")].iter().map(|p| std::fs::metadata(p).unwrap().ino()).collect();
        for rule in &rules {
            let inode = rustix::fs::fstat(&rule.handle).unwrap().st_ino;
            assert!(!home_inodes.contains(&inode), "{} reaches rein's home through the link", rule.path.display());
        }
        assert!(access_of(&rules, &entry).is_some(), "the folder rein listed is still granted");
    }
}
