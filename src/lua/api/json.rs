//! `rein.json`: encode and decode with serde_json. JSON null decodes to `rein.json.null`.

use mlua::{IntoLuaMulti, Lua, LuaSerdeExt, MultiValue, Table, Value};
use serde::Deserialize;

use super::{options, outcome, Namespace};
use crate::error::{Code, Failure};
use crate::lua::convert;

/// `rein.json`: `encode`, `decode`, `null` (what JSON null decodes to, so arrays keep their
/// length) and `array` (marks a table as an array, so an empty one encodes as `[]`).
pub fn table(api: &Namespace) -> mlua::Result<Table> {
    let lua = api.lua;
    let table = api.table(vec![("encode", lua.create_function(encode)?), ("decode", lua.create_function(decode)?)])?;
    table.set("null", lua.null())?;
    table.set("array", lua.create_function(mark_array)?)?;
    Ok(table)
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct EncodeOpts {
    #[serde(default)]
    pretty: bool,
}

fn encode(lua: &Lua, (value, opts): (Value, Value)) -> mlua::Result<MultiValue> {
    let result = options::<EncodeOpts>(lua, opts, "rein.json.encode").and_then(|o| {
        let json = convert::try_lua_to_json(lua, value)
            .map_err(|e| Failure::new(Code::InvalidArgs, format!("value cannot be encoded as JSON: {e}")))?;
        let text = if o.pretty { serde_json::to_string_pretty(&json) } else { serde_json::to_string(&json) };
        text.map_err(|e| Failure::new(Code::InvalidArgs, e.to_string()))
    });
    outcome(lua, result)
}

fn decode(lua: &Lua, text: mlua::String) -> mlua::Result<MultiValue> {
    let parsed: Result<serde_json::Value, Failure> = serde_json::from_slice(&text.as_bytes())
        .map_err(|e| Failure::new(Code::InvalidArgs, format!("text is not valid JSON: {e}")));
    match parsed {
        // Decoded values keep null as a sentinel so arrays keep their length.
        Ok(json) => {
            let value = lua.to_value(&json)?;
            (true, value).into_lua_multi(lua)
        }
        Err(failure) => outcome::<()>(lua, Err(failure)),
    }
}

/// Marks a table as a JSON array, so an empty one encodes as `[]`, not `{}`.
fn mark_array(lua: &Lua, table: Table) -> mlua::Result<Table> {
    table.set_metatable(Some(lua.array_metatable()))?;
    Ok(table)
}
