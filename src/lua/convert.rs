//! JSON <-> Lua values with the conventions rein's scripts rely on: JSON null is `nil` for
//! arguments and results, empty arrays stay arrays, functions in results are skipped.

use mlua::{Lua, LuaSerdeExt, SerializeOptions, Table, Value};

fn to_lua_options() -> SerializeOptions {
    SerializeOptions::new().serialize_none_to_null(false).serialize_unit_to_null(false)
}

pub fn json_to_lua(lua: &Lua, value: &serde_json::Value) -> mlua::Result<Value> {
    lua.to_value_with(value, to_lua_options())
}

pub fn to_lua<T: serde::Serialize>(lua: &Lua, value: &T) -> mlua::Result<Value> {
    lua.to_value_with(value, to_lua_options())
}

/// Lua -> JSON. Values JSON cannot hold (functions, userdata) are dropped, not fatal.
pub fn lua_to_json(lua: &Lua, value: Value) -> serde_json::Value {
    try_lua_to_json(lua, value).unwrap_or(serde_json::Value::Null)
}

/// Lua -> JSON by hand rather than through serde: mlua's deserializer skips `rein.json.null`
/// inside arrays when unsupported values are allowed, which would shift array elements.
pub fn try_lua_to_json(lua: &Lua, value: Value) -> mlua::Result<serde_json::Value> {
    let ceiling = crate::lua::meter::memory_ceiling(lua).unwrap_or(crate::lua::Limits::default().memory_bytes);
    let mut walk = Walk { seen: Vec::new(), left: ceiling.saturating_mul(2) };
    Ok(to_json(lua, &value, &mut walk)?.unwrap_or(serde_json::Value::Null))
}

/// Tables nest at most this deep in a result.
const MAX_DEPTH: usize = 128;

/// Where a conversion is: the tables it is inside (to refuse a cycle), and how many bytes
/// it may still build. A table may hold the same table or string many times over (`t = {t,
/// t}` sixty times is a few KiB in Lua and 2^60 values in JSON), and the conversion runs in
/// Rust where neither the instruction hook nor the memory ceiling reach: so what it builds
/// is counted against twice the call's memory ceiling (a value the script could hold
/// without sharing fits well within that).
struct Walk {
    seen: Vec<*const std::ffi::c_void>,
    left: usize,
}

impl Walk {
    fn spend(&mut self, bytes: usize) -> mlua::Result<()> {
        let bytes = bytes.saturating_add(std::mem::size_of::<serde_json::Value>());
        match self.left.checked_sub(bytes) {
            Some(left) => {
                self.left = left;
                Ok(())
            }
            None => Err(mlua::Error::runtime(
                "the value is larger as JSON than the call's memory allows (a table or string shared many times over?)",
            )),
        }
    }
}

/// `None` for values JSON cannot hold (functions, threads, userdata): they are left out.
fn to_json(lua: &Lua, value: &Value, walk: &mut Walk) -> mlua::Result<Option<serde_json::Value>> {
    use serde_json::Value as J;
    walk.spend(match value {
        Value::String(s) => s.as_bytes().len(),
        _ => 0,
    })?;
    Ok(Some(match value {
        Value::Nil => J::Null,
        Value::LightUserData(ud) if ud.0.is_null() => J::Null,
        Value::Boolean(b) => J::Bool(*b),
        Value::Integer(i) => J::from(*i),
        Value::Number(n) => serde_json::Number::from_f64(*n).map_or(J::Null, J::Number),
        Value::String(s) => J::String(text(s)),
        Value::Table(table) => {
            let ptr = table.to_pointer();
            if walk.seen.contains(&ptr) {
                return Err(mlua::Error::runtime("a table contains itself; JSON cannot hold it"));
            }
            if walk.seen.len() >= MAX_DEPTH {
                return Err(mlua::Error::runtime("tables nest too deeply for JSON"));
            }
            walk.seen.push(ptr);
            let json = table_to_json(lua, table, walk);
            walk.seen.pop();
            json?
        }
        _ => return Ok(None),
    }))
}

/// A Lua string as text. Nearly every string is valid UTF-8, which the standard validator
/// checks many bytes at a time; only the others take the (much slower) lossy path.
fn text(s: &mlua::String) -> String {
    let bytes = s.as_bytes();
    match std::str::from_utf8(&bytes) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(&bytes).into_owned(),
    }
}

fn table_to_json(lua: &Lua, table: &Table, walk: &mut Walk) -> mlua::Result<serde_json::Value> {
    let len = table.raw_len();
    let marked_array = table.metatable().is_some_and(|mt| mt == lua.array_metatable());
    // Counting the pairs is a second walk over the table (and each step of mlua's walk is a
    // protected call): only a table with a sequence part can be an array.
    if marked_array || (len > 0 && table.clone().pairs::<Value, Value>().count() == len) {
        let mut items = Vec::with_capacity(len);
        for i in 1..=len {
            let item: Value = table.raw_get(i)?;
            items.push(to_json(lua, &item, walk)?.unwrap_or(serde_json::Value::Null));
        }
        return Ok(serde_json::Value::Array(items));
    }
    let mut map = serde_json::Map::new();
    for pair in table.clone().pairs::<Value, Value>() {
        let (key, item) = pair?;
        let key = match key {
            Value::String(s) => text(&s),
            Value::Integer(i) => i.to_string(),
            Value::Number(n) => n.to_string(),
            _ => continue,
        };
        walk.spend(key.len())?;
        if let Some(json) = to_json(lua, &item, walk)? {
            map.insert(key, json);
        }
    }
    Ok(serde_json::Value::Object(map))
}
