//! JSON <-> Lua values with the conventions rein's scripts rely on: JSON null is `nil` for
//! arguments and results, empty arrays stay arrays, functions in results are skipped.

use mlua::{DeserializeOptions, Lua, LuaSerdeExt, SerializeOptions, Value};

fn to_lua_options() -> SerializeOptions {
    SerializeOptions::new().serialize_none_to_null(false).serialize_unit_to_null(false)
}

pub fn json_to_lua(lua: &Lua, value: &serde_json::Value) -> mlua::Result<Value> {
    lua.to_value_with(value, to_lua_options())
}

pub fn to_lua<T: serde::Serialize>(lua: &Lua, value: &T) -> mlua::Result<Value> {
    lua.to_value_with(value, to_lua_options())
}

/// Lua -> JSON. Values JSON cannot hold (functions, userdata) are dropped, not fatal.
pub fn lua_to_json(lua: &Lua, value: Value) -> serde_json::Value {
    try_lua_to_json(lua, value).unwrap_or(serde_json::Value::Null)
}

pub fn try_lua_to_json(lua: &Lua, value: Value) -> mlua::Result<serde_json::Value> {
    lua.from_value_with(value, DeserializeOptions::new().deny_unsupported_types(false).deny_recursive_tables(true))
}
