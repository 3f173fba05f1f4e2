//! The JSON contract and exit statuses: 0 ok, 1 the tool failed, 2 usage or configuration.

use serde::Serialize;
use serde_json::json;

use rein::host::registry::LoadProblem;
use rein::Failure;

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

    /// Broken tool files are reported on stderr by every command, so they are never silent.
    pub fn warn_problems(&self, problems: &[LoadProblem]) {
        for p in problems {
            eprintln!("warning: {}: {}", p.file, p.message);
        }
    }
}
