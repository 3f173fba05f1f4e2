//! Values a call must never show: the arguments a tool declares `secret = true` (a signing
//! password), gathered as the call runs. Everything that leaves rein on the call's behalf —
//! journal lines, program output, results, errors, logs, reports — passes through
//! [`Secrets::scrub`] first.

use std::sync::Mutex;

use serde_json::Value;

/// What stands where a secret would show.
pub const REDACTED: &str = "***";

/// Shorter values are not scrubbed: replacing every `1` in a text would hide nothing and ruin
/// the text (a tool should not accept a one-character secret anyway).
const MIN_LEN: usize = 3;

/// `text` with every one of `values` replaced by [`REDACTED`], longest first (so a secret that
/// contains another is replaced whole), except values too short to scrub.
pub fn scrub_values<'v>(text: &str, values: impl IntoIterator<Item = &'v String>) -> String {
    let mut values: Vec<&String> = values.into_iter().filter(|v| v.len() >= MIN_LEN).collect();
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    values.iter().fold(text.to_string(), |acc, secret| acc.replace(secret.as_str(), REDACTED))
}

#[derive(Debug, Default)]
pub struct Secrets {
    values: Mutex<Vec<String>>,
}

impl Secrets {
    pub fn add(&self, value: &str) {
        if value.len() >= MIN_LEN {
            let mut values = self.values.lock().unwrap_or_else(|e| e.into_inner());
            if !values.iter().any(|v| v == value) {
                values.push(value.to_string());
                // Longest first, so a secret that contains another is replaced whole.
                values.sort_by_key(|v| std::cmp::Reverse(v.len()));
            }
        }
    }

    /// The values, longest first.
    pub fn values(&self) -> Vec<String> {
        self.values.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn is_empty(&self) -> bool {
        self.values.lock().unwrap_or_else(|e| e.into_inner()).is_empty()
    }

    /// `text` with every secret value replaced by `***`.
    pub fn scrub(&self, text: &str) -> String {
        scrub_values(text, self.values.lock().unwrap_or_else(|e| e.into_inner()).iter())
    }

    /// Scrubs every string in `value`, keys included.
    pub fn scrub_json(&self, value: &mut Value) {
        if self.is_empty() {
            return;
        }
        match value {
            Value::String(text) => *text = self.scrub(text),
            Value::Array(items) => items.iter_mut().for_each(|item| self.scrub_json(item)),
            Value::Object(map) => {
                let entries = std::mem::take(map);
                for (key, mut item) in entries {
                    self.scrub_json(&mut item);
                    map.insert(self.scrub(&key), item);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_string_loses_its_secrets() {
        let secrets = Secrets::default();
        secrets.add("s3cret-pw");
        secrets.add("pw");
        let mut value = serde_json::json!({"message": "bad password s3cret-pw", "list": ["s3cret-pw"], "s3cret-pw": 1});
        secrets.scrub_json(&mut value);
        assert_eq!(value, serde_json::json!({"message": "bad password ***", "list": ["***"], "***": 1}));
        assert_eq!(secrets.scrub("pw stays: too short to scrub"), "pw stays: too short to scrub");
    }
}
