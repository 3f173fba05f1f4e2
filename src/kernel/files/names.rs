//! Paths as rein keys, compares, hashes and shows them, the same on every OS.
//!
//! - A name relative to a folder is its parts joined with `/` (`tools/a.lua`), never the OS's
//!   separator: Windows hands out `tools\a.lua`, and a tool, a module, a pack's hash or a
//!   journal line must not depend on where rein runs (a `rein.lock` pinned on Linux verifies
//!   on Windows).
//! - A path shown to a person is the familiar form: Windows' verbatim prefix, which rein opens
//!   paths with so Windows does not rewrite them, is left off (`C:\ws`, not `\\?\C:\ws`).

use std::borrow::Cow;
use std::path::{Component, Path};

/// `path` relative to `root`, its parts joined with `/`; `""` for `root` itself. None when
/// `path` is not under `root` or climbs with `..`.
pub fn relative_name(path: &Path, root: &Path) -> Option<String> {
    slash_name(path.strip_prefix(root).ok()?)
}

/// The relative path `rel` as a name: its parts joined with `/`. None when it is absolute or
/// climbs with `..`.
pub fn slash_name(rel: &Path) -> Option<String> {
    let mut parts = Vec::new();
    for component in rel.components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy()),
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

/// `path` as a person should read it: on Windows without the verbatim prefix
/// (`\\?\C:\a` → `C:\a`, `\\?\UNC\srv\share\a` → `\\srv\share\a`); elsewhere as it is.
pub fn shown(path: impl AsRef<Path>) -> String {
    let text = path.as_ref().to_string_lossy();
    if cfg!(windows) {
        without_verbatim_prefix(&text).into_owned()
    } else {
        text.into_owned()
    }
}

/// The text of a Windows path without its verbatim prefix, when what follows is a drive or a
/// UNC share; other verbatim paths (`\\?\Volume{…}`) have no familiar form and stay as they
/// are. Pure, so its table runs on every OS.
pub fn without_verbatim_prefix(text: &str) -> Cow<'_, str> {
    if let Some(share) = text.strip_prefix(r"\\?\UNC\") {
        return Cow::Owned(format!(r"\\{share}"));
    }
    match text.strip_prefix(r"\\?\") {
        Some(rest) if is_drive_path(rest) => Cow::Borrowed(rest),
        _ => Cow::Borrowed(text),
    }
}

fn is_drive_path(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' && bytes.get(2).is_none_or(|&b| b == b'\\')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_names_are_joined_with_slashes_on_every_os() {
        let root = std::env::temp_dir().join("ws");
        let nested = root.join("tools").join("lib").join("m.lua");
        assert_eq!(relative_name(&nested, &root).as_deref(), Some("tools/lib/m.lua"));
        assert_eq!(relative_name(&root, &root).as_deref(), Some(""));
        assert_eq!(relative_name(&std::env::temp_dir().join("other"), &root), None);
    }

    #[test]
    fn the_verbatim_prefix_is_left_off_drives_and_shares_only() {
        for (text, expected) in [
            (r"\\?\C:\ws\a.txt", r"C:\ws\a.txt"),
            (r"\\?\Z:\", r"Z:\"),
            (r"\\?\c:", r"c:"),
            (r"\\?\UNC\srv\share\a", r"\\srv\share\a"),
            (r"C:\ws", r"C:\ws"),
            (r"\\srv\share", r"\\srv\share"),
            (r"\\?\Volume{0b1c}\a", r"\\?\Volume{0b1c}\a"),
            (r"\\?\GLOBALROOT\Device\x", r"\\?\GLOBALROOT\Device\x"),
            ("/home/u/ws", "/home/u/ws"),
        ] {
            assert_eq!(without_verbatim_prefix(text), expected, "{text}");
        }
    }

    #[cfg(windows)]
    #[test]
    fn a_canonical_windows_path_is_shown_without_its_prefix() {
        let canonical = std::fs::canonicalize(std::env::temp_dir()).unwrap();
        assert!(canonical.to_string_lossy().starts_with(r"\\?\"), "{}", canonical.display());
        let shown = shown(&canonical);
        assert!(!shown.starts_with(r"\\?\") && shown.as_bytes()[1] == b':', "{shown}");
    }
}
