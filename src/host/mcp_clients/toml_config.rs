//! Codex's `config.toml`: a `[mcp_servers.<name>]` table per server. Edited with toml_edit, so
//! the person's comments, order and layout stay as they were around rein's table.

use serde_json::Value;
use toml_edit::{DocumentMut, Item, Table};

use super::{Merged, SERVER_NAME};

/// The smallest file holding `entry`: its table alone.
pub(super) fn fresh(servers_key: &str, entry: &Value) -> String {
    let mut doc = DocumentMut::new();
    let mut servers = Table::new();
    servers.set_implicit(true);
    servers.insert(SERVER_NAME, Item::Table(table_of(entry)));
    doc.insert(servers_key, Item::Table(servers));
    doc.to_string()
}

pub(super) fn merge(existing: Option<&str>, servers_key: &str, entry: &Value) -> Merged {
    let Some(text) = existing.filter(|text| !text.trim().is_empty()) else {
        return Merged::Write { text: fresh(servers_key, entry), kept: Vec::new() };
    };
    let mut doc = match text.parse::<DocumentMut>() {
        Ok(doc) => doc,
        Err(e) => return Merged::Invalid(format!("it is not valid TOML ({})", e.to_string().trim())),
    };
    if !doc.contains_key(servers_key) {
        let mut servers = Table::new();
        servers.set_implicit(true);
        doc.insert(servers_key, Item::Table(servers));
    }
    let inline = doc.get(servers_key).is_some_and(Item::is_inline_table);
    let Some(servers) = doc.get_mut(servers_key).and_then(Item::as_table_like_mut) else {
        return Merged::Invalid(format!("its {servers_key} is not a table"));
    };
    let kept: Vec<String> =
        servers.iter().map(|(name, _)| name.to_string()).filter(|name| name != SERVER_NAME).collect();
    if let Some(found) = servers.get(SERVER_NAME) {
        let found = as_json(found);
        return if &found == entry { Merged::Unchanged { kept } } else { Merged::Exists(found) };
    }
    if inline || servers.is_dotted() {
        // `mcp_servers = { … }` or dotted keys: a table inside would not be TOML the person
        // wrote; say what to add instead of reshaping their file.
        return Merged::Invalid(format!("its {servers_key} is written inline"));
    }
    servers.insert(SERVER_NAME, Item::Table(table_of(entry)));
    Merged::Write { text: doc.to_string(), kept }
}

/// `entry` (an object of strings, string arrays and integers) as a TOML table.
fn table_of(entry: &Value) -> Table {
    let mut table = Table::new();
    for (key, value) in entry.as_object().into_iter().flatten() {
        let value: toml_edit::Value = match value {
            Value::String(text) => text.as_str().into(),
            Value::Number(n) => n.as_i64().unwrap_or_default().into(),
            Value::Array(items) => items.iter().filter_map(Value::as_str).collect::<toml_edit::Array>().into(),
            _ => continue,
        };
        table.insert(key, toml_edit::value(value));
    }
    table
}

/// A TOML item as JSON, to compare an existing entry with rein's.
fn as_json(item: &Item) -> Value {
    let text = match item {
        Item::Table(table) => table.to_string(),
        Item::Value(toml_edit::Value::InlineTable(inline)) => inline.clone().into_table().to_string(),
        other => return Value::String(other.to_string()),
    };
    toml::from_str::<toml::Table>(&text).ok().and_then(|t| serde_json::to_value(t).ok()).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry() -> Value {
        json!({"command": "/bin/rein", "args": ["--workspace", "/ws", "serve"], "tool_timeout_sec": 3600})
    }

    #[test]
    fn the_persons_file_keeps_its_comments_and_tables() {
        let text = "# my settings\nmodel = \"o3\"  # the model\n\n[mcp_servers.docs]\ncommand = \"npx\"\nargs = [\"-y\", \"docs\"]\n";
        let Merged::Write { text: merged, kept } = merge(Some(text), "mcp_servers", &entry()) else { panic!("merged") };
        assert_eq!(kept, ["docs"]);
        assert!(merged.starts_with(text), "what was there is kept as it was:\n{merged}");
        let back: toml::Table = toml::from_str(&merged).unwrap();
        assert_eq!(serde_json::to_value(&back["mcp_servers"]["rein"]).unwrap(), entry());
    }

    #[test]
    fn the_same_entry_is_unchanged_and_another_is_refused() {
        let same = fresh("mcp_servers", &entry());
        assert!(matches!(merge(Some(&same), "mcp_servers", &entry()), Merged::Unchanged { .. }));
        let other = "[mcp_servers.rein]\ncommand = \"sh\"\nargs = [\"-c\", \"evil\"]\n";
        assert!(
            matches!(merge(Some(other), "mcp_servers", &entry()), Merged::Exists(found) if found["command"] == "sh")
        );
        let inline = "mcp_servers = { rein = { command = \"sh\" } }\n";
        assert!(matches!(merge(Some(inline), "mcp_servers", &entry()), Merged::Exists(_)));
    }

    #[test]
    fn what_is_not_toml_of_the_form_is_left_alone() {
        for text in ["mcp_servers = 1\n", "[mcp_servers\n", "mcp_servers = { docs = { command = \"x\" } }\n"] {
            assert!(matches!(merge(Some(text), "mcp_servers", &entry()), Merged::Invalid(_)), "{text}");
        }
    }
}
