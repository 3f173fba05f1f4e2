//! What rein hands `CreateProcessAsUserW` when it starts a program with a restricted token
//! (Windows; `platform::token_windows`): one command line and one environment block, built here
//! as pure functions, tested on every OS. `std::process::Command` builds both for every other
//! spawn, but it cannot take a token, so the restricted-token path needs its own.
//!
//! Why our own code: the quoting is the rule the Microsoft C runtime (and Rust's std) parse a
//! command line back into arguments with ("Parsing C++ command-line arguments", Microsoft
//! Learn), which no crate in the lock exposes; an argument the agent chose must come back as
//! exactly one argument. A batch file is refused: `CreateProcess` runs it through `cmd.exe`,
//! which parses the line by other rules (Rust's CVE-2024-24576); rein runs DevEco's scripts with
//! their own node, never through `cmd.exe`.

use std::path::Path;

/// Why a command line or environment cannot be handed over as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LaunchError {
    #[error("an argument holds a NUL character, which a Windows command line cannot carry")]
    NulInArgument,
    #[error("the program path holds a quote or a NUL character: {0}")]
    BadProgram(String),
    #[error("{0} is a batch file, which Windows runs through cmd.exe; rein starts no program that way")]
    BatchFile(String),
    #[error("the environment variable {0:?} has a name Windows cannot carry (empty, or with = or NUL)")]
    BadName(String),
    #[error("the environment variable {0} holds a NUL character")]
    NulInValue(String),
}

/// The command line for `program` (always quoted, as std does) and `args`, each argument
/// coming back unchanged from the C runtime's parser.
pub fn command_line(program: &Path, args: &[String]) -> Result<String, LaunchError> {
    let shown = program.display().to_string();
    if shown.contains(['"', '\0']) {
        return Err(LaunchError::BadProgram(shown));
    }
    let extension = program.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
    if matches!(extension.as_deref(), Some("bat" | "cmd")) {
        return Err(LaunchError::BatchFile(shown));
    }
    let mut line = format!("\"{shown}\"");
    for arg in args {
        if arg.contains('\0') {
            return Err(LaunchError::NulInArgument);
        }
        line.push(' ');
        quote_into(&mut line, arg);
    }
    Ok(line)
}

/// Appends `arg` so that the C runtime reads it back as itself: quoted when empty or holding a
/// space or tab; a quote gets a backslash, and the backslashes before a quote (or before the
/// closing quote) are doubled. Backslashes elsewhere are literal.
fn quote_into(line: &mut String, arg: &str) {
    let quoted = arg.is_empty() || arg.contains([' ', '\t', '\n', '\x0b']);
    if quoted {
        line.push('"');
    }
    let mut backslashes = 0;
    for c in arg.chars() {
        if c == '\\' {
            backslashes += 1;
        } else {
            if c == '"' {
                line.extend(std::iter::repeat_n('\\', backslashes + 1));
            }
            backslashes = 0;
        }
        line.push(c);
    }
    if quoted {
        line.extend(std::iter::repeat_n('\\', backslashes));
        line.push('"');
    }
}

/// The environment block (`CREATE_UNICODE_ENVIRONMENT`): `NAME=value` entries in UTF-16, each
/// ended by a NUL, the block by one more; sorted by name without case, as Windows expects, and
/// one entry per name without case (the last given wins, as with `Command::env`).
pub fn environment_block(env: &[(String, String)]) -> Result<Vec<u16>, LaunchError> {
    let mut entries: Vec<(String, &str, &str)> = Vec::new();
    for (name, value) in env {
        if name.is_empty() || name.contains(['=', '\0']) {
            return Err(LaunchError::BadName(name.clone()));
        }
        if value.contains('\0') {
            return Err(LaunchError::NulInValue(name.clone()));
        }
        let key = name.to_uppercase();
        entries.retain(|(k, _, _)| *k != key);
        entries.push((key, name, value));
    }
    entries.sort_by(|a, b| a.0.encode_utf16().cmp(b.0.encode_utf16()));
    let mut block: Vec<u16> = Vec::new();
    for (_, name, value) in entries {
        block.extend(format!("{name}={value}").encode_utf16());
        block.push(0);
    }
    if block.is_empty() {
        // An empty block is still two NULs long.
        block.push(0);
    }
    block.push(0);
    Ok(block)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The C runtime's parser ("Parsing C++ command-line arguments", Microsoft Learn), for the
    /// arguments after the program: the judge of what `command_line` writes.
    fn parse_args(line: &str) -> Vec<String> {
        let mut args = Vec::new();
        let mut chars = line.chars().peekable();
        // The program: up to the closing quote.
        assert_eq!(chars.next(), Some('"'));
        for c in chars.by_ref() {
            if c == '"' {
                break;
            }
        }
        loop {
            while chars.peek().is_some_and(|c| *c == ' ' || *c == '\t') {
                chars.next();
            }
            if chars.peek().is_none() {
                return args;
            }
            let (mut arg, mut quoted) = (String::new(), false);
            while let Some(&c) = chars.peek() {
                if !quoted && (c == ' ' || c == '\t') {
                    break;
                }
                chars.next();
                match c {
                    '\\' => {
                        let mut n = 1;
                        while chars.peek() == Some(&'\\') {
                            chars.next();
                            n += 1;
                        }
                        if chars.peek() == Some(&'"') {
                            arg.extend(std::iter::repeat_n('\\', n / 2));
                            if n % 2 == 1 {
                                chars.next();
                                arg.push('"');
                            }
                        } else {
                            arg.extend(std::iter::repeat_n('\\', n));
                        }
                    }
                    '"' if quoted && chars.peek() == Some(&'"') => {
                        chars.next();
                        arg.push('"');
                    }
                    '"' => quoted = !quoted,
                    c => arg.push(c),
                }
            }
            args.push(arg);
        }
    }

    /// The attack: an argument the agent chose (a module name, a path) that would split into two
    /// arguments, or end the quoting early and add its own, if it were pasted as is.
    #[test]
    fn every_argument_comes_back_as_itself_from_the_c_runtimes_parser() {
        let table: &[&[&str]] = &[
            &["assembleHap", "--mode", "module"],
            &["", "a b", "tab\there"],
            &[r#"x" --injected "y"#, r#"ends with a backslash\"#, r#"a\\"b"#],
            &[r"C:\Program Files\x\", r"\\server\share\", r#"\""#, r#"""#],
            &["-p", "product=default", "--no-daemon", "line\nbreak"],
        ];
        for args in table {
            let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            let line = command_line(Path::new(r"C:\node\node.exe"), &args).unwrap();
            assert!(line.starts_with(r#""C:\node\node.exe""#), "{line}");
            assert_eq!(parse_args(&line), args, "{line}");
        }
        assert_eq!(
            command_line(Path::new("C:/n.exe"), &["a b".into(), r#"q"q"#.into()]).unwrap(),
            r#""C:/n.exe" "a b" q\"q"#
        );
    }

    #[test]
    fn a_nul_a_quoted_program_or_a_batch_file_is_refused() {
        let program = Path::new(r"C:\n.exe");
        assert_eq!(command_line(program, &["a\0b".into()]), Err(LaunchError::NulInArgument));
        assert!(matches!(command_line(Path::new(r#"C:\a"b.exe"#), &[]), Err(LaunchError::BadProgram(_))));
        for batch in [r"C:\clt\bin\hvigorw.bat", r"C:\x\OHPM.CMD"] {
            assert!(matches!(command_line(Path::new(batch), &[]), Err(LaunchError::BatchFile(_))), "{batch}");
        }
    }

    #[test]
    fn the_environment_is_sorted_without_case_one_entry_a_name_and_bad_names_refused() {
        let env =
            |pairs: &[(&str, &str)]| pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<Vec<_>>();
        let block =
            environment_block(&env(&[("path", "C:\\x"), ("TMP", "C:\\t"), ("Path", "C:\\y"), ("A", "é")])).unwrap();
        let text = String::from_utf16(&block).unwrap();
        assert_eq!(text, "A=é\0Path=C:\\y\0TMP=C:\\t\0\0");
        assert_eq!(environment_block(&[]).unwrap(), [0, 0]);
        assert!(matches!(environment_block(&env(&[("A=B", "x")])), Err(LaunchError::BadName(_))));
        assert!(matches!(environment_block(&env(&[("", "x")])), Err(LaunchError::BadName(_))));
        assert!(matches!(environment_block(&env(&[("A", "x\0y")])), Err(LaunchError::NulInValue(_))));
    }
}
