//! The JSON clients' files: an object whose `servers_key` object maps server names to entries.
//! Read into maps that keep their keys' order, so a merged file differs from the person's only
//! by rein's entry (serde_json's own map sorts keys). Plain JSON only: a file with comments
//! (which VS Code allows) is left alone, with the entry to add by hand.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Merged, SERVER_NAME};

/// A JSON value whose objects keep their keys in the file's order.
#[derive(Debug, Deserialize, Serialize)]
#[serde(untagged)]
enum Ordered {
    Object(IndexMap<String, Ordered>),
    Array(Vec<Ordered>),
    Scalar(Value),
}

/// The smallest file holding `entry`.
pub(super) fn fresh(servers_key: &str, entry: &Value) -> String {
    pretty(&serde_json::json!({ servers_key: { SERVER_NAME: entry } }))
}

pub(super) fn merge(existing: Option<&str>, servers_key: &str, entry: &Value) -> Merged {
    let Some(text) = existing.filter(|text| !text.trim().is_empty()) else {
        return Merged::Write { text: fresh(servers_key, entry), kept: Vec::new() };
    };
    let mut root = match serde_json::from_str::<Ordered>(text) {
        Ok(Ordered::Object(root)) => root,
        Ok(_) => return Merged::Invalid("it is not a JSON object".into()),
        Err(e) => return Merged::Invalid(format!("rein reads only plain JSON, without comments ({e})")),
    };
    let servers = root.entry(servers_key.to_string()).or_insert_with(|| Ordered::Object(IndexMap::new()));
    let Ordered::Object(servers) = servers else {
        return Merged::Invalid(format!("its \"{servers_key}\" is not an object"));
    };
    let kept: Vec<String> = servers.keys().filter(|name| *name != SERVER_NAME).cloned().collect();
    if let Some(found) = servers.get(SERVER_NAME) {
        let found = serde_json::to_value(found).unwrap_or(Value::Null);
        return if &found == entry { Merged::Unchanged { kept } } else { Merged::Exists(found) };
    }
    servers.insert(SERVER_NAME.to_string(), to_ordered(entry));
    match serde_json::to_string_pretty(&root) {
        Ok(text) => Merged::Write { text: text + "\n", kept },
        Err(e) => Merged::Invalid(e.to_string()),
    }
}

fn to_ordered(value: &Value) -> Ordered {
    match value {
        Value::Object(map) => Ordered::Object(map.iter().map(|(k, v)| (k.clone(), to_ordered(v))).collect()),
        Value::Array(items) => Ordered::Array(items.iter().map(to_ordered).collect()),
        other => Ordered::Scalar(other.clone()),
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry() -> Value {
        json!({"command": "/bin/rein", "args": ["--workspace", "/ws", "serve"]})
    }

    #[test]
    fn other_servers_and_keys_keep_their_order_and_values() {
        let text = r#"{"zeta": 1, "mcpServers": {"b": {"command": "x", "z": 1, "a": [1.5, "s"]}}, "alpha": true}"#;
        let Merged::Write { text, kept } = merge(Some(text), "mcpServers", &entry()) else { panic!("merged") };
        assert_eq!(kept, ["b"]);
        let order: Vec<usize> = ["\"zeta\"", "\"mcpServers\"", "\"b\"", "\"z\"", "\"a\"", "\"rein\"", "\"alpha\""]
            .iter()
            .map(|key| text.find(key).unwrap_or_else(|| panic!("{key} in {text}")))
            .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{text}");
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["mcpServers"]["b"], json!({"command": "x", "z": 1, "a": [1.5, "s"]}));
        assert_eq!(back["mcpServers"]["rein"], entry());
    }

    #[test]
    fn the_same_entry_is_unchanged_and_another_is_refused() {
        let same = r#"{"mcpServers": {"rein": {"args": ["--workspace", "/ws", "serve"], "command": "/bin/rein"}}}"#;
        assert!(matches!(merge(Some(same), "mcpServers", &entry()), Merged::Unchanged { .. }));
        let other = r#"{"mcpServers": {"rein": {"command": "sh", "args": ["-c", "curl x | sh"]}}}"#;
        assert!(
            matches!(merge(Some(other), "mcpServers", &entry()), Merged::Exists(found) if found["command"] == "sh")
        );
    }

    #[test]
    fn what_is_not_plain_json_of_the_form_is_left_alone() {
        for text in ["// servers\n{\"servers\": {}}", "[1]", r#"{"servers": []}"#, "{\"servers\": {"] {
            assert!(matches!(merge(Some(text), "servers", &entry()), Merged::Invalid(_)), "{text}");
        }
    }
}
