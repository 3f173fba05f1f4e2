//! Reading the table a tool or recipe file returns: what can be wrong with it, and the field
//! readers both kinds share. Errors say what is wrong and what was expected.

use mlua::{Table, Value};

use crate::lua::schema::SchemaError;

#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("a {kind} file must return a table {shape}, but it returned {got}")]
    NotATable { kind: &'static str, shape: &'static str, got: &'static str },
    #[error("{what}: unknown field `{field}`; allowed: {allowed}.{hint}")]
    UnknownField { what: String, field: String, allowed: String, hint: String },
    #[error("{what} has no `{field}`; it needs {expected}")]
    Missing { what: String, field: String, expected: String },
    #[error("{what}: `{field}` must be {expected}")]
    Wrong { what: String, field: String, expected: String },
    #[error("{kind} name {name:?} must be {rule}")]
    BadName { kind: &'static str, name: String, rule: &'static str },
    #[error("{what}: description is empty; say what it does and returns")]
    NoDescription { what: String },
    #[error("{what}: {why}")]
    Params { what: String, why: String },
    #[error("{what}: {source}")]
    Schema {
        what: String,
        #[source]
        source: SchemaError,
    },
    #[error("recipe {recipe} has no steps")]
    NoSteps { recipe: String },
    #[error("recipe {recipe}: two steps are named {step:?}; step names must be unique")]
    DuplicateStep { recipe: String, step: String },
}

/// Refuses fields not in `allowed`, so a typo (`parms`) is an error, not silence.
pub fn only_fields(table: &Table, allowed: &[&str], what: &str) -> Result<(), SpecError> {
    for pair in table.pairs::<Value, Value>() {
        let (key, _) = pair.map_err(|e| wrong(what, "?", &e.to_string()))?;
        let known = matches!(&key, Value::String(s) if allowed.iter().any(|a| s.as_bytes() == a.as_bytes()));
        if !known {
            let field = match &key {
                Value::String(s) => s.to_string_lossy(),
                other => format!("{other:?}"),
            };
            let hint = crate::error::did_you_mean(&crate::error::closest_names(&field, allowed.iter().copied()));
            return Err(SpecError::UnknownField { what: what.to_string(), field, allowed: allowed.join(", "), hint });
        }
    }
    Ok(())
}

/// A required field of type `T`.
pub fn required<T: mlua::FromLua>(table: &Table, what: &str, field: &str, expected: &str) -> Result<T, SpecError> {
    match table.get::<Value>(field) {
        Ok(Value::Nil) | Err(_) => {
            Err(SpecError::Missing { what: what.to_string(), field: field.to_string(), expected: expected.to_string() })
        }
        Ok(_) => table.get::<T>(field).map_err(|_| wrong(what, field, expected)),
    }
}

/// An optional field of type `T` (nil when absent).
pub fn optional<T: mlua::FromLua>(table: &Table, what: &str, field: &str, expected: &str) -> Result<T, SpecError> {
    table.get::<T>(field).map_err(|_| wrong(what, field, expected))
}

/// What serde says about a declaration, for people: "unknown field `requried`; allowed: type,
/// description, …. Did you mean required?"
pub fn serde_reason(err: &impl std::fmt::Display) -> String {
    let text = err.to_string();
    let text = text.strip_prefix("deserialize error: ").unwrap_or(&text);
    let Some((problem, expected)) = text.split_once(", expected one of ") else { return text.to_string() };
    let allowed: Vec<&str> = expected.split(", ").map(|name| name.trim_matches('`')).collect();
    let wrong = problem.split('`').nth(1).unwrap_or_default();
    let hint = crate::error::did_you_mean(&crate::error::closest_names(wrong, allowed.iter().copied()));
    format!("{problem}; allowed: {}.{hint}", allowed.join(", "))
}

pub fn wrong(what: &str, field: &str, expected: &str) -> SpecError {
    SpecError::Wrong { what: what.to_string(), field: field.to_string(), expected: expected.to_string() }
}
