//! A tool as a Lua file declares it:
//! `return { name, description, params, run, checks?, annotations? }`.

use std::collections::BTreeMap;

use mlua::{Function, Lua, LuaSerdeExt, Value};

use crate::lua::annotations::{self, Annotations};
use crate::lua::convert;
use crate::lua::declaration::{only_fields, optional, required, serde_reason, wrong, SpecError};
use crate::lua::schema::{Param, Params};

#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub params: Params,
    pub run: Function,
    /// Examples `{args, expect}` the tool carries for `rein test` (kept as declared).
    pub checks: serde_json::Value,
    /// What it says about its effects (MCP's tool annotations).
    pub annotations: Annotations,
}

/// The fields a tool table may have.
pub const KNOWN_FIELDS: [&str; 6] = ["name", "description", "params", "run", "checks", "annotations"];
const WHAT: &str = "the tool table";

/// Reads the table a tool file returned.
pub fn parse_tool(lua: &Lua, value: Value) -> Result<ToolSpec, SpecError> {
    let Value::Table(table) = value else {
        let shape = "{ name, description, params, run }";
        return Err(SpecError::NotATable { kind: "tool", shape, got: value.type_name() });
    };
    only_fields(&table, &KNOWN_FIELDS, WHAT)?;
    let name: String = required(&table, WHAT, "name", "a string like \"read_file\"")?;
    if !valid_tool_name(&name) {
        let rule = "lowercase letters, digits and _ (starting with a letter)";
        return Err(SpecError::BadName { kind: "tool", name, rule });
    }
    let what = format!("tool {name}");
    let description: String = required(&table, WHAT, "description", "a string saying what the tool does")?;
    if description.trim().is_empty() {
        return Err(SpecError::NoDescription { what });
    }
    let run: Function = required(&table, WHAT, "run", "a function(args, ctx)")?;
    let params = parse_params(lua, optional(&table, &what, "params", "a table of parameters")?, &what)?;
    let checks = convert::lua_to_json(lua, table.get::<Value>("checks").unwrap_or(Value::Nil));
    let annotations = annotations::parse(lua, table.get::<Value>("annotations").unwrap_or(Value::Nil), &what)?;
    Ok(ToolSpec { name, description, params, run, checks, annotations })
}

/// `params = { field = { type, description?, ... } }` of a tool or recipe. Each parameter is
/// read on its own (in name order), so a mistake names the parameter it is in.
pub fn parse_params(lua: &Lua, value: Value, what: &str) -> Result<Params, SpecError> {
    let table = match value {
        Value::Nil => return Ok(Params::default()),
        Value::Table(table) => table,
        _ => return Err(wrong(what, "params", "a table of parameters")),
    };
    let mut entries = Vec::new();
    for pair in table.pairs::<Value, Value>() {
        let (key, param) = pair.map_err(|e| wrong(what, "params", &e.to_string()))?;
        let Value::String(name) = key else {
            return Err(wrong(what, "params", "a table keyed by parameter names: { path = { type = \"string\" } }"));
        };
        entries.push((name.to_string_lossy(), param));
    }
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    let mut fields = BTreeMap::new();
    for (name, param) in entries {
        let param: Param = lua
            .from_value(param)
            .map_err(|e| SpecError::Params { what: format!("{what}: params.{name}"), why: serde_reason(&e) })?;
        fields.insert(name, param);
    }
    Params::from_fields(fields).map_err(|source| SpecError::Schema { what: what.to_string(), source })
}

pub fn valid_tool_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}
