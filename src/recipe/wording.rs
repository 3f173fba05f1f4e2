//! Words for what the journal records as data, so reports read as sentences: who approved a
//! command (`a person at the terminal`, `--yes`, `rule hdc install -r **/*.hap`) and a run's
//! arguments (`reinstall = true, target = FMR0223`) — never `null` or a JSON object.

use serde_json::Value;

use crate::kernel::policy::DecidedBy;

/// Who let an action through (or refused it), in words.
pub fn decider(by: &Option<DecidedBy>) -> String {
    let Some(by) = by else { return "nobody recorded".to_string() };
    match by {
        DecidedBy::Policy => "rein's policy (no one was asked)".to_string(),
        DecidedBy::Rule(rule) => format!("rule `{rule}`"),
        DecidedBy::Project(rule) => format!("the project's deny rule `{rule}`"),
        DecidedBy::Pack(pack) => format!("pack {pack}'s permissions"),
        DecidedBy::Session => "an earlier \"always\" this session".to_string(),
        DecidedBy::Approver(name) => match name.as_str() {
            "person" => "a person at the terminal".to_string(),
            "--yes" => "`--yes`".to_string(),
            "mcp elicitation" => "a person in the MCP client".to_string(),
            "person (confirmed `rein pack`)" => "a person confirming `rein pack`".to_string(),
            other => other.to_string(),
        },
    }
}

/// A run's arguments as `key = value` pairs; `none` when there are none.
pub fn arguments(value: &Value) -> String {
    match value {
        Value::Object(map) if map.is_empty() => "none".to_string(),
        Value::Object(map) => map.iter().map(|(k, v)| format!("{k} = {}", inline(v))).collect::<Vec<_>>().join(", "),
        Value::Null => "none".to_string(),
        other => inline(other),
    }
}

fn inline(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => "none".to_string(),
        Value::Array(items) if items.iter().all(|i| !i.is_object() && !i.is_array()) => {
            items.iter().map(inline).collect::<Vec<_>>().join(" ")
        }
        Value::Array(items) => format!("{} items", items.len()),
        Value::Object(map) => format!("({})", arguments(&Value::Object(map.clone()))),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Who decided, as reports store it in JSON.
    fn stored(value: Value) -> Option<DecidedBy> {
        serde_json::from_value(value).expect("a decider as reports store it")
    }

    #[test]
    fn deciders_are_named_in_words() {
        assert_eq!(decider(&stored(json!({"approver": "person"}))), "a person at the terminal");
        assert_eq!(decider(&stored(json!({"approver": "--yes"}))), "`--yes`");
        assert_eq!(decider(&stored(json!({"rule": "hdc install -r **/*.hap"}))), "rule `hdc install -r **/*.hap`");
        assert_eq!(decider(&stored(json!("policy"))), "rein's policy (no one was asked)");
        assert_eq!(decider(&stored(json!("session"))), "an earlier \"always\" this session");
        assert_eq!(decider(&stored(Value::Null)), "nobody recorded");
    }

    #[test]
    fn arguments_read_as_pairs() {
        assert_eq!(arguments(&json!({})), "none");
        assert_eq!(
            arguments(&json!({"reinstall": true, "target": "X", "edits": [{"a": 1}]})),
            "edits = 1 items, reinstall = true, target = X"
        );
    }
}
