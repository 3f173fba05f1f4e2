//! The JSON contract and exit statuses: 0 ok, 1 the tool failed, 2 usage or configuration.

use serde::Serialize;
use serde_json::json;

use rein::{Failure, LoadProblem};

use super::render;

pub struct Output {
    pub json: bool,
}

impl Output {
    pub fn success<T: Serialize>(&self, result: &T) -> u8 {
        println!("{}", json!({"ok": true, "result": result}));
        0
    }

    pub fn failure(&self, failure: &Failure) -> u8 {
        if self.json {
            println!("{}", json!({"ok": false, "error": failure}));
        } else {
            render::failure(failure);
        }
        if failure.is_usage_error() {
            2
        } else {
            1
        }
    }

    /// Broken tool files are reported on stderr (`file:line: message`), so they are never
    /// silent.
    pub fn warn_problems(&self, problems: &[LoadProblem]) {
        let problem = render::style::paint(render::style::WARN, "problem");
        for p in problems {
            let at = p.line.map(|line| format!("{}:{line}", p.file)).unwrap_or_else(|| p.file.clone());
            anstream::eprintln!("{at}: {problem}: {}", p.message);
        }
    }
}
