//! `rein-fake-device install-toolchain DIR`: puts the fake toolchain's programs in DIR — `hdc`,
//! `hvigorw`, `ohpm` and `rein-fake-device` (with `.exe` on Windows), each a copy of this
//! program — so DIR first on PATH is a toolchain a program finds by name on any OS. Copies, not
//! hard links: as the real programs are, each is a file of its own, so what rein lets one of
//! them do (Landlock rules hold for a file, whatever its names) is not given to the others. The
//! tests (`tests/common/lab.rs`), the self-test and `fake-env` run it.

use std::path::{Path, PathBuf};

pub const COMMAND: &str = "install-toolchain";

const NAMES: [&str; 6] = ["hdc", "hvigorw", "ohpm", "Emulator", "hstack", "rein-fake-device"];

pub fn install(args: &[String]) -> i32 {
    let [dir] = args else {
        eprintln!("usage: rein-fake-device {COMMAND} DIR");
        return 2;
    };
    let me = std::env::current_exe().expect("this program's path");
    let dir = Path::new(dir);
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("{COMMAND}: {}: {e}", dir.display());
        return 1;
    }
    for name in NAMES {
        let target = dir.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
        if let Err(e) = place(&me, &target) {
            eprintln!("{COMMAND}: {}: {e}", target.display());
            return 1;
        }
    }
    0
}

/// `target` as a copy of `me`, unless it already holds the same bytes (a running copy cannot be
/// replaced on Windows).
fn place(me: &Path, target: &Path) -> std::io::Result<()> {
    if same_file(me, target) {
        return Ok(());
    }
    let tmp = target.with_extension(format!("{}.tmp", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    std::fs::copy(me, &tmp)?;
    std::fs::rename(&tmp, target).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else { return false };
    ma.len() == mb.len() && std::fs::read(a).ok() == std::fs::read(b).ok()
}

/// This program under its own name (`rein-fake-device`), beside the link it runs as.
pub fn device_program() -> PathBuf {
    let me = std::env::current_exe().expect("this program's path");
    let own = me.with_file_name(format!("rein-fake-device{}", std::env::consts::EXE_SUFFIX));
    if own.exists() {
        own
    } else {
        me
    }
}
