//! Windows paths in the scope, as tables: what each text means to Windows, its class, and
//! what is refused because Windows would read it differently from the check.

use std::collections::BTreeMap;

use super::*;

fn ws() -> WinPath {
    WinPath { root: Root::Drive('C'), parts: vec!["ws".into()] }
}

fn home() -> WinPath {
    WinPath { root: Root::Drive('C'), parts: vec!["Users".into(), "dev".into(), ".rein".into()] }
}

/// Links as the disk has them: path (display form, exact case) -> stored target.
fn links() -> BTreeMap<String, String> {
    [
        // A junction (stored as an NT path) out of the workspace.
        (r"C:\ws\j", r"\??\C:\Windows"),
        // A junction to the workspace's own .git.
        (r"C:\ws\gitdir", r"\??\C:\ws\.git"),
        // A relative symlink inside the workspace, and one climbing out.
        (r"C:\ws\inner", r"src"),
        (r"C:\ws\up", r"..\other"),
        // A symlink to a share.
        (r"C:\ws\share", r"\\?\UNC\srv\pub\x"),
        // A cycle.
        (r"C:\ws\a", r"b"),
        (r"C:\ws\b", r"a"),
        // A link whose target Windows would trim.
        (r"C:\ws\sneaky", r".git."),
        // A junction, and a symlink whose target climbs back out of it with `..`: Windows
        // takes the `..` off the target's text (C:\ws\.git\config), a walk through the
        // junction would not (C:\elsewhere\.git\config).
        (r"C:\ws\deep", r"\??\C:\elsewhere\sub"),
        (r"C:\ws\tricky", r"deep\..\.git\config"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

/// Resolves `text` against the fixture: parse, follow links, classify.
fn class_of(text: &str) -> Result<(String, PathClass), &'static str> {
    let table = links();
    let parsed = parse(text, &ws()).map_err(|r| r.why)?;
    let lookup = |p: &WinPath| Ok(table.get(&p.display()).cloned());
    let real = resolve_links(&parsed, &lookup).map_err(|r| r.why)?;
    Ok((real.display(), classify(&ws(), &home(), &real)))
}

#[test]
fn windows_paths_resolve_to_the_class_windows_would_reach() {
    use PathClass::*;
    let cases: &[(&str, &str, PathClass)] = &[
        // (requested, real path, class)
        (r"src\main.ets", r"C:\ws\src\main.ets", Workspace),
        ("src/main.ets", r"C:\ws\src\main.ets", Workspace),
        (r"src/sub\mixed.ets", r"C:\ws\src\sub\mixed.ets", Workspace),
        (r"C:\ws\..\Windows", r"C:\Windows", Outside),
        (r"C:\ws\src\..\..\..\..\x", r"C:\x", Outside),
        (r"..\ws2\file", r"C:\ws2\file", Outside),
        (r"C:\ws2\file", r"C:\ws2\file", Outside),
        (r"\\?\C:\ws\a.txt", r"C:\ws\a.txt", Workspace),
        (r"c:\WS\src\x.ets", r"C:\WS\src\x.ets", Workspace),
        (r"\ws\x", r"C:\ws\x", Workspace),
        (r"C:\WS\.GIT\config", r"C:\WS\.GIT\config", Protected),
        (r"C:/ws/.git/config", r"C:\ws\.git\config", Protected),
        (r"vendor\lib\.Git\HEAD", r"C:\ws\vendor\lib\.Git\HEAD", Protected),
        (r".gıt\config", r"C:\ws\.gıt\config", Protected),
        (r".REIN\journal\x", r"C:\ws\.REIN\journal\x", Protected),
        (r"src\.rein\x", r"C:\ws\src\.rein\x", Workspace),
        ("REIN.TOML", r"C:\ws\REIN.TOML", Policy),
        (r"Rein.Lock", r"C:\ws\Rein.Lock", Policy),
        (r"sub\rein.toml", r"C:\ws\sub\rein.toml", Workspace),
        (r"C:\Users\DEV\.rein\approvals.toml", r"C:\Users\DEV\.rein\approvals.toml", Home),
        (r"D:\ws\x", r"D:\ws\x", Outside),
        (r"\\srv\pub\x", r"\\srv\pub\x", Outside),
        (r"\\?\UNC\srv\pub\x", r"\\srv\pub\x", Outside),
        // Junctions and symlinks are links: judged by where they lead.
        (r"j\System32\drivers\etc\hosts", r"C:\Windows\System32\drivers\etc\hosts", Outside),
        (r"gitdir\config", r"C:\ws\.git\config", Protected),
        (r"inner\a.ets", r"C:\ws\src\a.ets", Workspace),
        (r"up\x", r"C:\other\x", Outside),
        (r"share", r"\\srv\pub\x", Outside),
    ];
    for (requested, real, class) in cases {
        assert_eq!(class_of(requested), Ok((real.to_string(), *class)), "{requested}");
    }
}

#[test]
fn what_windows_would_read_differently_is_refused() {
    let cases: &[(&str, &str)] = &[
        // (requested, a word of the reason)
        (r"GIT~1\config", "8.3"),
        (r"REIN~1.TOM", "8.3"),
        (r"PROGRA~1\x", "8.3"),
        (r".git.\config", "trimmed"),
        (r".git \config", "trimmed"),
        (r"rein.toml.", "trimmed"),
        (r"...", "trimmed"),
        (r".git::$DATA", "alternate data stream"),
        (r"rein.toml:evil", "alternate data stream"),
        (r"\\.\C:\ws\a", "device"),
        (r"//./C:/ws/a", "device"),
        (r"\??\C:\ws\a", "device"),
        (r"\\?\GLOBALROOT\Device\HarddiskVolume1\ws", "volume"),
        (r"\\?\Volume{01234567-89ab-cdef-0123-456789abcdef}\ws", "volume"),
        (r"\\?\C:\ws/.git", "literally"),
        (r"\\?\C:\ws\..\Windows", "verbatim"),
        (r"C:ws\a", "drive-relative"),
        (r"C:", "drive-relative"),
        (r"\\?\C:", "raw volume"),
        (r"/\.\C:\x", "device"),
        (r"\/?\C:\x", "device"),
        (r"\\.", "device"),
        (r"/??/C:/x", "NT namespace"),
        (r"nul", "devices"),
        (r"src\con.txt", "devices"),
        (r"COM1", "devices"),
        (r"lpt³.log", "devices"),
        (r"CONIN$", "devices"),
        (r"src\a*.ets", "plain file name"),
        (r"src\a?.ets", "plain file name"),
        (r"\\?", "device"),
        (r"\\srv", "server\\share"),
        (r"sneaky\config", "trimmed"),
        (r"\\localhost\C$\ws\.git\config", "administrative share"),
        (r"\\srv\ADMIN$\x", "administrative share"),
        (r"\\?\UNC\localhost\c$\ws", "administrative share"),
        (r"\\LOCALHOST\ws\x", "this machine"),
        (r"\\127.0.0.1\ws\x", "this machine"),
        (r"//localhost/ws/x", "this machine"),
        // The loopback address in the other spellings Windows' resolver accepts (inet_addr's
        // decimal, hex and octal forms, the ipv6-literal.net names) and behind WebDAV's @.
        (r"\\2130706433\ws\x", "this machine"),
        (r"\\0x7f000001\ws\x", "this machine"),
        (r"\\0x7F.1\ws\x", "this machine"),
        (r"\\0177.0.0.1\ws\x", "this machine"),
        (r"\\0\ws\x", "this machine"),
        (r"\\0--1.ipv6-literal.net\ws\x", "this machine"),
        (r"\\localhost@SSL@443\DavWWWRoot\x", "this machine"),
        (r"\\?\UNC\2130706433\ws\x", "this machine"),
        (r"\\?\unc\localhost\c$\ws", "volume"),
        (r".REIN::$INDEX_ALLOCATION", "alternate data stream"),
        (r"a\x", "cycle"),
        (r"tricky", "climbs"),
    ];
    for (requested, why) in cases {
        match class_of(requested) {
            Err(reason) => assert!(reason.contains(why), "{requested}: refused for {reason:?}, expected {why:?}"),
            Ok(resolved) => panic!("{requested} was accepted as {resolved:?}"),
        }
    }
}

#[test]
fn accepted_names_that_look_close_to_refused_ones() {
    for name in ["console.log", "nullable.ts", "COM10", "lpt", "a~b", "file~", ".github", "auxiliary", "rein.toml.bak"]
    {
        assert!(class_of(name).is_ok(), "{name} should be a plain name");
    }
}

#[test]
fn verbatim_and_display_forms() {
    let p = parse(r"c:/ws/a\b", &ws()).unwrap();
    assert_eq!(p.verbatim(), r"\\?\C:\ws\a\b");
    assert_eq!(p.display(), r"C:\ws\a\b");
    let unc = parse(r"\\srv\pub\dir", &ws()).unwrap();
    assert_eq!(unc.verbatim(), r"\\?\UNC\srv\pub\dir");
    let drive_root = parse(r"D:\", &ws()).unwrap();
    assert_eq!(drive_root.verbatim(), r"\\?\D:\");
    let mixed = parse(r"C:\WS\Src\x", &ws()).unwrap().rebased(&ws());
    assert_eq!(mixed.display(), r"C:\ws\Src\x", "the workspace part takes the workspace's spelling");
}

#[test]
fn names_compare_without_case_like_ntfs() {
    assert!(same_name(".GIT", ".git"));
    assert!(same_name(".gıt", ".git"), "dotless i folds to I");
    assert!(!same_name(".git", ".gitx"));
    // macOS compares names normalized (APFS, HFS+), and HFS+ ignores some invisible code
    // points (git's utf8.c, next_hfs_char): the stricter classes must not tell them apart.
    assert!(same_name("Jose\u{301}", "JOSÉ"), "NFD and NFC");
    assert!(same_name(".g\u{200c}it", ".git"), "a zero-width non-joiner");
    assert!(same_name("\u{212a}ey", "KEY"), "the Kelvin sign is K once normalized (non-ASCII on one side)");
    assert!(same_name("Config", "cONFIG") && !same_name("config", "confjg"), "ASCII on both sides");
    assert!(same_name("\u{feff}.rein", ".rein"));
    assert!(!same_name(".g-it", ".git"));
    let upper_ws = WinPath { root: Root::Drive('C'), parts: vec!["WS".into()] };
    let inside = parse(r"C:\ws\a", &ws()).unwrap();
    assert_eq!(inside.strip_prefix(&upper_ws), Some(&["a".to_string()][..]));
    let sibling = parse(r"C:\wsx\a", &ws()).unwrap();
    assert_eq!(sibling.strip_prefix(&ws()), None);
}

/// A workspace or home whose path has letters beyond ASCII (`C:\Users\José`) is the same
/// folder to NTFS in any case. Seen as "outside", its protected files and the person's home
/// would be what an approval (even `--yes`) may reach: the stricter classes fold every letter.
#[test]
fn home_and_protected_files_keep_their_class_whatever_the_case_of_other_letters() {
    use PathClass::*;
    let ws = WinPath { root: Root::Drive('C'), parts: vec!["Proyectos".into(), "Año".into(), "ws".into()] };
    let home = WinPath { root: Root::Drive('C'), parts: vec!["Users".into(), "José".into(), ".rein".into()] };
    let class = |text: &str| classify(&ws, &home, &parse(text, &ws).unwrap());
    assert_eq!(class(r"C:\Users\JOSÉ\.rein\approvals.toml"), Home);
    assert_eq!(class(r"C:\PROYECTOS\AÑO\WS\.git\config"), Protected);
    assert_eq!(class(r"C:\proyectos\año\ws\.rein\x"), Protected);
    assert_eq!(class(r"C:\Proyectos\AÑO\ws\rein.toml"), Policy);
    // Plain files stay "outside" under another case (asked about, never silently allowed).
    assert_eq!(class(r"C:\Proyectos\AÑO\ws\src\a.ets"), Outside);
    assert_eq!(class(r"C:\Proyectos\Año\ws\src\a.ets"), Workspace);
}
