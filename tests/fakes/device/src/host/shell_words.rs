//! A command line split into words as a POSIX shell splits it (what the device's `sh -c` does
//! with `hdc shell`'s line): blanks separate words, `'…'` is literal, `"…"` keeps blanks and
//! lets `\` escape `"` and `\`, and `\` outside quotes escapes the next character. No
//! expansions: the device commands the fakes answer take none.

/// The words, or `None` when a quote is not closed.
pub fn split(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' | '\r' => words.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '\'' => break,
                        other => w.push(other),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            escaped @ ('"' | '\\') => w.push(escaped),
                            other => {
                                w.push('\\');
                                w.push(other);
                            }
                        },
                        other => w.push(other),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).push(chars.next()?),
            other => word.get_or_insert_with(String::new).push(other),
        }
    }
    words.extend(word);
    Some(words)
}
