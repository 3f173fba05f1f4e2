//! A strict reader of device shell command lines. `hdc shell` hands its arguments to a shell on
//! the device, so the policy must judge the words that shell would run — and a line is only
//! judged if it is nothing but plain words: any syntax this reader does not reduce to words
//! (separators, pipes, redirections, substitutions, variables, globs, escapes, comments,
//! tilde, brace or history expansion) is refused before any table is consulted.
//!
//! What `hdc` sends: the arguments after `shell`, joined by spaces, each argument that holds a
//! space wrapped in double quotes without escaping (`developtools_hdc` src/host/main.cpp,
//! `SplitOptionAndCommand`). [`device_line`] rebuilds exactly that text.

/// Why a device command line is refused before any table is consulted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShellSyntax {
    #[error("`{0}` is shell syntax rein does not pass to a device; give plain words only")]
    Operator(char),
    #[error("an unterminated quote; give plain words only")]
    Unterminated,
    #[error("`{0}` inside double quotes is expanded by the device shell; give plain words only")]
    Expansion(char),
    #[error("the command line is empty")]
    Empty,
}

/// The text the hdc client sends for its arguments (after `shell`, or a whole command): each
/// argument that holds a space wrapped in double quotes, nothing escaped, joined by spaces
/// (`developtools_hdc` src/host/main.cpp, `SplitOptionAndCommand`).
pub fn device_line(args: &[&str]) -> String {
    args.iter().map(|a| if a.contains(' ') { format!("\"{a}\"") } else { a.to_string() }).collect::<Vec<_>>().join(" ")
}

/// What hdc's daemon hands `/bin/sh -c` for the client's `line`: `Base::ShellCmdTrim`
/// (src/common/base.cpp) trims spaces, tabs and line breaks from both ends (`WHITE_SPACES`,
/// src/common/define.h), then strips one pair of double quotes that begin and end it.
pub fn daemon_line(line: &str) -> &str {
    let trimmed = line.trim_matches([' ', '\t', '\n', '\r']);
    match trimmed.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(inner) => inner,
        None => trimmed,
    }
}

/// The words hdc reads back from the client's `line` for its own commands and options
/// (`Base::SplitCommandToArgs`, src/common/base.cpp): split at spaces, tabs and line breaks
/// outside double quotes; a double quote opens or closes a quoted part and is dropped;
/// nothing is escaped.
pub fn hdc_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current: Option<String> = None;
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                current.get_or_insert_with(String::new);
            }
            c if quoted => current.get_or_insert_with(String::new).push(c),
            ' ' | '\t' | '\n' | '\r' => words.extend(current.take()),
            c => current.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(current);
    words
}

/// Characters that have no meaning to a POSIX shell outside quotes (besides letters and digits).
fn is_plain(c: char) -> bool {
    c.is_ascii_alphanumeric() || "_-./:,=+@%".contains(c)
}

/// Splits `line` into the words a POSIX shell would run, or refuses it. Quotes are allowed
/// (their content taken literally), as long as a double-quoted part has no `$`, `` ` `` or `\`.
pub fn words(line: &str) -> Result<Vec<String>, ShellSyntax> {
    let mut words = Vec::new();
    let mut current: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if let Some(word) = current.take() {
                    words.push(word);
                }
            }
            '\'' => {
                let word = current.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(inner) => word.push(inner),
                        None => return Err(ShellSyntax::Unterminated),
                    }
                }
            }
            '"' => {
                let word = current.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some(inner @ ('$' | '`' | '\\')) => return Err(ShellSyntax::Expansion(inner)),
                        Some(inner) => word.push(inner),
                        None => return Err(ShellSyntax::Unterminated),
                    }
                }
            }
            // `=` and `%` are plain; a leading `~` or a `#` starting a word are not.
            c if is_plain(c) => current.get_or_insert_with(String::new).push(c),
            // Inside a word `#` is plain (POSIX 2.3: only a `#` that starts a word starts a
            // comment): Hypium's `-s class Suite#test`.
            '#' if current.is_some() => current.get_or_insert_with(String::new).push('#'),
            other => return Err(ShellSyntax::Operator(other)),
        }
    }
    words.extend(current);
    if words.is_empty() {
        return Err(ShellSyntax::Empty);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_and_quotes_are_read_as_the_shell_would() {
        assert_eq!(words("hilog -x -T testTag").unwrap(), ["hilog", "-x", "-T", "testTag"]);
        assert_eq!(
            words("hidumper -s 1201 -a \"-p Faultlogger\"").unwrap(),
            ["hidumper", "-s", "1201", "-a", "-p Faultlogger"]
        );
        assert_eq!(words("re''boot").unwrap(), ["reboot"], "quotes never hide a word from the table");
        assert_eq!(words("'reboot'").unwrap(), ["reboot"]);
        assert_eq!(words("aa test -s class A#b,C").unwrap(), ["aa", "test", "-s", "class", "A#b,C"]);
        assert_eq!(words("ls ''#x").unwrap(), ["ls", "#x"], "a quote started the word, as sh reads it");
        assert_eq!(words("date \"+%m-%d %H:%M:%S\"").unwrap(), ["date", "+%m-%d %H:%M:%S"]);
        assert_eq!(device_line(&["hidumper", "-a", "-p Faultlogger"]), "hidumper -a \"-p Faultlogger\"");
    }

    #[test]
    fn hdc_reads_back_what_its_client_sent_as_hdc_does() {
        assert_eq!(daemon_line("\"date +%s\""), "date +%s", "one pair of enclosing quotes goes");
        assert_eq!(daemon_line(" date \"+%s x\"\t"), "date \"+%s x\"");
        assert_eq!(daemon_line("\"a b\" \"c d\""), "a b\" \"c d");
        assert_eq!(hdc_words("install -r \"my app.hap\""), ["install", "-r", "my app.hap"]);
        assert_eq!(hdc_words("send a\"b c\"d  \"\" e"), ["send", "ab cd", "", "e"]);
        assert_eq!(hdc_words("a\tb\nc"), ["a", "b", "c"]);
    }

    #[test]
    fn anything_but_plain_words_is_refused() {
        let refused = [
            "hilog -x; reboot",
            "hilog -x && reboot",
            "hilog -x || reboot",
            "hilog -x | grep x",
            "hilog -x & reboot",
            "echo $(reboot)",
            "echo `reboot`",
            "echo $HOME",
            "echo ${HOME}",
            "(reboot)",
            "{ reboot; }",
            "ls > /data/x",
            "ls < /data/x",
            "ls >> /data/x",
            "ls 2>&1",
            "ls *",
            "ls ?",
            "ls [ab]",
            "ls ~",
            "ls # comment",
            "ls #x",
            "echo !!",
            "re\\boot",
            "echo \"$(reboot)\"",
            "echo \"`reboot`\"",
            "echo \"a\\\"b\"",
            "echo 'unterminated",
            "echo \"unterminated",
            "reboot\n",
            "a\nreboot",
            "ls {a,b}",
            "",
            "   ",
        ];
        for line in refused {
            assert!(words(line).is_err(), "{line:?} must be refused");
        }
    }
}
