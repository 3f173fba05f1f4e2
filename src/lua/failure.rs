//! Failures crossing the Lua boundary. Into Lua they travel as tables `{code, message, details}`
//! (so `pcall` callers can read `err.code`); out of Lua every error value becomes a [`Failure`].

use mlua::{IntoLua, Lua, LuaSerdeExt, Value};
use serde_json::json;

use crate::error::{Code, Failure};
use crate::lua::convert;
use crate::lua::limits::Breach;
use crate::lua::meter;

/// The message Lua uses for every allocation failure.
const LUA_OUT_OF_MEMORY: &str = "not enough memory";

pub fn breach_failure(breach: Breach) -> Failure {
    if breach == Breach::Cancelled {
        return Failure::new(Code::Cancelled, format!("{}; it was stopped.", breach.message()));
    }
    Failure::new(
        Code::BudgetExceeded,
        format!("{}. Make the script do less per call, or fix the loop.", breach.message()),
    )
    .with_details(json!({"limit": breach.limit_name()}))
}

/// A failure as the Lua table scripts see (the bootstrap adds the metatable).
pub fn to_lua_table(lua: &Lua, failure: &Failure) -> mlua::Result<Value> {
    let table = lua.create_table()?;
    table.set("code", failure.code.as_str())?;
    table.set("message", failure.message.as_str())?;
    if !failure.details.is_null() {
        table.set("details", convert::json_to_lua(lua, &failure.details)?)?;
    }
    table.into_lua(lua)
}

/// Whatever a script raised, as a Failure. A tripped budget wins over what the script saw.
pub fn from_lua_error(lua: &Lua, value: Value) -> Failure {
    if let Some(breach) = meter::tripped(lua) {
        return breach_failure(breach);
    }
    match value {
        Value::Table(table) => from_error_table(lua, table),
        Value::String(s) => from_message(lua, &s.to_string_lossy()),
        Value::Error(err) => from_mlua_error(lua, &err),
        other => Failure::new(Code::LuaError, format!("the script raised a {} value", other.type_name())),
    }
}

fn from_error_table(lua: &Lua, table: mlua::Table) -> Failure {
    // The one place a script's code text becomes a code: compared typed from here on.
    let code = table.get::<String>("code").ok().filter(|code| !code.is_empty()).map(|code| Code::parse(&code));
    let message: Option<String> = table.get("message").ok();
    let details =
        table.get::<Value>("details").ok().map(|d| convert::lua_to_json(lua, d)).unwrap_or(serde_json::Value::Null);
    match code {
        // Plain Lua errors were wrapped by the bootstrap; classify them like raw messages.
        Some(Code::LuaError) if details.is_null() => {
            let failure = from_message(lua, message.as_deref().unwrap_or("the script failed"));
            match table.get::<Option<String>>("traceback").ok().flatten() {
                Some(traceback) if failure.code == Code::LuaError && !traceback.is_empty() => {
                    failure.with_details(json!({"traceback": traceback}))
                }
                _ => failure,
            }
        }
        Some(code) => Failure {
            code,
            message: message.unwrap_or_else(|| "the script failed without a message".to_string()),
            details,
        },
        None => {
            let raw = lua.from_value::<serde_json::Value>(Value::Table(table)).unwrap_or_default();
            Failure::new(Code::LuaError, "the script raised a table without a `code` field")
                .with_details(json!({"value": raw}))
        }
    }
}

fn from_message(lua: &Lua, message: &str) -> Failure {
    if message == LUA_OUT_OF_MEMORY {
        let memory = limits_memory(lua);
        return breach_failure(meter::trip(lua, Breach::Memory(memory)));
    }
    if message.contains("stack overflow") {
        return breach_failure(meter::trip(lua, Breach::StackDepth));
    }
    Failure::new(Code::LuaError, message.to_string())
}

fn limits_memory(lua: &Lua) -> usize {
    crate::lua::state::limits(lua).memory_bytes
}

pub fn from_mlua_error(lua: &Lua, err: &mlua::Error) -> Failure {
    if let Some(breach) = meter::tripped(lua) {
        return breach_failure(breach);
    }
    match err {
        mlua::Error::CallbackError { cause, .. } => from_mlua_error(lua, cause),
        mlua::Error::WithContext { cause, .. } => from_mlua_error(lua, cause),
        mlua::Error::ExternalError(inner) => match inner.downcast_ref::<Breach>() {
            Some(breach) => breach_failure(*breach),
            None => match inner.downcast_ref::<Failure>() {
                Some(failure) => failure.clone(),
                None => Failure::new(Code::LuaError, inner.to_string()),
            },
        },
        mlua::Error::MemoryError(_) => breach_failure(meter::trip(lua, Breach::Memory(limits_memory(lua)))),
        mlua::Error::StackError => breach_failure(meter::trip(lua, Breach::StackDepth)),
        mlua::Error::RuntimeError(message) => from_message(lua, message),
        mlua::Error::SyntaxError { message, .. } => Failure::new(Code::LuaError, format!("syntax error: {message}")),
        other => Failure::new(Code::LuaError, other.to_string()),
    }
}
