//! rein's own `require`: modules come only from prelude/ and the tools' folders of the
//! embedded built-ins and the project, never from the filesystem at large.

use mlua::{Lua, Table, Value};

use crate::lua::runtime::{host_data, load_chunk};
use crate::sources::valid_module_name;

const CACHE_KEY: &str = "rein.modules";

/// Marks a module whose file is running, to catch circular requires.
const LOADING: &str = "\0loading";

pub fn require(lua: &Lua, name: String) -> mlua::Result<Value> {
    if !valid_module_name(&name) {
        return Err(mlua::Error::runtime(format!(
            "module name {name:?} is not valid: use dotted names like \"harmony.hdc\""
        )));
    }
    let cache = cache(lua)?;
    match cache.get::<Value>(name.as_str())? {
        Value::Nil => {}
        Value::String(s) if s.as_bytes() == LOADING.as_bytes() => {
            return Err(mlua::Error::runtime(format!("module {name:?} requires itself (a require cycle)")));
        }
        cached => return Ok(cached),
    }
    let found = host_data(lua).sources.find_module(&name).map_err(mlua::Error::runtime)?;
    let Some(file) = found else {
        let stem = name.replace('.', "/");
        return Err(mlua::Error::runtime(format!(
            "module {name:?} not found: looked for prelude/{stem}.lua and tools/{stem}.lua in the project and the built-ins"
        )));
    };
    cache.set(name.as_str(), LOADING)?;
    let loaded = load_chunk(lua, &file).and_then(|chunk| chunk.call::<Value>(name.as_str()));
    let value = match loaded {
        Ok(Value::Nil) => Value::Boolean(true),
        Ok(value) => value,
        Err(err) => {
            cache.set(name.as_str(), Value::Nil)?;
            return Err(err);
        }
    };
    cache.set(name.as_str(), value.clone())?;
    Ok(value)
}

fn cache(lua: &Lua) -> mlua::Result<Table> {
    match lua.named_registry_value::<Value>(CACHE_KEY)? {
        Value::Table(t) => Ok(t),
        _ => {
            let t = lua.create_table()?;
            lua.set_named_registry_value(CACHE_KEY, &t)?;
            Ok(t)
        }
    }
}
