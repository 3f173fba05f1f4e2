//! `rein.tool(name, args)`: one tool calling another, through the same validation and limits.

use mlua::{Lua, MultiValue, Table, Value};

use crate::lua::api::outcome;
use crate::lua::{convert, runtime};

pub fn register(lua: &Lua, natives: &Table) -> mlua::Result<()> {
    natives.set("tool", lua.create_async_function(call)?)?;
    Ok(())
}

async fn call(lua: Lua, (name, args): (String, Value)) -> mlua::Result<MultiValue> {
    let args = convert::lua_to_json(&lua, args);
    let result = runtime::call_nested(&lua, &name, &args).await;
    outcome(&lua, result)
}
