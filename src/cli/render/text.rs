//! Any JSON value as text people read: `key: value` lines, nested values indented under their
//! key, list items as `- `, multi-line strings as an indented block. No braces, no quotes.

use serde_json::Value;

/// `value`'s lines, each indented by `indent` spaces.
pub fn lines(value: &Value, indent: usize) -> Vec<String> {
    let pad = " ".repeat(indent);
    match value {
        Value::Object(map) if map.is_empty() => vec![format!("{pad}(none)")],
        Value::Object(map) => map.iter().flat_map(|(key, item)| entry(&format!("{pad}{key}:"), item, indent)).collect(),
        Value::Array(items) if items.is_empty() => vec![format!("{pad}(none)")],
        Value::Array(items) => items.iter().flat_map(|item| list_item(item, indent)).collect(),
        scalar => block(&scalar_text(scalar), indent),
    }
}

/// `label value`, or the label with the value's lines under it.
fn entry(label: &str, value: &Value, indent: usize) -> Vec<String> {
    match value {
        Value::Object(map) if !map.is_empty() => [vec![label.to_string()], lines(value, indent + 2)].concat(),
        Value::Array(items) if !items.is_empty() && !all_short_scalars(items) => {
            [vec![label.to_string()], lines(value, indent + 2)].concat()
        }
        Value::Array(items) if !items.is_empty() => {
            vec![format!("{label} {}", items.iter().map(scalar_text).collect::<Vec<_>>().join(", "))]
        }
        Value::String(text) if text.contains('\n') => [vec![label.to_string()], block(text, indent + 2)].concat(),
        other => match other {
            Value::Object(_) | Value::Array(_) => vec![format!("{label} (none)")],
            scalar => vec![format!("{label} {}", scalar_text(scalar))],
        },
    }
}

/// `- value` for a list item; an object's first line follows the dash.
fn list_item(item: &Value, indent: usize) -> Vec<String> {
    let pad = " ".repeat(indent);
    let mut inner = lines(item, indent + 2);
    if let Some(first) = inner.first_mut() {
        *first = format!("{pad}- {}", first.trim_start());
    }
    inner
}

fn block(text: &str, indent: usize) -> Vec<String> {
    let pad = " ".repeat(indent);
    text.lines().map(|line| format!("{pad}{line}")).collect()
}

fn all_short_scalars(items: &[Value]) -> bool {
    items
        .iter()
        .all(|i| !i.is_object() && !i.is_array() && scalar_text(i).len() <= 40 && !scalar_text(i).contains('\n'))
}

/// A scalar as people write it: strings bare, null as "none".
pub fn scalar_text(value: &Value) -> String {
    match value {
        Value::Null => "none".to_string(),
        Value::String(text) => text.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other => lines(other, 0).join("; "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_values_read_as_indented_lines() {
        let value = json!({
            "version_code": {"old": 1, "new": 2},
            "haps": [{"path": "a.hap", "signed": true}],
            "tags": ["x", "y"],
            "note": "one\ntwo",
            "nothing": null,
            "empty": [],
        });
        assert_eq!(
            lines(&value, 0).join("\n"),
            "empty: (none)\nhaps:\n  - path: a.hap\n    signed: true\nnote:\n  one\n  two\nnothing: none\ntags: x, y\n\
             version_code:\n  new: 2\n  old: 1"
        );
    }
}
