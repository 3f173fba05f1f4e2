//! java's command line, kept out of the process table. hap-sign-tool takes its passwords only as
//! arguments, and any process on the machine may read another's `/proc/<pid>/cmdline`. So the
//! kernel writes java's whole command line to an argument file in the spawn's private temp
//! directory (mode 0600, readable only by that spawn's profile, removed with the directory) and
//! runs `java @FILE`: the launcher reads it (JDK 9+, "java Command-Line Argument Files" in the
//! `java` tool's manual), so `/proc/<pid>/cmdline` shows only `java @FILE`. Seen with the real
//! hap-sign-tool jar on OpenJDK 17: the launcher does not run itself again with the arguments
//! spelled out, and an argument after `-jar` that starts with `@` is passed as it is.
//!
//! The kernel also sets java's temp directory (`java.io.tmpdir`, which java on Linux takes from
//! no variable) to the private one; a script's arguments come after `-jar` and cannot.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The argument file's name inside the private temp directory.
const FILE: &str = "java-arguments";

/// Writes `-Djava.io.tmpdir=<tmp> -jar <jar> <args>` to a 0600 file in `tmp`; java's argv is
/// then `@<file>`.
pub fn write(tmp: &Path, jar: &Path, args: &[String]) -> std::io::Result<PathBuf> {
    let path = tmp.join(FILE);
    let mut text = String::new();
    let fixed = [format!("-Djava.io.tmpdir={}", tmp.display()), "-jar".to_string(), jar.display().to_string()];
    for arg in fixed.iter().chain(args) {
        text.push_str(&quote(arg));
        text.push('\n');
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut file = options.open(&path)?;
    file.write_all(text.as_bytes())?;
    file.sync_all()?;
    Ok(path)
}

/// One argument in double quotes, with the escapes the launcher reads inside them.
fn quote(arg: &str) -> String {
    let mut out = String::with_capacity(arg.len() + 2);
    out.push('"');
    for c in arg.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{c}' => out.push_str("\\f"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_argument_is_quoted_so_the_launcher_reads_it_back_unchanged() {
        assert_eq!(quote("a b"), "\"a b\"");
        assert_eq!(quote("q\"u\\o\nte#"), "\"q\\\"u\\\\o\\nte#\"");
        let dir = tempfile::tempdir().unwrap();
        let path =
            write(dir.path(), Path::new("/sdk/hap-sign-tool.jar"), &["sign-app".into(), "-keyPwd".into()]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("\"-Djava.io.tmpdir="), "{text}");
        assert!(text.ends_with("\"-jar\"\n\"/sdk/hap-sign-tool.jar\"\n\"sign-app\"\n\"-keyPwd\"\n"), "{text}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        }
    }
}
