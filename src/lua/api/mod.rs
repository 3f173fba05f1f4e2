//! The `rein` namespace, declared here and only here, one module per area. Each area lists
//! its natives with their parameters, returns and docs (`declare`); `install` builds the
//! namespace from that list and `rein types` writes the editor stubs from it. Each raising
//! native returns `(true, value)` or `(false, failure)`; the bootstrap's `raising` wrapper
//! turns the latter into a raised structured error, so scripts see `err.code` after `pcall`.
//! Natives that act reach their call through `current_call::get()` and the kernel through the
//! state.

pub mod declare;
mod fs;
mod json;
mod json5;
mod log;
mod proc;
mod project;
mod sdk;
pub mod selene;
pub mod stubs;
mod task;
mod tool;

use mlua::{Function, IntoLuaMulti, Lua, MultiValue, Table, Value};
use serde::Serialize;

use crate::error::{Code, Failure};
use crate::lua::{convert, failure, limits, meter, require, state};
use declare::{Area, Class, Field, Home, Make, Native, Param, Returns};

/// Every area, in the order the stubs show them.
pub fn areas() -> [&'static Area; 12] {
    [
        &ROOT,
        &tool::AREA,
        &task::AREA,
        &fs::AREA,
        &json::AREA,
        &json5::AREA,
        &log::AREA,
        &proc::AREA,
        &sdk::AREA,
        &project::AREA,
        &GLOBALS,
        &ERRORS,
    ]
}

const ROOT: Area = Area {
    home: Home::Rein,
    doc: "",
    natives: &[Native {
        name: "error",
        doc: "Fails the call with a structured error: `code` (your own, like \"BUILD_FAILED\", or a stable one), a message that says what to do next, and details for the caller. `pcall` callers get the table.",
        params: &[
            Param { name: "code", ty: "string", doc: "" },
            Param { name: "message", ty: "string?", doc: "" },
            Param { name: "details", ty: "table?", doc: "" },
        ],
        returns: &[],
        make: Make::Raising(|lua| lua.create_function(raise_error)),
    }],
    classes: &[],
};

const GLOBALS: Area = Area {
    home: Home::Global,
    doc: "",
    natives: &[
        Native {
            name: "require",
            doc: "A module: `prelude/a/b.lua` (or `a/b/init.lua`) of the project, then of the built-ins, then `tools/a/b.lua`; a pack's own modules are `<pack>.<module>`. Nothing else is reachable.",
            params: &[Param { name: "name", ty: "string", doc: "dotted, like \"harmony.hdc\"" }],
            returns: &[Returns { ty: "any", doc: "" }],
            make: Make::Plain(|lua| lua.create_function(require::require)),
        },
        Native {
            name: "print",
            doc: "Writes the values, tab-separated, to the log at info level (stderr), never to stdout.",
            params: &[Param { name: "...", ty: "any", doc: "" }],
            returns: &[],
            make: Make::Plain(|lua| lua.create_function(log::print)),
        },
    ],
    classes: &[],
};

/// The shape of every structured error, declared once for the stubs.
const ERRORS: Area = Area {
    home: Home::Rein,
    doc: "",
    natives: &[],
    classes: &[Class {
        name: "rein.Error",
        doc:
            "What rein raises and `pcall` returns; `err.code` is stable (OLD_STRING_NOT_UNIQUE, APPROVAL_REQUIRED, …).",
        fields: &[
            Field { name: "code", ty: "string", doc: "" },
            Field { name: "message", ty: "string", doc: "what happened and what to do next" },
            Field { name: "details", ty: "table?", doc: "" },
        ],
    }],
};

/// The natives the bootstrap itself needs.
pub(crate) fn bootstrap_natives(lua: &Lua) -> mlua::Result<Table> {
    let natives = lua.create_table()?;
    natives.set("budget_tripped", lua.create_function(budget_tripped)?)?;
    natives.set("charge", lua.create_function(charge)?)?;
    natives.set("bytes_per_unit", crate::lua::meter::BYTES_PER_UNIT)?;
    natives.set("yieldable_pcall", crate::lua::meter::hook::yieldable_pcall(lua)?)?;
    natives.set("error_place", crate::lua::error_place::native(lua)?)?;
    Ok(natives)
}

/// The names directly in `rein` that rein's own API uses (a native module cannot take one).
pub(crate) fn taken_names() -> Vec<&'static str> {
    let mut names = Vec::new();
    for area in areas() {
        match area.home {
            Home::Table(name) => names.push(name),
            Home::Rein => names.extend(area.natives.iter().map(|n| n.name)),
            Home::Global => {}
        }
    }
    names
}

/// Builds `rein`, `require` and `print` from the declarations, in a state whose bootstrap ran;
/// returns `rein` (set as a global), for the embedder's native modules to join.
pub(crate) fn install(lua: &Lua) -> mlua::Result<Table> {
    let raising = state::helpers(lua).raising.clone();
    let rein = lua.create_table()?;
    for area in areas() {
        let table = match area.home {
            Home::Rein => rein.clone(),
            Home::Global => lua.globals(),
            Home::Table(name) => match rein.get::<Option<Table>>(name)? {
                Some(table) => table,
                None => {
                    let table = lua.create_table()?;
                    rein.set(name, &table)?;
                    table
                }
            },
        };
        for native in area.natives {
            table.set(native.name, make(lua, &raising, native.make)?)?;
        }
    }
    lua.globals().set("rein", &rein)?;
    Ok(rein)
}

fn make(lua: &Lua, raising: &Function, make: Make) -> mlua::Result<Value> {
    Ok(match make {
        Make::Raising(native) => Value::Function(raising.call(native(lua)?)?),
        Make::Plain(function) => Value::Function(function(lua)?),
        Make::Value(value) => value(lua)?,
    })
}

/// `(true, value)` or `(false, failure)` for the bootstrap's `raising` wrapper.
pub fn outcome<T: Serialize>(lua: &Lua, result: Result<T, Failure>) -> mlua::Result<MultiValue> {
    match result {
        Ok(value) => (true, convert::to_lua(lua, &value)?).into_lua_multi(lua),
        Err(failure) => (false, failure::to_lua_table(lua, &failure)?).into_lua_multi(lua),
    }
}

/// `rein.error(code, message, details?)`: fail with a structured error.
fn raise_error(lua: &Lua, (code, message, details): (String, Option<String>, Value)) -> mlua::Result<MultiValue> {
    let details = convert::lua_to_json(lua, details);
    let message = message.unwrap_or_else(|| format!("{code} (the script gave no message)"));
    let failure = Failure::new(Code::parse(&code), message).with_details(details);
    outcome::<()>(lua, Err(failure))
}

/// `charge(units)`: counts work done in C against the budget; raises once it is spent.
fn charge(lua: &Lua, units: f64) -> mlua::Result<()> {
    match meter::charge(lua, units.max(0.0) as u64) {
        Some(breach) => Err(mlua::Error::external(breach)),
        None => Ok(()),
    }
}

/// The script woke from waiting: the clock may have run out meanwhile.
pub(crate) fn awake(lua: &Lua) -> Result<(), Failure> {
    match meter::check(lua) {
        Some(breach) => Err(failure::breach_failure(breach)),
        None => Ok(()),
    }
}

/// Asked by the bootstrap's pcall wrappers: must this error travel on, uncaught?
fn budget_tripped(lua: &Lua, err: Value) -> mlua::Result<bool> {
    if meter::tripped(lua).is_some() {
        return Ok(true);
    }
    // Lua reports an allocation failure with exactly this message; a script that caught it
    // would otherwise go on allocating.
    if let Value::String(s) = &err {
        if s.as_bytes() == b"not enough memory".as_slice() {
            let memory = state::limits(lua).memory_bytes;
            meter::trip(lua, limits::Breach::Memory(memory));
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

/// Takes field `name` out of an options table (a callback, or a flag another struct does not
/// know), leaving the rest for [`options`].
pub fn take_field(lua: &Lua, value: &Value, name: &str) -> mlua::Result<(Value, Value)> {
    let Value::Table(table) = value else { return Ok((Value::Nil, value.clone())) };
    let rest = lua.create_table()?;
    let mut taken = Value::Nil;
    for pair in table.pairs::<Value, Value>() {
        let (key, item) = pair?;
        if matches!(&key, Value::String(s) if s.as_bytes() == name.as_bytes()) {
            taken = item;
        } else {
            rest.set(key, item)?;
        }
    }
    Ok((taken, Value::Table(rest)))
}

fn bad_options(what: &str, err: impl std::fmt::Display) -> Failure {
    Failure::new(Code::InvalidArgs, format!("bad options for {what}: {err}"))
}
