//! `rein.tool(name, args)`: one tool calling another, as a child of the calling tool's call:
//! the same validation and limits, and the caller's pack permissions still apply.

use mlua::{Lua, MultiValue, Value};

use super::outcome;
use crate::lua::{convert, invoke, scope};

pub async fn call(lua: Lua, (name, args): (String, Value)) -> mlua::Result<MultiValue> {
    let args = convert::lua_to_json(&lua, args);
    let result = match scope::current() {
        Ok(parent) => invoke::tool(&lua, &parent, &name, &args).await,
        Err(failure) => Err(failure),
    };
    let result = super::awake(&lua).and(result);
    outcome(&lua, result)
}
