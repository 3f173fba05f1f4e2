//! `rein.log.*` and `print`: to tracing (stderr), never to stdout, tagged with the tool that
//! is acting.

use mlua::{Lua, Table, Value, Variadic};

use super::Namespace;
use crate::lua::{convert, scope};

const LEVELS: [&str; 5] = ["trace", "debug", "info", "warn", "error"];

pub fn table(api: &Namespace) -> mlua::Result<Table> {
    let table = api.lua.create_table()?;
    for level in LEVELS {
        let logger = api.lua.create_function(move |lua, (message, fields): (Value, Value)| {
            log(lua, level, &describe(lua, message)?, fields);
            Ok(())
        })?;
        table.set(level, logger)?;
    }
    Ok(table)
}

/// `print(...)`: the values, tab-separated, to the log at info level (stdout belongs to the
/// caller's JSON).
pub fn print(lua: &Lua, values: Variadic<Value>) -> mlua::Result<()> {
    let mut parts = Vec::with_capacity(values.len());
    for value in values {
        parts.push(describe(lua, value)?);
    }
    log(lua, "info", &parts.join("\t"), Value::Nil);
    Ok(())
}

/// What `tostring` would say (metamethods included).
fn describe(lua: &Lua, value: Value) -> mlua::Result<String> {
    let tostring: mlua::Function = lua.globals().get("tostring")?;
    tostring.call::<String>(value)
}

fn log(lua: &Lua, level: &str, message: &str, fields: Value) {
    let call = scope::current().ok();
    let tool = call.as_ref().and_then(|call| call.actor().map(|a| a.name.clone())).unwrap_or_default();
    let fields = if fields.is_nil() { String::new() } else { convert::lua_to_json(lua, fields).to_string() };
    let (message, fields) = match &call {
        Some(call) => (call.secrets().scrub(message), call.secrets().scrub(&fields)),
        None => (message.to_string(), fields),
    };
    match level {
        "trace" => tracing::trace!(target: "rein::lua", tool, fields, "{message}"),
        "debug" => tracing::debug!(target: "rein::lua", tool, fields, "{message}"),
        "warn" => tracing::warn!(target: "rein::lua", tool, fields, "{message}"),
        "error" => tracing::error!(target: "rein::lua", tool, fields, "{message}"),
        _ => tracing::info!(target: "rein::lua", tool, fields, "{message}"),
    }
}
