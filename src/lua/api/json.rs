//! `rein.json`: encode and decode with serde_json. JSON null decodes to `rein.json.null`.

use mlua::{IntoLuaMulti, Lua, LuaSerdeExt, MultiValue, Table, Value};
use serde::Deserialize;

use super::declare::{Area, Home, Make, Native, Param, Returns};
use super::{options, outcome};
use crate::error::{Code, Failure};
use crate::lua::convert;

pub const AREA: Area = Area {
    home: Home::Table("json"),
    doc: "JSON with serde_json. JSON null decodes to `rein.json.null`, so arrays keep their length.",
    natives: &[
        Native {
            name: "encode",
            doc:
                "A value as JSON text. Tables with only 1..n keys are arrays; mark an empty array with rein.json.array.",
            params: &[
                Param { name: "value", ty: "any", doc: "" },
                Param { name: "opts", ty: "{pretty?: boolean}?", doc: "" },
            ],
            returns: &[Returns { ty: "string", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(encode)),
        },
        Native {
            name: "decode",
            doc: "JSON text as a Lua value (INVALID_ARGS when it is not valid JSON).",
            params: &[Param { name: "text", ty: "string", doc: "" }],
            returns: &[Returns { ty: "any", doc: "" }],
            make: Make::Raising(|lua| lua.create_function(decode)),
        },
        Native {
            name: "null",
            doc: "What JSON null decodes to; encodes back as null.",
            params: &[],
            returns: &[Returns { ty: "lightuserdata", doc: "" }],
            make: Make::Value(|lua| Ok(lua.null())),
        },
        Native {
            name: "array",
            doc: "Marks `t` as an array, so an empty one encodes as [] (not {}); returns `t`.",
            params: &[Param { name: "t", ty: "table", doc: "" }],
            returns: &[Returns { ty: "table", doc: "" }],
            make: Make::Plain(|lua| lua.create_function(mark_array)),
        },
    ],
    classes: &[],
};

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct EncodeOpts {
    #[serde(default)]
    pretty: bool,
}

fn encode(lua: &Lua, (value, opts): (Value, Value)) -> mlua::Result<MultiValue> {
    let result = options::<EncodeOpts>(lua, opts, "rein.json.encode").and_then(|o| {
        let json = convert::try_lua_to_json(lua, value)
            .map_err(|e| Failure::new(Code::InvalidArgs, format!("value cannot be encoded as JSON: {e}")))?;
        let text = if o.pretty { serde_json::to_string_pretty(&json) } else { serde_json::to_string(&json) };
        text.map_err(|e| Failure::new(Code::InvalidArgs, e.to_string()))
    });
    outcome(lua, result)
}

fn decode(lua: &Lua, text: mlua::String) -> mlua::Result<MultiValue> {
    let parsed: Result<serde_json::Value, Failure> = serde_json::from_slice(&text.as_bytes())
        .map_err(|e| Failure::new(Code::InvalidArgs, format!("text is not valid JSON: {e}")));
    match parsed {
        // Decoded values keep null as a sentinel so arrays keep their length.
        Ok(json) => {
            let value = lua.to_value(&json)?;
            (true, value).into_lua_multi(lua)
        }
        Err(failure) => outcome::<()>(lua, Err(failure)),
    }
}

/// Marks a table as a JSON array, so an empty one encodes as `[]`, not `{}`.
fn mark_array(lua: &Lua, table: Table) -> mlua::Result<Table> {
    table.set_metatable(Some(lua.array_metatable()))?;
    Ok(table)
}
