//! `rein.log.*` and `print`: to tracing (stderr), never to stdout.

use mlua::{Lua, Table, Value};

use crate::lua::{convert, runtime};

pub fn register(lua: &Lua, natives: &Table) -> mlua::Result<()> {
    natives.set("log", lua.create_function(log)?)?;
    Ok(())
}

fn log(lua: &Lua, (level, message, fields): (String, String, Value)) -> mlua::Result<()> {
    let tool = runtime::current_tool(lua).unwrap_or_default();
    let fields = if fields.is_nil() { String::new() } else { convert::lua_to_json(lua, fields).to_string() };
    match level.as_str() {
        "trace" => tracing::trace!(target: "rein::lua", tool, fields, "{message}"),
        "debug" => tracing::debug!(target: "rein::lua", tool, fields, "{message}"),
        "warn" => tracing::warn!(target: "rein::lua", tool, fields, "{message}"),
        "error" => tracing::error!(target: "rein::lua", tool, fields, "{message}"),
        _ => tracing::info!(target: "rein::lua", tool, fields, "{message}"),
    }
    Ok(())
}
