//! Grants around a carved path (Linux). Landlock only adds rights, and a rule on a directory
//! covers everything beneath it, so a path that must get less than its directory (the hdc binary
//! inside the SDK, a nested `.git` inside a workspace entry) is carved out by granting the
//! directory's entries one by one instead, down to the carved path, which gets only what its
//! carve allows. The directories on the way keep what the carve allows too (plus listing).
//! Entries that are links are never granted (a link would grant its target).

use std::path::{Path, PathBuf};

use landlock::{AccessFs, BitFlags, ABI};

use crate::kernel::policy::confinement::{Carve, Most};

/// One rule: a path, its rights, and whether a link there may be followed when opening it.
pub type Grant = (PathBuf, BitFlags<AccessFs>, bool);

/// What `most` allows, at this ABI.
pub fn allowed(most: Most, abi: ABI) -> BitFlags<AccessFs> {
    match most {
        Most::Read => AccessFs::from_read(abi),
        Most::ReadNoExecute => AccessFs::from_read(abi) & !AccessFs::Execute,
    }
}

/// `grants` with every grant that holds a carved path (strictly) replaced by grants of its
/// entries, and every grant of a carved path itself cut down to what the carve allows.
pub fn expand(grants: Vec<Grant>, carves: &[Carve], abi: ABI) -> Vec<Grant> {
    let mut out = Vec::new();
    for (path, access, follow) in grants {
        let inside: Vec<&Carve> = carves.iter().filter(|c| c.path.starts_with(&path)).collect();
        if inside.is_empty() {
            out.push((path, access, follow));
        } else {
            split(&path, access, &inside, abi, &mut out);
        }
    }
    out
}

fn split(dir: &Path, access: BitFlags<AccessFs>, carves: &[&Carve], abi: ABI, out: &mut Vec<Grant>) {
    let least = carves.iter().map(|c| allowed(c.most, abi)).fold(access, |acc, a| acc & a);
    if let Some(carve) = carves.iter().find(|c| c.path == dir) {
        // The carved path itself (a file or a whole directory).
        out.push((dir.to_path_buf(), access & allowed(carve.most, abi), false));
        return;
    }
    // The directory itself: what every carve below allows, and its listing.
    out.push((dir.to_path_buf(), least | (access & AccessFs::ReadDir), false));
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        let is_link = entry.file_type().is_ok_and(|t| t.is_symlink());
        let path = entry.path();
        let below: Vec<&Carve> = carves.iter().copied().filter(|c| c.path.starts_with(&path)).collect();
        if is_link {
            continue;
        }
        if below.is_empty() {
            out.push((path, access, false));
        } else if is_dir || below.iter().any(|c| c.path == path) {
            split(&path, access, &below, abi, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let grants = expand(vec![(sdk.clone(), read, true)], &[carve], ABI::V5);
        let of = |rel: &str| grants.iter().find(|(p, _, _)| *p == sdk.join(rel)).map(|(_, a, _)| *a);
        assert_eq!(of("toolchains/hdc"), Some(read & !AccessFs::Execute));
        assert_eq!(of("toolchains/restool"), Some(read));
        assert_eq!(of("toolchains/lib"), Some(read));
        assert_eq!(of("readme"), Some(read));
        assert_eq!(of("root"), None, "links are never granted");
        assert_eq!(of("toolchains/root"), None);
        let whole = grants.iter().find(|(p, _, _)| *p == sdk).map(|(_, a, _)| *a).unwrap();
        assert!(!whole.contains(AccessFs::Execute), "the directory itself carries no execute: {whole:?}");
        let untouched = expand(vec![(dir.path().join("other"), read, true)], &[], ABI::V5);
        assert_eq!(untouched.len(), 1);
    }
}
