//! Paths as rein keys, compares and hashes them, the same on every OS.
//!
//! - A name relative to a folder is its parts joined with `/` (`tools/a.lua`), never the OS's
//!   separator: Windows hands out `tools\a.lua`, and a tool, a module, a pack's hash or a
//!   journal line must not depend on where rein runs (a `rein.lock` pinned on Linux verifies
//!   on Windows).
//!
//! How a path is shown to a person is [`crate::visible`]'s.

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
}
