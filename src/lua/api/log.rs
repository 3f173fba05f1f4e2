//! `rein.log.*` and `print`: to tracing (stderr), never to stdout, tagged with the tool that
//! is acting.

use mlua::{Lua, Value, Variadic};

use super::declare::{Area, Home, Make, Native, Param};
use crate::lua::{convert, current_call};

const MESSAGE: Param = Param { name: "message", ty: "any", doc: "shown with tostring" };
const FIELDS: Param = Param { name: "fields", ty: "table?", doc: "structured fields, logged as JSON" };

/// One logger per level; each is its own function so the declaration can name it.
macro_rules! logger {
    ($level:literal, $doc:literal) => {
        Native {
            name: $level,
            doc: $doc,
            params: &[MESSAGE, FIELDS],
            returns: &[],
            make: Make::Plain(|lua| {
                lua.create_function(|lua, (message, fields): (Value, Value)| {
                    log(lua, $level, &describe(lua, message)?, fields);
                    Ok(())
                })
            }),
        }
    };
}

pub const AREA: Area = Area {
    home: Home::Table("log"),
    doc: "The log on stderr (`rein -v`, REIN_LOG), tagged with the acting tool; never stdout. Secret values are scrubbed.",
    natives: &[
        logger!("trace", "Logs at trace level (`-vvv`)."),
        logger!("debug", "Logs at debug level (`-vv`)."),
        logger!("info", "Logs at info level (`-v`)."),
        logger!("warn", "Logs a warning (shown by default)."),
        logger!("error", "Logs an error (shown by default); it does not stop the script: use rein.error for that."),
    ],
    classes: &[],
};

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
    let call = current_call::get_even_if_cancelled().ok();
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
