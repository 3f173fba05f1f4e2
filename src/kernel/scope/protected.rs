//! The workspace's names that belong to rein and git, not to the agent: one table, read by the
//! scope (a path's class), the Landlock profile (which workspace entries a program may write)
//! and the pack installer (what is never a pack's content).
//!
//! Names compare without case and normalized ([`same_name`]), whatever the OS: on a disk that
//! ignores case (macOS's default APFS, Windows, casefolded ext4) `.GIT` is git's folder and
//! `REIN.TOML` the policy file; on one that does not, the wider match only makes an odd name
//! stricter.

use super::PathClass;

/// rein's own folder at the workspace root: the journal, pre-images, run reports.
pub const REIN_DIR: &str = ".rein";
/// rein's transit folder at the workspace root: where hdc puts a file the kernel receives from a
/// device (a screenshot, a UI tree) until the kernel takes it (`harmony::received`).
/// Evidence a person reviews passes through it, so only the hdc the kernel runs for a name it
/// reserved may write there.
pub const RECEIVED_DIR: &str = ".rein-received";
/// git's folder: its config and hooks run commands, so every one is protected (a nested
/// repository's too).
pub const GIT_DIR: &str = ".git";
/// The project's settings and policy, at the workspace root.
pub const PROJECT_FILE: &str = "rein.toml";
/// The project's pinned packs, at the workspace root.
pub const LOCK_FILE: &str = "rein.lock";

/// The settings folders and file of the person's agent clients and editor at the workspace
/// root: hooks (`.claude/settings.json`), MCP servers (`.mcp.json`, `.cursor/mcp.json`,
/// `.vscode/mcp.json`, `.codex/config.toml`) and tasks run on opening the folder
/// (`.vscode/tasks.json`) start commands outside rein's confinement, so, like git's hooks,
/// they change only with a person.
pub const CLIENT_SETTINGS: [&str; 5] = [".claude", ".codex", ".cursor", ".vscode", ".mcp.json"];

/// What a protected name covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Covers {
    /// The folder at the workspace root and everything in it.
    RootFolder,
    /// A folder of that name at any depth, and everything in it.
    FolderAnywhere,
    /// The file at the workspace root itself.
    RootFile,
}

/// One protected name: what it covers and the class a path it covers has.
#[derive(Debug, Clone, Copy)]
pub struct ProtectedName {
    pub name: &'static str,
    pub covers: Covers,
    pub class: PathClass,
}

/// The table, strictest class first (the first match decides).
pub const PROTECTED: [ProtectedName; 10] = [
    ProtectedName { name: REIN_DIR, covers: Covers::RootFolder, class: PathClass::Protected },
    ProtectedName { name: RECEIVED_DIR, covers: Covers::RootFolder, class: PathClass::Protected },
    ProtectedName { name: GIT_DIR, covers: Covers::FolderAnywhere, class: PathClass::Protected },
    // A folder's name covers a file of that name too (RootFolder matches the first part).
    ProtectedName { name: CLIENT_SETTINGS[0], covers: Covers::RootFolder, class: PathClass::Protected },
    ProtectedName { name: CLIENT_SETTINGS[1], covers: Covers::RootFolder, class: PathClass::Protected },
    ProtectedName { name: CLIENT_SETTINGS[2], covers: Covers::RootFolder, class: PathClass::Protected },
    ProtectedName { name: CLIENT_SETTINGS[3], covers: Covers::RootFolder, class: PathClass::Protected },
    ProtectedName { name: CLIENT_SETTINGS[4], covers: Covers::RootFolder, class: PathClass::Protected },
    ProtectedName { name: PROJECT_FILE, covers: Covers::RootFile, class: PathClass::Policy },
    ProtectedName { name: LOCK_FILE, covers: Covers::RootFile, class: PathClass::Policy },
];

/// The class the table gives a path inside the workspace, from its names after the workspace
/// (`["src", ".git", "config"]`); None when no protected name covers it.
pub fn class_of<S: AsRef<str>>(rest: &[S]) -> Option<PathClass> {
    let is = |part: &S, name: &str| same_name(part.as_ref(), name);
    PROTECTED.iter().find_map(|entry| {
        let covered = match entry.covers {
            Covers::RootFolder => rest.first().is_some_and(|first| is(first, entry.name)),
            Covers::FolderAnywhere => rest.iter().any(|part| is(part, entry.name)),
            Covers::RootFile => matches!(rest, [only] if is(only, entry.name)),
        };
        covered.then_some(entry.class)
    })
}

/// Whether `name` is git's folder (in any case): a repository's metadata, never content.
pub fn is_git_dir(name: &str) -> bool {
    same_name(name, GIT_DIR)
}

/// Whether two names may be the same name to the filesystem, folding every letter (for
/// protected names, home and policy: a wider match only makes a path stricter). Besides case
/// (NTFS, APFS), macOS compares names normalized (APFS, HFS+: `é` is `e` and U+0301), and
/// HFS+ ignores some invisible code points (the list git checks for, utf8.c `next_hfs_char`).
pub fn same_name(a: &str, b: &str) -> bool {
    // Every path of every call is compared: ASCII names (nearly all) are their own NFD, hold
    // no ignored code point and fold to ASCII, so they need none of the work below. A
    // non-ASCII name may still fold to ASCII (`ı` to `I`, `K` to `K`): it takes the long way.
    if a.is_ascii() && b.is_ascii() {
        return a.eq_ignore_ascii_case(b);
    }
    use unicode_normalization::UnicodeNormalization;
    let folded = |s: &str| s.nfd().filter(|c| !is_hfs_ignored(*c)).map(fold).collect::<Vec<char>>();
    folded(a) == folded(b)
}

/// Code points HFS+ leaves out when it compares names (git, utf8.c `next_hfs_char`).
fn is_hfs_ignored(c: char) -> bool {
    matches!(c, '\u{200c}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{206a}'..='\u{206f}' | '\u{feff}')
}

fn fold(c: char) -> char {
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(path: &str) -> Option<PathClass> {
        class_of(&path.split('/').collect::<Vec<_>>())
    }

    #[test]
    fn the_table_decides_each_class() {
        let cases = [
            (".rein", Some(PathClass::Protected)),
            (".rein/journal/x.jsonl", Some(PathClass::Protected)),
            (".rein-received", Some(PathClass::Protected)),
            (".REIN-Received/rein-screen-1.jpeg", Some(PathClass::Protected)),
            ("src/.rein-received/x", None),
            (".git", Some(PathClass::Protected)),
            (".git/hooks/pre-commit", Some(PathClass::Protected)),
            ("entry/.git/config", Some(PathClass::Protected)),
            ("vendor/lib/.Git/hooks/x", Some(PathClass::Protected)),
            (".g\u{200c}it/config", Some(PathClass::Protected)),
            ("rein.toml", Some(PathClass::Policy)),
            ("REIN.LOCK", Some(PathClass::Policy)),
            ("src/.rein/x", None),
            ("sub/rein.toml", None),
            (".claude/settings.json", Some(PathClass::Protected)),
            (".mcp.json", Some(PathClass::Protected)),
            (".VSCode/tasks.json", Some(PathClass::Protected)),
            (".codex/config.toml", Some(PathClass::Protected)),
            (".cursor/mcp.json", Some(PathClass::Protected)),
            ("entry/.vscode/settings.json", None),
            ("rein.toml/x", None),
            (".github/workflows/ci.yml", None),
            ("src/main.ets", None),
        ];
        for (path, want) in cases {
            assert_eq!(class(path), want, "{path}");
        }
    }

    #[test]
    fn git_dirs_by_name() {
        assert!(is_git_dir(".git") && is_git_dir(".Git") && !is_git_dir(".github"));
    }
}
