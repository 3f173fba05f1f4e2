//! A tool as a Lua file declares it: `return { name, description, params, run, checks? }`.

use std::collections::BTreeMap;

use mlua::{Function, Lua, LuaSerdeExt, Table, Value};

use crate::lua::convert;
use crate::lua::schema::{Param, Params};

#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub params: Params,
    pub run: Function,
    /// Examples `{args, expect}` the tool carries for `rein test` (kept as declared).
    pub checks: serde_json::Value,
}

const KNOWN_FIELDS: [&str; 5] = ["name", "description", "params", "run", "checks"];

/// Reads the table a tool file returned. Errors say what is wrong with the declaration.
pub fn parse_tool(lua: &Lua, value: Value) -> Result<ToolSpec, String> {
    let Value::Table(table) = value else {
        return Err(format!(
            "a tool file must return a table {{ name, description, params, run }}, but it returned {}",
            value.type_name()
        ));
    };
    reject_unknown_fields(&table)?;
    let name: String = field(&table, "name", "a string like \"read_file\"")?;
    if !valid_tool_name(&name) {
        return Err(format!("tool name {name:?} must be lowercase letters, digits and _ (starting with a letter)"));
    }
    let description: String = field(&table, "description", "a string saying what the tool does")?;
    if description.trim().is_empty() {
        return Err(format!("tool {name}: description is empty; say what the tool does and returns"));
    }
    let run: Function = field(&table, "run", "a function(args, ctx)")?;
    let params = parse_params(lua, table.get::<Value>("params").map_err(|e| e.to_string())?)
        .map_err(|e| format!("tool {name}: {e}"))?;
    let checks = convert::lua_to_json(lua, table.get::<Value>("checks").unwrap_or(Value::Nil));
    Ok(ToolSpec { name, description, params, run, checks })
}

fn field<T: mlua::FromLua>(table: &Table, key: &str, expected: &str) -> Result<T, String> {
    match table.get::<Value>(key) {
        Ok(Value::Nil) | Err(_) => Err(format!("the tool table has no `{key}`; it needs {expected}")),
        Ok(_) => table.get::<T>(key).map_err(|_| format!("`{key}` must be {expected}")),
    }
}

fn reject_unknown_fields(table: &Table) -> Result<(), String> {
    for pair in table.pairs::<Value, Value>() {
        let (key, _) = pair.map_err(|e| e.to_string())?;
        let known = match &key {
            Value::String(s) => KNOWN_FIELDS.iter().any(|k| s.as_bytes() == k.as_bytes()),
            _ => false,
        };
        if !known {
            let shown = match &key {
                Value::String(s) => s.to_string_lossy(),
                other => format!("{other:?}"),
            };
            return Err(format!("unknown field `{shown}` in the tool table; allowed: {}", KNOWN_FIELDS.join(", ")));
        }
    }
    Ok(())
}

fn parse_params(lua: &Lua, value: Value) -> Result<Params, String> {
    if value.is_nil() {
        return Ok(Params::default());
    }
    let fields: BTreeMap<String, Param> =
        lua.from_value(value).map_err(|e| format!("params are not a valid schema: {e}"))?;
    Params::from_fields(fields)
}

pub fn valid_tool_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}
