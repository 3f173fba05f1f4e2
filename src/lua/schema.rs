//! The small parameter schema tools declare, its JSON Schema form, and argument validation.
//!
//! ```lua
//! params = {
//!   path  = { type = "string", description = "File to read" },
//!   limit = { type = "integer", default = 2000 },
//!   mode  = { type = "string", enum = { "fast", "safe" }, optional = true },
//! }
//! ```
//! A parameter is required unless it has a `default` or says `optional = true`
//! (or `required = false`).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::error::{Code, Failure};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::String => "string",
            Kind::Integer => "integer",
            Kind::Number => "number",
            Kind::Boolean => "boolean",
            Kind::Array => "array",
            Kind::Object => "object",
        }
    }

    fn accepts(self, value: &Value) -> bool {
        match self {
            Kind::String => value.is_string(),
            Kind::Integer => value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0),
            Kind::Number => value.is_number(),
            Kind::Boolean => value.is_boolean(),
            Kind::Array => value.is_array(),
            // Lua cannot tell an empty table from an empty array.
            Kind::Object => value.is_object() || value.as_array().is_some_and(Vec::is_empty),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Param {
    #[serde(rename = "type")]
    pub kind: Kind,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub default: Option<Value>,
    #[serde(default)]
    pub optional: Option<bool>,
    #[serde(default)]
    pub required: Option<bool>,
    #[serde(default, rename = "enum")]
    pub choices: Option<Vec<Value>>,
    #[serde(default)]
    pub items: Option<Box<Param>>,
    #[serde(default)]
    pub properties: Option<BTreeMap<String, Param>>,
    /// A value rein never shows: not in logs, the journal, results, errors or reports.
    #[serde(default)]
    pub secret: Option<bool>,
}

impl Param {
    pub fn is_required(&self) -> bool {
        self.default.is_none() && self.optional != Some(true) && self.required != Some(false)
    }

    fn check_declaration(&self, path: &str) -> Result<(), SchemaError> {
        if self.optional == Some(true) && self.required == Some(true) {
            return Err(SchemaError::OptionalAndRequired { path: path.to_string() });
        }
        if let Some(default) = &self.default {
            self.check_value(default, path).map_err(|e| SchemaError::BadDefault(Box::new(e)))?;
        }
        for choice in self.choices.iter().flatten() {
            if !self.kind.accepts(choice) {
                let (choice, path, kind) = (choice.clone(), path.to_string(), self.kind.name());
                return Err(SchemaError::BadChoice { choice, path, kind });
            }
        }
        if let Some(items) = &self.items {
            items.check_declaration(&format!("{path}[]"))?;
        }
        for (name, prop) in self.properties.iter().flatten() {
            prop.check_declaration(&format!("{path}.{name}"))?;
        }
        Ok(())
    }

    fn json_schema(&self) -> Value {
        let mut schema = Map::new();
        schema.insert("type".into(), json!(self.kind.name()));
        if let Some(d) = &self.description {
            schema.insert("description".into(), json!(d));
        }
        if let Some(d) = &self.default {
            schema.insert("default".into(), d.clone());
        }
        if let Some(c) = &self.choices {
            schema.insert("enum".into(), json!(c));
        }
        if let Some(items) = &self.items {
            schema.insert("items".into(), items.json_schema());
        }
        if let Some(props) = &self.properties {
            schema.extend(object_schema(props).as_object().cloned().unwrap_or_default());
        }
        if self.secret == Some(true) {
            schema.insert("writeOnly".into(), json!(true));
        }
        Value::Object(schema)
    }

    /// Checks `value` and returns it with defaults of nested objects filled in.
    fn check_value(&self, value: &Value, path: &str) -> Result<Value, SchemaError> {
        if !self.kind.accepts(value) {
            let (path, want, got) = (path.to_string(), self.kind.name(), json_type(value));
            return Err(SchemaError::WrongType { path, want, got });
        }
        if let Some(choices) = &self.choices {
            if !choices.contains(value) {
                let allowed: Vec<String> = choices.iter().map(Value::to_string).collect();
                let (path, allowed, value) = (path.to_string(), allowed.join(", "), value.clone());
                return Err(SchemaError::NotAChoice { path, allowed, value });
            }
        }
        match (self.kind, value) {
            (Kind::Array, Value::Array(items)) => match &self.items {
                Some(item) => items
                    .iter()
                    .enumerate()
                    .map(|(i, v)| item.check_value(v, &format!("{path}[{i}]")))
                    .collect::<Result<Vec<_>, _>>()
                    .map(Value::Array),
                None => Ok(value.clone()),
            },
            (Kind::Object, _) => match &self.properties {
                Some(props) => check_object(props, value, &format!("{path}.")),
                None => Ok(value.clone()),
            },
            _ => Ok(value.clone()),
        }
    }
}

/// A tool's parameters.
#[derive(Debug, Clone, Default)]
pub struct Params {
    pub fields: BTreeMap<String, Param>,
}

impl Params {
    pub fn from_fields(fields: BTreeMap<String, Param>) -> Result<Params, SchemaError> {
        for (name, param) in &fields {
            if !valid_param_name(name) {
                return Err(SchemaError::BadName { name: name.clone() });
            }
            param.check_declaration(name)?;
        }
        Ok(Params { fields })
    }

    pub fn json_schema(&self) -> Value {
        object_schema(&self.fields)
    }

    /// The values of `args` (validated) that their parameters declare secret.
    pub fn secret_values(&self, args: &Value) -> Vec<String> {
        let mut found = Vec::new();
        secrets_of(&self.fields, args, &mut found);
        found
    }

    /// Validates call arguments and fills in defaults. Errors name the offending field.
    pub fn validate(&self, args: &Value) -> Result<Value, Failure> {
        let args = if args.is_null() { &Value::Object(Map::new()) } else { args };
        if !Kind::Object.accepts(args) {
            return Err(SchemaError::NotAnObject { got: json_type(args) }.into());
        }
        Ok(check_object(&self.fields, args, "")?)
    }
}

/// A schema that cannot be declared, or arguments that do not fit one.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SchemaError {
    #[error("parameter `{path}` says both optional and required")]
    OptionalAndRequired { path: String },
    #[error("default of {0}")]
    BadDefault(Box<SchemaError>),
    #[error("enum value {choice} of `{path}` is not a {kind}")]
    BadChoice { choice: Value, path: String, kind: &'static str },
    #[error("parameter name `{name}` must be letters, digits and _")]
    BadName { name: String },
    #[error("`{path}` must be a {want}, got {got}")]
    WrongType { path: String, want: &'static str, got: &'static str },
    #[error("`{path}` must be one of {allowed}, got {value}")]
    NotAChoice { path: String, allowed: String, value: Value },
    #[error("unknown argument `{path}`; expected one of: {known}")]
    Unknown { path: String, known: String },
    #[error("missing required argument `{path}`{what}")]
    Missing { path: String, what: String },
    #[error("arguments must be a JSON object, got {got}")]
    NotAnObject { got: &'static str },
}

impl From<SchemaError> for Failure {
    fn from(err: SchemaError) -> Failure {
        Failure::new(Code::InvalidArgs, err.to_string())
    }
}

fn secrets_of(fields: &BTreeMap<String, Param>, value: &Value, found: &mut Vec<String>) {
    for (name, param) in fields {
        let Some(given) = value.get(name) else { continue };
        match given {
            Value::String(text) if param.secret == Some(true) => found.push(text.clone()),
            Value::Object(_) => {
                if let Some(props) = &param.properties {
                    secrets_of(props, given, found);
                }
            }
            _ => {}
        }
    }
}

fn object_schema(fields: &BTreeMap<String, Param>) -> Value {
    let properties: Map<String, Value> = fields.iter().map(|(k, p)| (k.clone(), p.json_schema())).collect();
    let required: Vec<&String> = fields.iter().filter(|(_, p)| p.is_required()).map(|(k, _)| k).collect();
    let mut schema = json!({"type": "object", "properties": properties, "additionalProperties": false});
    // An empty list says no more than its absence, and every agent pays for its bytes in tools/list.
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema
}

fn check_object(fields: &BTreeMap<String, Param>, value: &Value, prefix: &str) -> Result<Value, SchemaError> {
    let empty = Map::new();
    let given = value.as_object().unwrap_or(&empty);
    if let Some(unknown) = given.keys().find(|k| !fields.contains_key(*k)) {
        let known: Vec<&str> = fields.keys().map(String::as_str).collect();
        return Err(SchemaError::Unknown { path: format!("{prefix}{unknown}"), known: known.join(", ") });
    }
    let mut out = Map::new();
    for (name, param) in fields {
        let path = format!("{prefix}{name}");
        match given.get(name).filter(|v| !v.is_null()) {
            Some(v) => {
                out.insert(name.clone(), param.check_value(v, &path)?);
            }
            None => match &param.default {
                Some(default) => {
                    out.insert(name.clone(), default.clone());
                }
                None if param.is_required() => {
                    let what = param.description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default();
                    return Err(SchemaError::Missing { path, what });
                }
                None => {}
            },
        }
    }
    Ok(Value::Object(out))
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn valid_param_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(decl: Value) -> Params {
        let fields: BTreeMap<String, Param> = serde_json::from_value(decl).unwrap();
        Params::from_fields(fields).unwrap()
    }

    fn sample() -> Params {
        params(json!({
            "path": {"type": "string", "description": "file"},
            "limit": {"type": "integer", "default": 2000},
            "mode": {"type": "string", "enum": ["fast", "safe"], "optional": true},
            "edits": {"type": "array", "items": {"type": "object", "properties": {
                "old_string": {"type": "string"}, "replace_all": {"type": "boolean", "default": false}}}}
        }))
    }

    #[test]
    fn fills_defaults_and_accepts_valid_args() {
        let out = sample().validate(&json!({"path": "a", "edits": [{"old_string": "x"}]})).unwrap();
        assert_eq!(out, json!({"path": "a", "limit": 2000, "edits": [{"old_string": "x", "replace_all": false}]}));
    }

    #[test]
    fn errors_name_the_field() {
        let p = sample();
        let msg = |v: Value| p.validate(&v).unwrap_err().message;
        assert!(msg(json!({"edits": []})).contains("`path`"));
        assert!(msg(json!({"path": 1, "edits": []})).contains("`path` must be a string"));
        assert!(msg(json!({"path": "a", "edits": [], "mode": "slow"})).contains("`mode` must be one of"));
        assert!(msg(json!({"path": "a", "edits": [{"old_string": 3}]})).contains("`edits[0].old_string`"));
        assert!(msg(json!({"path": "a", "edits": [], "lmit": 3})).contains("unknown argument `lmit`"));
        assert_eq!(p.validate(&json!([1])).unwrap_err().code, crate::error::Code::InvalidArgs);
    }

    #[test]
    fn json_schema_lists_required_fields() {
        let schema = sample().json_schema();
        assert_eq!(schema["required"], json!(["edits", "path"]));
        assert_eq!(schema["properties"]["limit"]["default"], json!(2000));
        assert_eq!(schema["properties"]["edits"]["items"]["required"], json!(["old_string"]));
        assert_eq!(schema["additionalProperties"], json!(false));
    }

    #[test]
    fn bad_declarations_are_refused() {
        let fields: BTreeMap<String, Param> =
            serde_json::from_value(json!({"n": {"type": "integer", "default": "x"}})).unwrap();
        assert!(Params::from_fields(fields).unwrap_err().to_string().contains("default"));
        assert!(serde_json::from_value::<Param>(json!({"type": "string", "requried": true})).is_err());
        assert!(serde_json::from_value::<Param>(json!({"type": "text"})).is_err());
    }
}
