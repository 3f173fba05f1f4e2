//! The natives behind the `rein` namespace, one file per area. Each native returns
//! `(true, value)` or `(false, failure_table)`; the bootstrap turns the latter into a raised
//! structured error, so scripts see `err.code` after `pcall`.

mod fs;
mod json;
mod json5;
mod log;
mod proc;
mod task;
mod tool;

use mlua::{IntoLuaMulti, Lua, MultiValue, Table, Value};
use serde::Serialize;

use crate::error::Failure;
use crate::lua::{convert, failure, limits, require};

pub fn natives(lua: &Lua) -> mlua::Result<Table> {
    let natives = lua.create_table()?;
    fs::register(lua, &natives)?;
    json::register(lua, &natives)?;
    json5::register(lua, &natives)?;
    log::register(lua, &natives)?;
    proc::register(lua, &natives)?;
    task::register(lua, &natives)?;
    tool::register(lua, &natives)?;
    natives.set("require", lua.create_function(require::require)?)?;
    natives.set("budget_tripped", lua.create_function(budget_tripped)?)?;
    Ok(natives)
}

/// `(true, value)` or `(false, failure)` for the bootstrap's `raising` wrapper.
pub fn outcome<T: Serialize>(lua: &Lua, result: Result<T, Failure>) -> mlua::Result<MultiValue> {
    match result {
        Ok(value) => (true, convert::to_lua(lua, &value)?).into_lua_multi(lua),
        Err(failure) => (false, failure::to_lua_table(lua, &failure)?).into_lua_multi(lua),
    }
}

/// Asked by the bootstrap's pcall wrappers: must this error travel on, uncaught?
fn budget_tripped(lua: &Lua, err: Value) -> mlua::Result<bool> {
    if limits::tripped(lua).is_some() {
        return Ok(true);
    }
    // Lua reports an allocation failure with exactly this message; a script that caught it
    // would otherwise go on allocating.
    if let Value::String(s) = &err {
        if s.as_bytes() == b"not enough memory".as_slice() {
            let memory = crate::lua::runtime::host_data(lua).limits.memory_bytes;
            limits::trip(lua, limits::Breach::Memory(memory));
            return Ok(true);
        }
    }
    Ok(false)
}

/// Reads an options table into `T`; unknown or mistyped fields are INVALID_ARGS.
pub fn options<T: serde::de::DeserializeOwned + Default>(lua: &Lua, value: Value, what: &str) -> Result<T, Failure> {
    if value.is_nil() {
        return Ok(T::default());
    }
    let json = convert::try_lua_to_json(lua, value).map_err(|e| bad_options(what, e))?;
    let json = if json.as_array().is_some_and(Vec::is_empty) { serde_json::json!({}) } else { json };
    serde_json::from_value(json).map_err(|e| bad_options(what, e))
}

fn bad_options(what: &str, err: impl std::fmt::Display) -> Failure {
    Failure::new(crate::error::Code::InvalidArgs, format!("bad options for {what}: {err}"))
}
