//! Paths as people read them: the familiar form. rein opens paths on Windows in the verbatim
//! form (`\\?\C:\ws`), so Windows does not rewrite them; a person knows `C:\ws`.

use std::borrow::Cow;
use std::path::Path;

/// `path` as a person should read it: on Windows without the verbatim prefix
/// (`\\?\C:\a` → `C:\a`, `\\?\UNC\srv\share\a` → `\\srv\share\a`); elsewhere as it is. Not
/// escaped: for comparing paths in this form, and for texts escaped as a whole later; a path
/// shown by itself goes through [`path`](super::path).
pub fn shown_path(path: impl AsRef<Path>) -> String {
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
        let shown = shown_path(&canonical);
        assert!(!shown.starts_with(r"\\?\") && shown.as_bytes()[1] == b':', "{shown}");
    }
}
