//! Resolving a path inside the workspace from the workspace's real path (what `resolve` does)
//! must give the real path and class that resolving it from `/` gives, whatever links the
//! workspace holds: to its parent and beyond, to `/`, to itself by its own name and through an
//! alias, into `.git` and home (a home inside the workspace), chains, loops, dangling links.

use std::os::unix::fs::symlink;
use std::path::Path;

use super::*;

#[test]
fn resolving_from_the_workspace_gives_what_resolving_from_the_root_gives() {
    let tmp = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(tmp.path()).unwrap();
    let (ws, home) = (base.join("ws"), base.join("ws/h"));
    for dir in ["ws/a/b", "ws/.git/objects", "ws/h/x", "out/c", "ws/sub/.rein"] {
        std::fs::create_dir_all(base.join(dir)).unwrap();
    }
    symlink(&base, base.join("alias")).unwrap();
    let (alias_ws, alias_git) = (base.join("alias/ws"), base.join("alias/ws/.git"));
    let links = [
        ("up", ".."),
        ("upup", "../.."),
        ("root", "/"),
        ("self", "."),
        ("selfabs", ws.to_str().unwrap()),
        ("selfalias", alias_ws.to_str().unwrap()),
        ("a/back", "../../ws/a"),
        ("a/git", "../.git"),
        ("a/b/toout", "../../../out"),
        ("loop1", "loop2"),
        ("loop2", "loop1"),
        ("dangling", "nothing/here"),
        ("tohome", "h/x"),
        ("viaalias", alias_git.to_str().unwrap()),
    ];
    for (at, to) in links {
        symlink(to, ws.join(at)).unwrap();
    }
    let names = [
        "up",
        "upup",
        "root",
        "self",
        "selfabs",
        "selfalias",
        "a",
        "b",
        "back",
        "git",
        "toout",
        "loop1",
        "dangling",
        "tohome",
        "viaalias",
        "..",
        ".",
        ".git",
        "rein.toml",
        "h",
        "x",
        "ws",
        "out",
        "c",
        "new",
        "sub",
        ".rein",
        "alias",
    ];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..20_000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut pick = state;
        let count = 1 + (pick % 5) as usize;
        pick /= 5;
        let parts: Vec<&str> = (0..count)
            .map(|_| {
                let name = names[(pick % names.len() as u64) as usize];
                pick /= names.len() as u64;
                name
            })
            .collect();
        let mut requested = parts.join("/");
        if pick.is_multiple_of(3) {
            requested = format!("{}/{requested}", ws.display());
        }
        let from_root = resolve_real(&normalize_lexically(&absolute(Path::new(&requested), &ws)))
            .map(|real| (classify(&ws, &home, &real), real));
        match (resolve(&ws, &Identity::of(&ws), &home, &requested), from_root) {
            (Ok(resolved), Ok(expected)) => assert_eq!((resolved.class, resolved.real), expected, "{requested}"),
            (Err(ScopeError::LinkLoop { .. }), Err(ScopeError::LinkLoop { .. })) => {}
            (resolved, expected) => panic!("{requested}: {resolved:?} against {expected:?} from /"),
        }
    }
}
