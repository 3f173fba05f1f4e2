//! `rein.tool(name, args)`: one tool calling another, as a child of the calling tool's call:
//! the same validation and limits, and the caller's pack permissions still apply.

use mlua::{Lua, MultiValue, Value};

use super::declare::{Area, Home, Make, Native, Param, Returns};
use super::outcome;
use crate::lua::{convert, current_call, invoke};

pub const AREA: Area = Area {
    home: Home::Rein,
    doc: "",
    natives: &[Native {
        name: "tool",
        doc: "Calls another tool by name, as part of this call: its arguments validated, the same limits (at most 8 deep), and a pack's permissions still apply. Raises what the tool raised.",
        params: &[
            Param { name: "name", ty: "string", doc: "as `rein tools` lists it" },
            Param { name: "args", ty: "table?", doc: "its arguments (default {})" },
        ],
        returns: &[Returns { ty: "table", doc: "the tool's result" }],
        make: Make::Raising(|lua| lua.create_async_function(call)),
    }],
    classes: &[],
};

pub async fn call(lua: Lua, (name, args): (String, Value)) -> mlua::Result<MultiValue> {
    let args = convert::lua_to_json(&lua, args);
    let result = match current_call::get() {
        Ok(parent) => invoke::tool(&lua, &parent, &name, &args).await,
        Err(failure) => Err(failure),
    };
    let result = super::awake(&lua).and(result);
    outcome(&lua, result)
}
