//! The project's JSON5 files (build-profile.json5, app.json5, module.json5, oh-package.json5),
//! read with the json5 crate (rein reads them with it too). A file that does not parse is
//! reported as hvigor and ohpm (both Node programs using the npm `json5` package) word it:
//! `JSON5: invalid end of input at 1:1`, `JSON5: invalid character 'x' at 3:7` (json5
//! `lib/parse.js` `invalidChar`, `invalidEOF`: "JSON5: invalid character '…' at L:C").

use std::path::Path;

use serde_json::Value;

pub enum Json5Error {
    Io(std::io::Error),
    Syntax(String),
}

pub fn load_file(path: &Path) -> Result<Value, Json5Error> {
    let text = std::fs::read_to_string(path).map_err(Json5Error::Io)?;
    parse(&text).map_err(Json5Error::Syntax)
}

pub fn parse(text: &str) -> Result<Value, String> {
    let e = match json5::from_str::<Value>(text) {
        Ok(value) => return Ok(value),
        Err(e) => e,
    };
    let (line, column) = e.position().map(|p| (p.line, p.column)).unwrap_or((0, 0));
    let at = text.lines().nth(line).and_then(|l| l.chars().nth(column));
    let eof = e.code().is_some_and(|c| format!("{c:?}").starts_with("Eof")) || at.is_none();
    let what = match at {
        Some(c) if !eof => format!("invalid character {c:?}"),
        _ => "invalid end of input".to_string(),
    };
    Err(format!("JSON5: {what} at {}:{}", line + 1, column + 1))
}

/// What `strerror` says for an I/O error (Python's `e.strerror`, Node's message): the OS's
/// words without Rust's ` (os error N)`.
pub fn strerror(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// `rein-fake-device json5 FILE`: the file as JSON on stdout (fake-env reads the project's
/// signingConfig so, with the fakes' own reader).
pub const COMMAND: &str = "json5";

pub fn print(args: &[String]) -> i32 {
    let [file] = args else {
        eprintln!("usage: rein-fake-device {COMMAND} FILE");
        return 2;
    };
    match load_file(Path::new(file)) {
        Ok(value) => {
            println!("{value}");
            0
        }
        Err(Json5Error::Io(e)) => {
            eprintln!("{file}: {}", strerror(&e));
            1
        }
        Err(Json5Error::Syntax(e)) => {
            eprintln!("{file}: {e}");
            1
        }
    }
}
