//! `rein-fake-device fake-state …`: inspect or set up the fakes' state directory by hand
//! (tests/fakes/README.md; tests write the files directly).

use serde_json::Value;

use crate::state::State;

pub const COMMAND: &str = "fake-state";

const USAGE: &str = "usage: rein-fake-device fake-state COMMAND
  path                 print the state directory
  reset                delete every state file
  write NAME JSON      write state file NAME (JSON is checked; `-` reads stdin)
  read NAME            print state file NAME
  calls [PROGRAM]      print the logged invocations, one shell-quoted line each
";

pub fn main(args: &[String]) -> i32 {
    let state = State::from_env();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["path"] => println!("{}", state.path("").components().as_path().display()),
        ["reset"] => {
            let dir = state.path("");
            let _ = std::fs::remove_dir_all(&dir);
            let _ = std::fs::create_dir_all(&dir);
        }
        ["write", name, json] => {
            let text = if *json == "-" {
                std::io::read_to_string(std::io::stdin()).unwrap_or_default()
            } else {
                json.to_string()
            };
            match serde_json::from_str::<Value>(&text) {
                Ok(value) => state.write_json(name, &value),
                Err(e) => {
                    eprintln!("{COMMAND} write {name}: not JSON: {e}");
                    return 1;
                }
            }
        }
        ["read", name] => {
            println!("{}", serde_json::to_string_pretty(&state.read_json(name, Value::Null)).expect("JSON"))
        }
        ["calls", rest @ ..] if rest.len() <= 1 => {
            let text = std::fs::read_to_string(state.path("calls.log")).unwrap_or_default();
            for call in text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()) {
                let program = call["program"].as_str().unwrap_or("");
                if rest.first().is_none_or(|p| *p == program) {
                    let argv = call["argv"].as_array().into_iter().flatten().filter_map(Value::as_str);
                    let line: Vec<String> = std::iter::once(program).chain(argv).map(quote).collect();
                    println!("{}", line.join(" "));
                }
            }
        }
        _ => {
            eprint!("{USAGE}");
            return 2;
        }
    }
    0
}

/// A word as a POSIX shell reads it back (Python's `shlex.quote`).
fn quote(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./-_".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\"'\"'"))
    }
}
